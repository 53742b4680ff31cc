// SPDX-License-Identifier: GPL-2.0-or-later
#include "once.h"

/* splitmix64's finaliser: every input bit moves every output bit, so
 * linear probing from (key % n) spreads keys that differ in one field. */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

uint64_t guard_once_key(uint64_t pid, const struct guard_decision *d)
{
	bool read = d->hit != GUARD_HIT_UNREADABLE;
	uint64_t type = read ? d->type : UINT32_MAX;
	uint64_t what = (uint64_t)d->hit | (uint64_t)d->deny << 8 | (uint64_t)d->substitute << 9;
	uint64_t key = mix(mix(mix(read ? d->config : 0) ^ (type << 32 | (uint32_t)pid)) ^
			   (what | (pid >> 32) << 16));
	return key ? key : 1;
}

enum guard_once_result guard_once_mark(struct guard_once *o, uint64_t key)
{
	if (!key)
		key = 1; /* 0 marks an empty slot */
	for (unsigned i = 0; i < o->n; i++) {
		_Atomic uint64_t *slot = &o->slot[(key + i) % o->n];
		uint64_t cur = atomic_load_explicit(slot, memory_order_relaxed);
		/* An empty slot is claimed, or the racer that got there first
		 * wrote cur: then look at what it wrote. */
		if (cur == 0 &&
		    atomic_compare_exchange_strong_explicit(slot, &cur, key, memory_order_relaxed,
							    memory_order_relaxed))
			return GUARD_ONCE_FIRST;
		if (cur == key)
			return GUARD_ONCE_AGAIN;
	}
	return GUARD_ONCE_FULL;
}

bool guard_once_first(struct guard_once *o, uint64_t pid, const struct guard_decision *d)
{
	return guard_once_mark(o, guard_once_key(pid, d)) == GUARD_ONCE_FIRST;
}

void guard_once_forget(struct guard_once *o)
{
	for (unsigned i = 0; i < o->n; i++)
		atomic_store_explicit(&o->slot[i], 0, memory_order_relaxed);
}
