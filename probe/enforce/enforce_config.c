// SPDX-License-Identifier: GPL-2.0-or-later
/* The pure half of kernel enforcement: the rodata a policy becomes,
 * reading the LSM list, and judging the perf events that existed before a
 * start.  No libbpf here, so it is tested everywhere. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "enforce.h"

/* dst[0..size) gets src, cut to fit, always NUL-terminated. */
static void copy_cut(char *dst, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, size - 1) : 0;
	memcpy(dst, src ? src : "", n);
	memset(dst + n, 0, size - n);
}

void enf_config_fill(struct pmug_enf_config *c, const struct guard_policy *p, unsigned probe_state,
		     const char *facts_from, unsigned attach, time_t now)
{
	memset(c, 0, sizeof(*c));
	c->magic = PMUG_ENF_MAGIC;
	c->version = PMUG_ENF_VERSION;
	c->enforce = p->enforce ? 1u : 0u;
	c->attach = attach;
	c->mode = (unsigned)p->mode;
	c->state = probe_state;
	/* The policy's list starts with PERF_TYPE_RAW, each type with its
	 * hazard set and table kind.  At most GUARD_RULE_MAX_CORE fit (classify.h checks that
	 * the policy never holds more). */
	for (unsigned i = 0; i < p->n_core && i < GUARD_RULE_MAX_CORE; i++) {
		c->core_types[c->n_core] = p->core_types[i];
		c->core_hazard[c->n_core] = p->core_hazard[i];
		c->core_table[c->n_core++] = p->core_table[i];
	}
	c->started = now < 0 ? 0 : (unsigned long long)now;
	copy_cut(c->reason, sizeof(c->reason), p->reason);
	copy_cut(c->facts_from, sizeof(c->facts_from), facts_from);
}

void enf_event_decision(const struct pmug_enf_event *e, struct guard_decision *d)
{
	*d = (struct guard_decision){.hit = (enum guard_hit)e->hit,
				     .deny = e->denied != 0,
				     .report = true,
				     .type = e->attr_type,
				     .config = e->attr_config};
}

bool enf_config_same(const struct pmug_enf_config *a, const struct pmug_enf_config *b)
{
	if (a->magic != b->magic || a->version != b->version || a->enforce != b->enforce ||
	    a->mode != b->mode || a->n_core != b->n_core || a->object != b->object)
		return false;
	for (unsigned i = 0; i < a->n_core && i < GUARD_RULE_MAX_CORE; i++)
		if (a->core_types[i] != b->core_types[i] ||
		    a->core_hazard[i] != b->core_hazard[i] || a->core_table[i] != b->core_table[i])
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
	case PMUG_ENF_ATTACH_LSM: return "lsm";
	case PMUG_ENF_ATTACH_FMOD_RET: return "fmod_ret";
	default: return "none";
	}
}

static int by_tgid_fd(const void *a, const void *b)
{
	const struct pmug_enf_file *x = a, *y = b;
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->fd < y->fd ? -1 : x->fd > y->fd;
}

int enf_existing_judge(struct enf_existing *ex, const struct pmug_enf_config *cfg,
		       const void *records, size_t len)
{
	memset(ex, 0, sizeof(*ex));
	const size_t size = sizeof(struct pmug_enf_file);
	if (len % size) {
		snprintf(ex->why, sizeof(ex->why),
			 "the iterator wrote %zu bytes, not a whole number of %zu-byte records",
			 len, size);
		return -EPROTO;
	}
	size_t n = len / size;
	struct pmug_enf_file *f = NULL;
	if (n) {
		/* A copy: the records may come unaligned, and are sorted. */
		f = malloc(len);
		if (!f) {
			snprintf(ex->why, sizeof(ex->why), "out of memory");
			return -ENOMEM;
		}
		memcpy(f, records, len);
		qsort(f, n, size, by_tgid_fd);
	}
	for (size_t i = 0; i < n; i++) {
		/* Threads of a process share its file table: one record per
		 * (tgid, fd), whichever thread the kernel showed it under. */
		if (i && !by_tgid_fd(&f[i - 1], &f[i]))
			continue;
		ex->n_files++;
		unsigned long long judged;
		enum guard_hit hit = pmug_enf_classify(cfg, f[i].pmu_type, f[i].hw_config,
						       f[i].attr_type, f[i].attr_config, &judged);
		/* A dead event is being freed and can never be scheduled; any
		 * other state (off, error, exit with children) still can. */
		if (hit == GUARD_HIT_NONE || f[i].state == PMUG_ENF_STATE_DEAD)
			continue;
		ex->n_hits++;
		if (ex->n_listed < ENF_EXISTING_LISTED)
			ex->ev[ex->n_listed++] = (struct enf_existing_event){
				.f = f[i], .hit = hit, .judged = judged};
	}
	free(f);
	ex->known = true;
	return 0;
}

/* Each state's word for data (status --json) and its words for people. */
static const struct {
	const char *token, *words;
} states[] = {
	[PMUG_ENF_STATE_UNKNOWN] = {"unknown", "unknown"},
	[PMUG_ENF_STATE_ACTIVE] = {"active", "active"},
	[PMUG_ENF_STATE_INACTIVE] = {"inactive", "inactive (enabled)"},
	[PMUG_ENF_STATE_OFF] = {"off", "off (disabled: an ioctl or exec enables it)"},
	[PMUG_ENF_STATE_ERROR] = {"error", "error (may be enabled again)"},
	[PMUG_ENF_STATE_EXIT] = {"exit", "exit (its task exited; children may hold copies)"},
	[PMUG_ENF_STATE_DEAD] = {"dead", "dead"},
};

const char *enf_state_name(unsigned state)
{
	return state < sizeof(states) / sizeof(states[0]) ? states[state].words : "unknown";
}

const char *enf_state_token(unsigned state)
{
	return state < sizeof(states) / sizeof(states[0]) ? states[state].token : "unknown";
}

void enf_verify_judge(struct enf_verify *v, int open_ret, bool counted, unsigned long long before,
		      unsigned long long after, unsigned attach)
{
	v->ran = true;
	v->verified = false;
	v->open_errno = open_ret >= 0 ? 0 : -open_ret;
	v->answered = counted ? after : 0;
	if (open_ret >= 0) {
		snprintf(
			v->why, sizeof(v->why),
			"the self-test's canary event was opened: the %s program is attached but "
			"the kernel does not run it%s",
			enf_attach_name(attach),
			attach == PMUG_ENF_ATTACH_LSM
				? " (bpf is not an active LSM: it is missing from lsm= on the kernel "
				  "command line)"
				: "");
	} else if (open_ret != -PMUG_ENF_CANARY_ERRNO) {
		snprintf(v->why, sizeof(v->why),
			 "the self-test's canary event could not be opened (%s) before it reached "
			 "the guard: whether the program runs is unknown",
			 strerror(-open_ret));
	} else if (!counted || after <= before) {
		snprintf(v->why, sizeof(v->why),
			 "the self-test's canary was refused, but the %s program did not count it: "
			 "something else answered",
			 enf_attach_name(attach));
	} else {
		v->verified = true;
		v->why[0] = '\0';
	}
}
