/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Once per process: has this process been reported for this decision on
 * this encoding already?  The one implementation behind every enforcer's
 * "one report per (process, encoding)": the shim (each process's own
 * table), the seccomp supervisor (one table for the tree it watches) and
 * `pmuguard enforce follow` (one table for the host).  Each caller owns the
 * table and picks its size; the logic is here.
 *
 * A set of hashed keys in a caller's array, open addressing: lock-free
 * (one compare-and-swap claims an empty slot), allocation-free and
 * async-signal-safe, so the shim can use it from a signal handler, from
 * racing threads and from a vfork child.  The key carries the pid: a fork
 * child finds its parent's keys under another pid and reports afresh, and
 * a vfork child, which writes into its parent's table, adds keys of its own
 * instead of wiping the parent's.
 */
#ifndef PMUGUARD_ONCE_H
#define PMUGUARD_ONCE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "decide.h"

struct guard_once {
	_Atomic uint64_t *slot; /* n slots, zero when empty */
	unsigned n;
};

/* clang-format 14 spreads a braced macro body over four lines. */
/* clang-format off */
#define GUARD_ONCE_INIT(array) {(array), sizeof(array) / sizeof((array)[0])}
/* clang-format on */

enum guard_once_result {
	GUARD_ONCE_FIRST, /* not seen before: now it is */
	GUARD_ONCE_AGAIN, /* seen before */
	GUARD_ONCE_FULL,  /* not seen, and no slot is left for it */
};

/* The key of (pid, decision): its encoding as the caller gave it (an
 * unreadable attr is one key of its own, whatever its errno), what was hit,
 * and what was done (deny, substitute, audit).  Never 0. */
uint64_t guard_once_key(uint64_t pid, const struct guard_decision *d);

/* Marks key as seen.  Safe against concurrent callers of the same table. */
enum guard_once_result guard_once_mark(struct guard_once *o, uint64_t key);

/* guard_once_mark(guard_once_key(pid, d)) == GUARD_ONCE_FIRST: a full table
 * reports nothing more (that many distinct lines were reported already). */
bool guard_once_first(struct guard_once *o, uint64_t pid, const struct guard_decision *d);

/* Empties the table.  Not safe against a concurrent mark: for a caller
 * that owns its table alone (follow, which lives for days, forgets every
 * key when the table fills rather than go silent). */
void guard_once_forget(struct guard_once *o);

#endif
