// SPDX-License-Identifier: GPL-2.0-or-later
/* The classifier and the policy per mode, over the encodings of point 3. */
#include "fixture.h"

static struct world w;
static struct guard_policy p;

static void setup_m6i(void)
{
	world_load(&w, "m6i-16xlarge");
	guard_policy_init(&p, GUARD_AUTO, &w.f, &w.v);
}

TestSuite(encodings, .init = setup_m6i);

Test(encodings, slots_denied_whatever_the_modifiers)
{
	cr_assert(p.watch && p.enforce);
	static const uint64_t slots[] = {
		0x0400,
		0x0400 | (1ull << 18),            /* edge */
		0x0400 | (1ull << 23),            /* inv */
		0x0400 | (0x5ull << 24),          /* cmask */
		0x0400 | (1ull << 32),            /* in_tx */
		0x0400 | (1ull << 33),            /* in_tx_cp */
		0x0400 | (1ull << 16) | (1ull << 17), /* usr, os */
		0x0400 | (0xffffull << 48),
	};
	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++)
		cr_assert_eq(guard_classify(&p, PROBE_TYPE_RAW, slots[i]), GUARD_HIT_SLOTS,
			     "config 0x%llx", (unsigned long long)slots[i]);
}

Test(encodings, every_metric_umask_denied)
{
	for (unsigned u = 0x80; u <= 0x87; u++) {
		uint64_t c = (uint64_t)u << 8;
		cr_assert_eq(guard_classify(&p, 4, c), GUARD_HIT_METRIC, "0x%x", u);
		cr_assert_eq(guard_classify(&p, 4, c | (0xffull << 24) | (1ull << 23)),
			     GUARD_HIT_METRIC, "0x%x with cmask/inv", u);
		cr_assert_str_neq(guard_hit_name(GUARD_HIT_METRIC, c), "none");
	}
	cr_assert_eq(guard_classify(&p, 4, 0x8800), GUARD_HIT_NONE, "0x88 is no metric");
	cr_assert_eq(guard_classify(&p, 4, 0x7f00), GUARD_HIT_NONE);
}

Test(encodings, everything_else_allowed)
{
	static const struct {
		uint32_t type;
		uint64_t config;
		const char *what;
	} ok[] = {
		{4, 0x01a4, "TOPDOWN.SLOTS_P"},
		{4, 0x0300, "ref-cycles"},
		{4, 0x00c0, "INST_RETIRED.ANY"},
		{4, 0x003c, "CPU_CLK_UNHALTED.THREAD"},
		{4, 0x01b7, "OCR.* (offcore_rsp in config1)"},
		{4, 0x01bb, "OCR.* second MSR"},
		{4, 0x0401, "event 0x01 umask 0x04"},
		{4, 0x0073, "v6 atom fixed 4"},
		{4, 0x019c, "v6 atom fixed 5"},
		{4, 0x02c2, "v6 atom fixed 6"},
		{0, 0, "PERF_COUNT_HW_CPU_CYCLES"},
		{0, 1, "PERF_COUNT_HW_INSTRUCTIONS"},
		{0, 9, "PERF_COUNT_HW_REF_CPU_CYCLES"},
		{0, 0x0400, "HARDWARE with a slots-like config is still a generic id"},
		{0, (4ull << 32) | 1, "HARDWARE, hybrid extended type"},
		{0, (10ull << 32) | 0, "HARDWARE, cpu_atom extended type"},
		{3, 0x10000, "HW_CACHE"},
		{3, (4ull << 32) | 0x0400, "HW_CACHE, extended type"},
		{1, 0x0400, "software"},
		{2, 0x0400, "tracepoint id"},
		{12, 0x0400, "an uncore PMU"},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		cr_assert_eq(guard_classify(&p, ok[i].type, ok[i].config), GUARD_HIT_NONE,
			     "%s (type %u config 0x%llx)", ok[i].what, ok[i].type,
			     (unsigned long long)ok[i].config);
}

Test(modes, auto_on_healthy_machine_watches_nothing)
{
	world_load(&w, "icx-8375c-metal");
	guard_policy_init(&p, GUARD_AUTO, &w.f, &w.v);
	cr_assert_not(p.watch);
	cr_assert_not(p.enforce);
}

Test(modes, always_blocks_on_healthy_intel)
{
	world_load(&w, "icx-8375c-metal");
	guard_policy_init(&p, GUARD_ALWAYS, &w.f, &w.v);
	cr_assert(p.watch && p.enforce);
	cr_assert_eq(guard_classify(&p, 4, 0x0400), GUARD_HIT_SLOTS);
}

Test(modes, audit_watches_but_never_enforces)
{
	world_load(&w, "m6i-16xlarge");
	guard_policy_init(&p, GUARD_AUDIT, &w.f, &w.v);
	cr_assert(p.watch);
	cr_assert_not(p.enforce);
}

Test(modes, off_does_nothing)
{
	world_load(&w, "m6i-16xlarge");
	guard_policy_init(&p, GUARD_OFF, &w.f, &w.v);
	cr_assert_not(p.watch);
	cr_assert_not(p.enforce);
}

Test(modes, parse)
{
	cr_assert_eq(guard_mode_parse("auto"), GUARD_AUTO);
	cr_assert_eq(guard_mode_parse("always"), GUARD_ALWAYS);
	cr_assert_eq(guard_mode_parse("audit"), GUARD_AUDIT);
	cr_assert_eq(guard_mode_parse("off"), GUARD_OFF);
	cr_assert_eq(guard_mode_parse("OFF"), -1);
	cr_assert_eq(guard_mode_parse(""), -1);
	cr_assert_eq(guard_mode_parse("autox"), -1);
}

/* slots = substitute: TOPDOWN.SLOTS becomes TOPDOWN.SLOTS_P with every other
 * bit of config kept; the metrics are denied whatever the setting; every
 * core type of a hybrid guest is treated alike. */
#include "decide.h"

static struct guard_decision decide_config(const struct guard_policy *pol, uint32_t type,
					   uint64_t config)
{
	struct guard_attr a = {.type = type, .size = 64, .config = config};
	struct guard_decision d;
	guard_decide(pol, 0, &a, &d);
	return d;
}

Test(substitute, slots_become_slots_p_with_every_bit_kept)
{
	static const uint64_t mods[] = {0, 1ull << 18, 1ull << 23, 0x5ull << 24, 1ull << 32,
					(1ull << 16) | (1ull << 17), 0xffffull << 48};
	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++)
		cr_assert_eq(guard_slots_p(0x0400 | mods[i]), 0x01a4 | mods[i], "%zu", i);
	world_load(&w, "m6i-16xlarge");
	guard_policy_init(&p, GUARD_AUTO, &w.f, &w.v);
	p.substitute = true;
	struct guard_decision d = decide_config(&p, 4, 0x0400);
	cr_assert(d.substitute && !d.deny && d.report);
	for (unsigned m = 0x80; m <= 0x87; m++) {
		d = decide_config(&p, 4, (uint64_t)m << 8);
		cr_assert(d.deny && !d.substitute, "metric 0x%x must stay denied", m);
	}
	d = decide_config(&p, 4, 0x01a4);
	cr_assert(!d.deny && !d.substitute && !d.report, "SLOTS_P itself is untouched");
}

Test(substitute, hybrid_core_types_alike_and_audit_never_substitutes)
{
	world_load(&w, "hybrid-guest-hazard");
	guard_policy_init(&p, GUARD_AUTO, &w.f, &w.v);
	p.substitute = true;
	cr_assert(decide_config(&p, 4, 0x0400).substitute);
	cr_assert(decide_config(&p, 10, 0x0400).substitute);
	cr_assert_not(decide_config(&p, 11, 0x0400).report, "not a core PMU");
	guard_policy_init(&p, GUARD_AUDIT, &w.f, &w.v);
	p.substitute = true;
	struct guard_decision d = decide_config(&p, 4, 0x0400);
	cr_assert(d.report && !d.deny && !d.substitute, "audit changes nothing");
}

/* Counters 4-6.  The Clearwater Forest guest advertises them
 * (ECX 0x77) and no hypervisor implements them: the E-core topdown events
 * are denied where they land on the fixed counter, and nothing else. */
TestSuite(fixed456);

Test(fixed456, cwf_guest_denies_the_e_core_topdown_events)
{
	world_load(&w, "cwf-guest-fixed456");
	cr_assert_eq(w.v.fixed_hazard, 0x70, "hazard set 0x%x", w.v.fixed_hazard);
	guard_policy_init(&p, GUARD_AUTO, &w.f, &w.v);
	cr_assert(p.watch && p.enforce);
	static const struct {
		uint64_t config;
		enum guard_hit hit;
		int counter;
	} cases[] = {
		{0x0073, GUARD_HIT_FIXED, 4},
		{0x019c, GUARD_HIT_FIXED, 5},
		{0x02c2, GUARD_HIT_FIXED, 6},
		{0x0073 | (1ull << 16) | (1ull << 17), GUARD_HIT_FIXED, 4}, /* usr, os */
		{0x0500, GUARD_HIT_FIXED, 4}, /* the pseudo-encoding of counter 4 */
		{0x0600, GUARD_HIT_FIXED, 5},
		{0x0700, GUARD_HIT_FIXED, 6},
		/* Counter 3 is not advertised: slots is no hazard here. */
		{0x0400, GUARD_HIT_NONE, -1},
		/* A modifier the fixed counter cannot take: general-purpose. */
		{0x0073 | (1ull << 23), GUARD_HIT_NONE, -1}, /* inv */
		{0x0073 | (1ull << 24), GUARD_HIT_NONE, -1}, /* cmask 1 */
		{0x0073 | (1ull << 18), GUARD_HIT_NONE, -1}, /* edge */
		{0x0173, GUARD_HIT_NONE, -1},                /* another umask */
		{0x00c0, GUARD_HIT_NONE, -1},
		{0x003c, GUARD_HIT_NONE, -1},
		{0x0300, GUARD_HIT_NONE, -1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum guard_hit h = guard_classify(&p, PROBE_TYPE_RAW, cases[i].config);
		cr_assert_eq(h, cases[i].hit, "config 0x%llx: hit %d",
			     (unsigned long long)cases[i].config, h);
		if (h != GUARD_HIT_NONE) {
			cr_assert_eq(guard_hit_counter(h, cases[i].config), cases[i].counter);
			cr_assert_str_neq(guard_hit_name(h, cases[i].config), "none");
		}
	}
	/* The generic ids are not raw encodings: never judged. */
	cr_assert_eq(guard_classify(&p, 0, 1), GUARD_HIT_NONE);
}

Test(fixed456, cwf_metal_blocks_nothing)
{
	world_load(&w, "cwf-metal");
	cr_assert_eq(w.v.state, PROBE_SAFE);
	cr_assert_eq(w.v.fixed_hazard, 0);
	guard_policy_init(&p, GUARD_AUTO, &w.f, &w.v);
	cr_assert_not(p.enforce);
}

Test(fixed456, p_core_tables_leave_the_e_core_events_alone)
{
	/* On the m6i (Ice Lake: the pseudo table) 0x0073 is an ordinary
	 * event; under `always` the P-core table places it nowhere fixed. */
	world_load(&w, "m6i-16xlarge");
	cr_assert_eq(w.v.fixed_hazard, 0x08);
	guard_policy_init(&p, GUARD_ALWAYS, &w.f, &w.v);
	cr_assert_eq(guard_classify(&p, 4, 0x0073), GUARD_HIT_NONE);
	cr_assert_eq(guard_classify(&p, 4, 0x019c), GUARD_HIT_NONE);
	cr_assert_eq(guard_classify(&p, 4, 0x02c2), GUARD_HIT_NONE);
	cr_assert_eq(guard_classify(&p, 4, 0x0400), GUARD_HIT_SLOTS);
	/* The rule's table itself. */
	cr_assert_eq(guard_rule_counter(0x0073, GUARD_TABLE_PSEUDO), GUARD_RULE_NO_COUNTER);
	cr_assert_eq(guard_rule_counter(0x0073, GUARD_TABLE_ETD), 4);
	cr_assert_eq(guard_rule_counter(0x0400, GUARD_TABLE_PSEUDO), 3);
	cr_assert_eq(guard_rule_counter(0x0400, GUARD_TABLE_ETD), 3);
	cr_assert_eq(guard_rule_counter(0x8300, GUARD_TABLE_PSEUDO), 3, "a metric");
}

Test(fixed456, refuted_counter3_is_the_hazard_whatever_bit48_says)
{
	/* The QEMU guest on a Raptor Lake-P host: bit 48 in the mask, but the
	 * mask claims 4 fixed counters over a count of 3 and the hypervisor
	 * rejected the write. */
	world_load(&w, "rpl-guest-mask-refuted");
	cr_assert_eq(w.v.state, PROBE_HAZARD);
	cr_assert_eq(w.v.guard_state, PROBE_HAZARD);
	cr_assert_eq(w.v.fixed_refuted, 0x08);
	guard_policy_init(&p, GUARD_AUTO, &w.f, &w.v);
	cr_assert_eq(guard_classify(&p, 4, 0x0400), GUARD_HIT_SLOTS);
	world_load(&w, "rpl-guest-mask-refuted-log-only");
	cr_assert_eq(w.v.state, PROBE_HAZARD);
	cr_assert_eq(w.v.guard_state, PROBE_UNKNOWN, "the guard acts on CPUID only");
}
