// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Settings -> facts -> verdict -> policy: the one path every enforcer takes
 * (the shim's first call, `pmuguard run`, `pmuguard enforce start`), so
 * that none of them can gather, judge or fail closed differently; and the
 * policy per mode: which core PMU types are watched, and whether what the
 * classifier (classify.c) hits there is denied.
 */
#include <string.h>

#include "classify.h"
#include "conf.h"
#include "policy.h"
#include "settings.h"

/* Arrays, not pointers: no relocation for the loader to make in every
 * process the shim is preloaded into. */
static const char mode_names[][8] = {
	[GUARD_AUTO] = "auto",
	[GUARD_ALWAYS] = "always",
	[GUARD_AUDIT] = "audit",
	[GUARD_OFF] = "off",
};

int guard_mode_parse_n(const char *s, size_t len)
{
	for (unsigned i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (strlen(mode_names[i]) == len && memcmp(s, mode_names[i], len) == 0)
			return (int)i;
	return -1;
}

int guard_mode_parse(const char *s)
{
	return guard_mode_parse_n(s, strlen(s));
}

const char *guard_mode_name(enum guard_mode m)
{
	return (unsigned)m < sizeof(mode_names) / sizeof(mode_names[0]) ? mode_names[m] : "?";
}

/* Every core type's hazard set, the same for all. */
static void hazard_all(struct guard_policy *p, uint32_t set)
{
	for (unsigned i = 0; i < p->n_core; i++)
		p->core_hazard[i] = set;
}

void guard_policy_init(struct guard_policy *p, enum guard_mode mode, const struct probe_facts *f,
		       const struct probe_verdict *v)
{
	memset(p, 0, sizeof(*p));
	p->mode = mode;
	p->reason = v->reason;
	/* PERF_TYPE_RAW first: the non-hybrid cpu, or a hybrid cpu_core, is
	 * registered with it; its set and table are that PMU's where sysfs
	 * lists it, the machine's otherwise. */
	p->core_types[0] = PROBE_TYPE_RAW;
	p->core_hazard[0] = v->fixed_hazard;
	p->core_table[0] = guard_table_for(&v->cpu, "cpu");
	p->n_core = 1;
	for (unsigned i = 0; i < f->n_pmus && i < PROBE_MAX_PMUS; i++) {
		unsigned at = p->n_core;
		if (guard_rule_generic_type(f->pmus[i].type))
			continue; /* a generic type is no core PMU's (classify_rule.h) */
		if (f->pmus[i].type == PROBE_TYPE_RAW)
			at = 0;
		else
			p->core_types[p->n_core++] = f->pmus[i].type;
		p->core_hazard[at] = v->pmu_hazard[i];
		p->core_table[at] = guard_table_for(&v->cpu, f->pmus[i].name);
	}

	/* The guard acts on guard_state: the state where CPUID decided it,
	 * unknown where the kernel log alone did (probe/facts/verdict.c says why).
	 * Facts left unknown for a reason that passes (the fd limit, no
	 * memory) are not "nothing to guard": fail closed for now; the shim
	 * does not keep this policy and probes again at the next call. */
	bool hazard = v->guard_state == PROBE_HAZARD;
	if (v->guard_state == PROBE_UNKNOWN && probe_facts_transient(f)) {
		hazard = true;
		hazard_all(p, GUARD_RULE_HAZARD_ALL);
		p->reason = "the facts could not be read just now (out of descriptors or memory): "
			    "failing closed until they can be";
	}
	if (!hazard)
		hazard_all(p, 0);
	switch (mode) {
	case GUARD_AUTO: p->watch = p->enforce = hazard; break;
	case GUARD_ALWAYS:
		/* Every Intel core PMU, whatever the probe says; only a CPU
		 * known not to be Intel is spared (on AMD event 0x00 umask
		 * 0x04 is an ordinary event). */
		p->watch = p->enforce = v->guard_state != PROBE_NOT_INTEL;
		hazard_all(p, p->watch ? GUARD_RULE_HAZARD_ALL : 0);
		if (p->watch)
			p->reason =
				"mode always (the policy file, the environment or --mode) "
				"blocks what lands on fixed counters 3-6 on every Intel core PMU";
		break;
	case GUARD_AUDIT:
		p->watch = hazard;
		p->enforce = false;
		break;
	case GUARD_OFF: hazard_all(p, 0); break;
	}
}

void guard_policy_fail_closed(struct guard_policy *p, const char *reason)
{
	p->watch = p->enforce = true;
	hazard_all(p, GUARD_RULE_HAZARD_ALL);
	for (unsigned i = 0; i < p->n_core; i++)
		p->core_table[i] = GUARD_TABLE_ETD;
	p->reason = reason;
}

void guard_policy_for(const struct guard_settings *set, struct probe_facts *f,
		      struct probe_verdict *v, struct guard_policy *p)
{
	if (set->mode != GUARD_OFF) {
		probe_gather_verdict(f, set->snapshot);
		probe_evaluate(f, v);
	} else {
		/* Off: no probe work at all. */
		memset(f, 0, sizeof(*f));
		memset(v, 0, sizeof(*v));
		v->state = PROBE_UNKNOWN;
		v->reason = "mode off: nothing is checked";
	}
	guard_policy_init(p, set->mode, f, v);
	if (set->conf_transient)
		guard_policy_fail_closed(p, GUARD_CONF_PATH " could not be read just now (out of "
							    "descriptors or memory): failing "
							    "closed until it can be");
}
