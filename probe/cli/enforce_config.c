// SPDX-License-Identifier: GPL-2.0-or-later
/* The pure half of kernel enforcement: the rodata a policy becomes, and
 * reading the LSM list.  No libbpf here, so it is tested everywhere. */
#include <string.h>

#include "enforce.h"

void enf_config_fill(struct pmug_enf_config *c, const struct guard_policy *p,
		     unsigned probe_state, unsigned attach, time_t now)
{
	memset(c, 0, sizeof(*c));
	c->magic = PMUG_ENF_MAGIC;
	c->version = PMUG_ENF_VERSION;
	c->enforce = p->enforce ? 1u : 0u;
	c->attach = attach;
	c->mode = (unsigned)p->mode;
	c->state = probe_state;
	/* The policy's list starts with PERF_TYPE_RAW; the rule adds it
	 * anyway.  At most GUARD_RULE_MAX_CORE fit (classify.h checks that
	 * the policy never holds more). */
	for (unsigned i = 0; i < p->n_core && i < GUARD_RULE_MAX_CORE; i++)
		c->core_types[c->n_core++] = p->core_types[i];
	c->started = now < 0 ? 0 : (unsigned long long)now;
}

bool enf_config_same(const struct pmug_enf_config *a, const struct pmug_enf_config *b)
{
	if (a->magic != b->magic || a->version != b->version || a->enforce != b->enforce ||
	    a->mode != b->mode || a->n_core != b->n_core || a->object != b->object)
		return false;
	for (unsigned i = 0; i < a->n_core && i < GUARD_RULE_MAX_CORE; i++)
		if (a->core_types[i] != b->core_types[i])
			return false;
	return true;
}

/* "lockdown,capability,yama,bpf\n": a comma-separated list (security/
 * security.c, lsm_read). */
bool enf_lsm_listed(const char *list, size_t len)
{
	size_t i = 0;
	while (i < len) {
		size_t j = i;
		while (j < len && list[j] != ',' && list[j] != '\n' && list[j] != '\0')
			j++;
		if (j - i == 3 && memcmp(list + i, "bpf", 3) == 0)
			return true;
		i = j + 1;
	}
	return false;
}

const char *enf_attach_name(unsigned attach)
{
	switch (attach) {
	case PMUG_ENF_ATTACH_LSM:
		return "lsm";
	case PMUG_ENF_ATTACH_FMOD_RET:
		return "fmod_ret";
	default:
		return "none";
	}
}
