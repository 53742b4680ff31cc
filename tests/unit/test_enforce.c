// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel enforcement's pure half: the rodata a policy becomes, the LSM
 * list, the judging of perf events that existed before a start, and (where
 * the BPF object was built) that the object's BTF lays the shared structs
 * out as the host compiler does. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "denial.h"
#include "enforce.h"
#include "enforce_state.h"
#include "fixture.h"
#include "once.h"

#ifdef ENF_BPF_OBJ
#include <bpf/btf.h>
#endif

static void policy_for(const char *world, enum guard_mode mode, struct guard_policy *p,
		       struct world *w)
{
	world_load(w, world);
	guard_policy_init(p, mode, &w->f, &w->v);
}

Test(rodata, m6i_auto_denies_on_the_raw_type)
{
	static struct world w;
	struct guard_policy p;
	policy_for("m6i-16xlarge", GUARD_AUTO, &p, &w);
	struct pmug_enf_config c;
	memset(&c, 0xa5, sizeof(c));
	enf_config_fill(&c, &p, w.v.state, NULL, PMUG_ENF_ATTACH_LSM, 1700000000);
	cr_assert_eq(c.magic, PMUG_ENF_MAGIC);
	cr_assert_eq(c.version, PMUG_ENF_VERSION);
	cr_assert_eq(c.enforce, 1);
	cr_assert_eq(c.attach, PMUG_ENF_ATTACH_LSM);
	cr_assert_eq(c.mode, GUARD_AUTO);
	cr_assert_eq(c.state, PROBE_HAZARD);
	cr_assert_eq(c.started, 1700000000ull);
	cr_assert_eq(c.n_core, p.n_core);
	cr_assert_eq(c.core_types[0], 4);
	for (unsigned i = c.n_core; i < GUARD_RULE_MAX_CORE; i++)
		cr_assert_eq(c.core_types[i], 0, "unused slot %u is zero", i);
	/* The kernel program judges with these exactly as the shim does. */
	for (unsigned code = 0; code <= 0xffff; code++)
		cr_assert_eq(guard_rule_classify(4, code, c.core_types, c.core_hazard, c.core_table,
						 c.n_core),
			     guard_classify(&p, 4, code), "0x%x", code);
}

Test(rodata, audit_counts_without_denying)
{
	static struct world w;
	struct guard_policy p;
	policy_for("m6i-16xlarge", GUARD_AUDIT, &p, &w);
	struct pmug_enf_config c;
	enf_config_fill(&c, &p, w.v.state, NULL, PMUG_ENF_ATTACH_FMOD_RET, 0);
	cr_assert(p.watch);
	cr_assert_eq(c.enforce, 0);
	cr_assert_eq(c.mode, GUARD_AUDIT);
}

Test(rodata, hybrid_world_carries_both_core_types)
{
	static struct world w;
	struct guard_policy p;
	policy_for("hybrid-guest-hazard", GUARD_AUTO, &p, &w);
	struct pmug_enf_config c;
	enf_config_fill(&c, &p, w.v.state, NULL, PMUG_ENF_ATTACH_LSM, 0);
	cr_assert_eq(c.n_core, p.n_core);
	cr_assert_geq(c.n_core, 2, "RAW plus cpu_atom's dynamic type");
	for (unsigned i = 0; i < w.f.n_pmus; i++)
		cr_assert_geq(guard_rule_core_index(w.f.pmus[i].type, c.core_types, c.n_core), 0,
			      "%s (type %u) is judged", w.f.pmus[i].name, w.f.pmus[i].type);
	cr_assert_lt(guard_rule_core_index(1, c.core_types, c.n_core), 0, "software is not core");
}

Test(rodata, same_config_means_same_effect)
{
	static struct world w;
	struct guard_policy p;
	policy_for("m6i-16xlarge", GUARD_AUTO, &p, &w);
	struct pmug_enf_config a, b;
	enf_config_fill(&a, &p, w.v.state, NULL, PMUG_ENF_ATTACH_LSM, 1);
	enf_config_fill(&b, &p, w.v.state, NULL, PMUG_ENF_ATTACH_FMOD_RET, 2);
	cr_assert(enf_config_same(&a, &b), "start time and attach do not matter");
	b.enforce = 0;
	cr_assert_not(enf_config_same(&a, &b));
	enf_config_fill(&b, &p, w.v.state, NULL, 0, 2);
	b.core_types[b.n_core++] = 10;
	cr_assert_not(enf_config_same(&a, &b));
	/* Another build's program (an upgrade) is not the same program. */
	enf_config_fill(&b, &p, w.v.state, NULL, PMUG_ENF_ATTACH_LSM, 1);
	b.object = a.object + 1;
	cr_assert_not(enf_config_same(&a, &b), "another BPF object is another program");
}

Test(rodata, carries_the_reason_and_facts_it_was_started_on)
{
	static struct world w;
	struct guard_policy p;
	policy_for("m6i-16xlarge", GUARD_AUTO, &p, &w);
	struct pmug_enf_config c;
	memset(&c, 0xa5, sizeof(c));
	enf_config_fill(&c, &p, w.v.state, "/srv/snap/m6i", PMUG_ENF_ATTACH_LSM, 1);
	cr_assert_str_eq(c.reason, p.reason, "the policy's reason, kept with the program");
	cr_assert_str_eq(c.facts_from, "/srv/snap/m6i");
	for (size_t i = strlen(c.reason); i < sizeof(c.reason); i++)
		cr_assert_eq(c.reason[i], 0, "the rest of the reason is zero (%zu)", i);
	enf_config_fill(&c, &p, w.v.state, NULL, PMUG_ENF_ATTACH_LSM, 1);
	cr_assert_str_eq(c.facts_from, "", "this machine");
	/* Too long: cut, still a string. */
	static char longer[PMUG_ENF_REASON_LEN + 40];
	memset(longer, 'x', sizeof(longer) - 1);
	p.reason = longer;
	enf_config_fill(&c, &p, w.v.state, longer, PMUG_ENF_ATTACH_LSM, 1);
	cr_assert_eq(strlen(c.reason), PMUG_ENF_REASON_LEN - 1);
	cr_assert_eq(strlen(c.facts_from), PMUG_ENF_FACTS_FROM_LEN - 1);
	/* The reason does not make another configuration: the effect does. */
	struct pmug_enf_config a;
	policy_for("m6i-16xlarge", GUARD_AUTO, &p, &w);
	enf_config_fill(&a, &p, w.v.state, NULL, PMUG_ENF_ATTACH_LSM, 1);
	cr_assert(enf_config_same(&a, &c));
}

/* A kernel record: follow's line says the start's reason, not today's. */
Test(follow, a_record_is_the_kernel_programs_decision_in_the_shims_words)
{
	static struct world w;
	struct guard_policy p;
	policy_for("m6i-16xlarge", GUARD_AUTO, &p, &w);
	struct pmug_enf_config c;
	enf_config_fill(&c, &p, w.v.state, NULL, PMUG_ENF_ATTACH_LSM, 1);
	struct pmug_enf_event e;
	memset(&e, 0, sizeof(e));
	e.tgid = 141;
	e.attr_type = 4;
	e.attr_config = 0x400;
	e.pmu_type = 4;
	e.hw_config = 0x530400;
	e.hit = GUARD_HIT_SLOTS;
	e.denied = 1;
	memcpy(e.comm, "peo-enable", 11);
	struct guard_decision d;
	enf_event_decision(&e, &d);
	cr_assert(d.deny && d.report && !d.substitute);
	cr_assert_eq(d.type, 4);
	cr_assert_eq(d.config, 0x400, "the attr as the caller gave it");
	const struct guard_policy started = {.reason = c.reason};
	struct logline l;
	guard_format_denial(&l, &started, &d, e.comm, (pid_t)e.tgid);
	l.buf[l.len] = '\0';
	cr_assert(strstr(l.buf, "pmuguard: blocked perf_event_open(type=4, config=0x400) in "
				"peo-enable[141]: TOPDOWN.SLOTS"),
		  "%s", l.buf);
	cr_assert(strstr(l.buf, p.reason), "the reason of the start: %s", l.buf);
	e.denied = 0;
	enf_event_decision(&e, &d);
	cr_assert(!d.deny && d.report, "audit: reported, allowed");
}

/* probe/guard/once.c: the shim's, the supervisor's and follow's "once". */
Test(once, first_again_per_pid_and_full)
{
	static _Atomic uint64_t slots[8];
	struct guard_once o = GUARD_ONCE_INIT(slots);
	cr_assert_eq(o.n, 8);
	struct guard_decision d = {.hit = GUARD_HIT_SLOTS, .deny = true, .report = true,
				   .type = 4, .config = 0x400};
	cr_assert(guard_once_first(&o, 100, &d));
	cr_assert_not(guard_once_first(&o, 100, &d), "said once");
	cr_assert(guard_once_first(&o, 101, &d), "another process (a fork or vfork child)");
	struct guard_decision m = d;
	m.config = 0x8000;
	m.hit = GUARD_HIT_METRIC;
	cr_assert(guard_once_first(&o, 100, &m), "another encoding");
	struct guard_decision a = d;
	a.deny = false;
	cr_assert(guard_once_first(&o, 100, &a), "audited after denied (a replaced program)");
	/* Unreadable: one key, whatever the errno. */
	struct guard_decision u = {.hit = GUARD_HIT_UNREADABLE, .deny = true, .report = true,
				   .read_err = 1};
	cr_assert(guard_once_first(&o, 100, &u));
	u.read_err = 13;
	cr_assert_not(guard_once_first(&o, 100, &u));
	cr_assert_neq(guard_once_key(100, &u), guard_once_key(100, &d));
	/* Full: nothing more is first; the keys seen stay seen. */
	for (unsigned pid = 200; pid < 210; pid++)
		(void)guard_once_first(&o, pid, &d);
	cr_assert_eq(guard_once_mark(&o, guard_once_key(300, &d)), GUARD_ONCE_FULL);
	cr_assert_eq(guard_once_mark(&o, guard_once_key(100, &d)), GUARD_ONCE_AGAIN);
	guard_once_forget(&o);
	cr_assert_eq(guard_once_mark(&o, guard_once_key(100, &d)), GUARD_ONCE_FIRST);
	cr_assert_neq(guard_once_key(1, &d), 0);
	/* A pid above 32 bits (a kernel tgid never is; the key still tells). */
	cr_assert_neq(guard_once_key(1, &d), guard_once_key(1 | 1ull << 32, &d));
}

Test(lsm, the_list_names_bpf_as_a_word)
{
	static const struct {
		const char *text;
		bool bpf;
	} cases[] = {
		{"lockdown,capability,yama,bpf", true},
		{"lockdown,capability,yama,bpf\n", true},
		{"capability,bpf,landlock", true},
		{"bpf", true},
		{"lockdown,capability,landlock,yama,apparmor", false},
		{"lockdown,bpfilter,yama", false},
		{"xbpf,bpfx", false},
		{"", false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert_eq(enf_lsm_listed(cases[i].text, strlen(cases[i].text)), cases[i].bpf,
			     "'%s'", cases[i].text);
	cr_assert_eq(enf_attach_name(PMUG_ENF_ATTACH_LSM)[0], 'l');
	cr_assert_str_eq(enf_attach_name(PMUG_ENF_ATTACH_FMOD_RET), "fmod_ret");
}

/* One record as enforce_iter.bpf.c writes it. */
static struct pmug_enf_file rec(unsigned tgid, unsigned fd, unsigned attr_type,
				unsigned long long attr_config, unsigned pmu_type,
				unsigned long long hw_config, unsigned state)
{
	struct pmug_enf_file f;
	memset(&f, 0, sizeof(f));
	f.id = 1000 + tgid * 16 + fd;
	f.tgid = tgid;
	f.fd = fd;
	f.attr_type = attr_type;
	f.attr_config = attr_config;
	f.pmu_type = pmu_type;
	f.hw_config = hw_config;
	f.state = state;
	snprintf(f.comm, sizeof(f.comm), "task%u", tgid);
	return f;
}

static void cfg_for(const char *world, struct pmug_enf_config *c, struct guard_policy *p)
{
	static struct world w;
	policy_for(world, GUARD_AUTO, p, &w);
	enf_config_fill(c, p, w.v.state, NULL, PMUG_ENF_ATTACH_LSM, 0);
}

Test(existing, judged_with_the_guards_rule_once_per_tgid_and_fd)
{
	struct pmug_enf_config c;
	struct guard_policy p;
	cfg_for("m6i-16xlarge", &c, &p);
	struct pmug_enf_file r[] = {
		/* perf stat -D: slots, opened disabled before the start */
		rec(100, 3, 4, 0x400, 4, 0x400, PMUG_ENF_STATE_OFF),
		/* the same file table seen under another thread */
		rec(100, 3, 4, 0x400, 4, 0x400, PMUG_ENF_STATE_OFF),
		/* instructions (PERF_TYPE_HARDWARE) on the core PMU */
		rec(100, 4, 0, 1, 4, 0x00c0, PMUG_ENF_STATE_OFF),
		/* a metric, enabled, inheritable */
		rec(50, 7, 4, 0x8000, 4, 0x8000, PMUG_ENF_STATE_INACTIVE),
		/* a driver that left hw.config empty: the attr is the second net */
		rec(60, 3, 4, 0x400, 4, 0, PMUG_ENF_STATE_ERROR),
		/* being freed: never scheduled again */
		rec(70, 3, 4, 0x400, 4, 0x400, PMUG_ENF_STATE_DEAD),
		/* a software event whose config happens to read 0x400 */
		rec(80, 5, 1, 0x400, 1, 0x400, PMUG_ENF_STATE_ACTIVE),
		/* no PMU: the kernel program does not judge it either */
		rec(90, 3, 4, 0x400, PMUG_ENF_NO_PMU, 0x400, PMUG_ENF_STATE_OFF),
		/* its task exited; its children's copies still count */
		rec(95, 9, 4, 0x8300, 4, 0x8300, PMUG_ENF_STATE_EXIT),
	};
	r[3].inherit = 1;
	static struct enf_existing ex;
	cr_assert_eq(enf_existing_judge(&ex, &c, r, sizeof(r)), 0);
	cr_assert(ex.known);
	cr_assert_eq(ex.n_files, 8, "one record per (tgid, fd): %u", ex.n_files);
	cr_assert_eq(ex.n_hits, 4);
	cr_assert_eq(ex.n_listed, 4);
	/* By tgid, then fd. */
	static const unsigned tgids[] = {50, 60, 95, 100};
	static const enum guard_hit hits[] = {GUARD_HIT_METRIC, GUARD_HIT_SLOTS, GUARD_HIT_METRIC,
					      GUARD_HIT_SLOTS};
	for (unsigned i = 0; i < 4; i++) {
		cr_assert_eq(ex.ev[i].f.tgid, tgids[i], "%u: tgid %u", i, ex.ev[i].f.tgid);
		cr_assert_eq(ex.ev[i].hit, hits[i], "%u", i);
	}
	cr_assert_eq(ex.ev[0].f.inherit, 1);
	cr_assert_eq(ex.ev[0].judged, 0x8000);
	cr_assert_eq(ex.ev[1].judged, 0x400, "the attr's config was the one hit");
	cr_assert_str_eq(ex.ev[3].f.comm, "task100");
	cr_assert_eq(ex.ev[3].f.fd, 3);
}

Test(existing, the_hybrid_guards_core_types)
{
	struct pmug_enf_config hyb, m6i;
	struct guard_policy p;
	cfg_for("hybrid-guest-hazard", &hyb, &p);
	cfg_for("m6i-16xlarge", &m6i, &p);
	cr_assert_geq(hyb.n_core, 2);
	unsigned atom = hyb.core_types[hyb.n_core - 1];
	cr_assert_neq(atom, 4);
	/* cpu_atom/event=0x00,umask=0x4/ */
	struct pmug_enf_file r = rec(10, 3, atom, 0x400, atom, 0x400, PMUG_ENF_STATE_OFF);
	static struct enf_existing ex;
	cr_assert_eq(enf_existing_judge(&ex, &hyb, &r, sizeof(r)), 0);
	cr_assert_eq(ex.n_hits, 1, "type %u is a core type of the hybrid guard", atom);
	cr_assert_eq(enf_existing_judge(&ex, &m6i, &r, sizeof(r)), 0);
	cr_assert_eq(ex.n_hits, 0, "type %u is no core type of the m6i's guard", atom);
	cr_assert_eq(ex.n_files, 1);
}

Test(existing, the_same_decision_as_the_kernel_program)
{
	struct pmug_enf_config c;
	struct guard_policy p;
	cfg_for("m6i-16xlarge", &c, &p);
	for (unsigned code = 0; code <= 0xffff; code++) {
		unsigned long long judged;
		/* On the resolved PMU, and through the attr alone. */
		cr_assert_eq(pmug_enf_classify(&c, 4, code, 0, 0, &judged),
			     guard_classify(&p, 4, code), "hw 0x%x", code);
		cr_assert_eq(pmug_enf_classify(&c, 4, 0x00c0, 4, code, &judged),
			     guard_classify(&p, 4, code), "attr 0x%x", code);
	}
}

Test(existing, nothing_open_is_none_and_a_cut_record_is_unknown)
{
	struct pmug_enf_config c;
	struct guard_policy p;
	cfg_for("m6i-16xlarge", &c, &p);
	static struct enf_existing ex;
	cr_assert_eq(enf_existing_judge(&ex, &c, "", 0), 0);
	cr_assert(ex.known);
	cr_assert_eq(ex.n_files, 0);
	struct pmug_enf_file r[2] = {rec(1, 3, 4, 0x400, 4, 0x400, PMUG_ENF_STATE_OFF),
				     rec(2, 3, 4, 0x400, 4, 0x400, PMUG_ENF_STATE_OFF)};
	cr_assert_eq(enf_existing_judge(&ex, &c, r, sizeof(r) - 1), -EPROTO);
	cr_assert_not(ex.known, "never 'none' when the records cannot be read");
	cr_assert_neq(ex.why[0], '\0');
}

Test(existing, more_than_listed_are_counted)
{
	struct pmug_enf_config c;
	struct guard_policy p;
	cfg_for("m6i-16xlarge", &c, &p);
	enum { N = ENF_EXISTING_LISTED + 6 };
	struct pmug_enf_file *r = calloc(N, sizeof(*r));
	cr_assert_not_null(r);
	for (unsigned i = 0; i < N; i++)
		r[i] = rec(N - i, 3, 4, 0x400, 4, 0x400, PMUG_ENF_STATE_OFF);
	static struct enf_existing ex;
	/* Unaligned, as a read() buffer may be. */
	char *buf = malloc(N * sizeof(*r) + 1);
	cr_assert_not_null(buf);
	memcpy(buf + 1, r, N * sizeof(*r));
	cr_assert_eq(enf_existing_judge(&ex, &c, buf + 1, N * sizeof(*r)), 0);
	cr_assert_eq(ex.n_hits, N);
	cr_assert_eq(ex.n_listed, ENF_EXISTING_LISTED);
	cr_assert_eq(ex.ev[0].f.tgid, 1, "the lowest tgid first");
	free(buf);
	free(r);
}

Test(existing, state_names)
{
	cr_assert_str_eq(enf_state_name(PMUG_ENF_STATE_ACTIVE), "active");
	cr_assert(!strncmp(enf_state_name(PMUG_ENF_STATE_OFF), "off", 3));
	cr_assert_str_eq(enf_state_name(PMUG_ENF_STATE_DEAD), "dead");
	cr_assert_str_eq(enf_state_name(999), "unknown");
}

/* The kernel guard's state, named once (enforce_state.c): each word reads
 * back as its state, each state has the exits the README documents for
 * `enforce status`, and an exit reads back as the state it is given for. */
Test(guard_state, one_table_gives_the_words_and_the_exits)
{
	static const struct {
		enum enf_guard g;
		const char *word;
		int exit, escaped;
	} want[] = {
		{ENF_GUARD_UNAVAILABLE, "unavailable", 5, 5}, {ENF_GUARD_ATTACHED, "attached", 0, 7},
		{ENF_GUARD_AUDIT, "audit", 9, 9},             {ENF_GUARD_UNVERIFIED, "unverified", 8, 8},
		{ENF_GUARD_DETACHED, "detached", 6, 6},       {ENF_GUARD_UNKNOWN, "unknown", 1, 1},
	};
	cr_assert_eq(sizeof(want) / sizeof(want[0]), ENF_GUARD_N);
	for (size_t i = 0; i < ENF_GUARD_N; i++) {
		cr_assert_str_eq(enf_guard_word(want[i].g), want[i].word);
		cr_assert_eq(enf_guard_parse(want[i].word), (int)want[i].g, "%s", want[i].word);
		cr_assert_eq(enf_guard_exit(want[i].g, false), want[i].exit, "%s", want[i].word);
		cr_assert_eq(enf_guard_exit(want[i].g, true), want[i].escaped, "%s", want[i].word);
		cr_assert_eq(enf_guard_of_exit(want[i].exit), want[i].g, "%s", want[i].word);
		cr_assert_eq(enf_guard_of_exit(want[i].escaped), want[i].g, "%s", want[i].word);
	}
	/* Usage, the probe's hazard exit, a child that could not run: unknown. */
	cr_assert_eq(enf_guard_of_exit(2), ENF_GUARD_UNKNOWN);
	cr_assert_eq(enf_guard_of_exit(3), ENF_GUARD_UNKNOWN);
	cr_assert_eq(enf_guard_of_exit(-ENOENT), ENF_GUARD_UNKNOWN);
	cr_assert_eq(enf_guard_parse("Attached"), -1);
	cr_assert_eq(enf_guard_parse(""), -1);
	cr_assert_eq(enf_guard_parse(NULL), -1);
	cr_assert_str_eq(enf_guard_word((enum enf_guard)99), "unknown");
	cr_assert_eq(enf_guard_exit((enum enf_guard)99, false), 1);
}

/* Guarded is what the self-test saw: an unverified guard is that in any
 * mode, audit only where it runs. */
Test(guard_state, decided_from_what_is_pinned)
{
	cr_assert_eq(enf_guard_decide(false, true, true, true), ENF_GUARD_UNKNOWN);
	cr_assert_eq(enf_guard_decide(true, false, false, false), ENF_GUARD_DETACHED);
	cr_assert_eq(enf_guard_decide(true, true, false, true), ENF_GUARD_UNVERIFIED);
	cr_assert_eq(enf_guard_decide(true, true, false, false), ENF_GUARD_UNVERIFIED);
	cr_assert_eq(enf_guard_decide(true, true, true, false), ENF_GUARD_AUDIT);
	cr_assert_eq(enf_guard_decide(true, true, true, true), ENF_GUARD_ATTACHED);
}

/* A file of the source tree, whole (the fixtures are tests/snapshots). */
static char *source_file(const char *rel)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/../../%s", PMUGUARD_FIXTURES, rel);
	FILE *f = fopen(path, "r");
	cr_assert(f, "%s", path);
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *copy = strdup(buf);
	cr_assert(copy);
	return copy;
}

/* The words a JSON enum lists, after anchor (once in text): each must be
 * the table's, and together every state but those in skip (a bit each). */
static void enum_is_the_table(const char *text, const char *anchor, unsigned skip)
{
	const char *a = strstr(text, anchor);
	cr_assert(a, "%s", anchor);
	cr_assert(!strstr(a + 1, anchor), "%s is there once", anchor);
	const char *open = strstr(a, "\"enum\": ["), *close = open ? strchr(open, ']') : NULL;
	cr_assert(open && close, "%s: an enum", anchor);
	unsigned seen = 0;
	for (const char *q = strchr(open + 9, '"'); q && q < close; q = strchr(q, '"')) {
		const char *e = strchr(q + 1, '"');
		char word[32];
		snprintf(word, sizeof(word), "%.*s", (int)(e - q - 1), q + 1);
		int g = enf_guard_parse(word);
		cr_assert(g >= 0 && !((skip >> g) & 1), "%s: '%s' is not the table's", anchor, word);
		seen |= 1u << g;
		q = e + 1;
	}
	cr_assert_eq(seen | skip, (1u << ENF_GUARD_N) - 1, "%s lists every state", anchor);
}

/* The bold words of a man page's list from begin to end: each must be the
 * table's (an option, \-\-..., aside), and together every state but skip. */
static void man_list_is_the_table(const char *text, const char *begin, const char *end,
				  unsigned skip)
{
	const char *b = strstr(text, begin), *e = b ? strstr(b + strlen(begin), end) : NULL;
	cr_assert(b && e, "the list at '%s'", begin);
	unsigned seen = 0;
	for (const char *l = b + strlen(begin); l < e; l = strchr(l, '\n') + 1) {
		size_t skip_mark = !strncmp(l, ".B ", 3) ? 3 : !strncmp(l, ".BR ", 4) ? 4 : 0;
		if (!skip_mark || !strncmp(l + skip_mark, "\\-", 2))
			continue;
		char word[32];
		snprintf(word, sizeof(word), "%.*s", (int)strcspn(l + skip_mark, " \n"),
			 l + skip_mark);
		int g = enf_guard_parse(word);
		cr_assert(g >= 0 && !((skip >> g) & 1), "'%s': '%s' is not the table's", begin, word);
		seen |= 1u << g;
	}
	cr_assert_eq(seen | skip, (1u << ENF_GUARD_N) - 1, "'%s' lists every state", begin);
}

/* Issue 51: the man page had drifted (4 of 6).  The schemas, the man
 * pages and pmuguard-fleet list the table's words, all of them. */
Test(guard_state, the_schemas_and_man_pages_list_the_tables_words)
{
	const unsigned unavailable = 1u << ENF_GUARD_UNAVAILABLE;
	char *t = source_file("probe/doc/schema/status.schema.json");
	enum_is_the_table(t, "\"state\": {", 0);
	free(t);
	/* enforce status never says unavailable: a build without it prints
	 * no document. */
	t = source_file("probe/doc/schema/enforce.schema.json");
	enum_is_the_table(t, "\"guard_state\": {", unavailable);
	free(t);
	t = source_file("scripts/pmuguard-fleet.8");
	man_list_is_the_table(t, "\n.B kernel\n.RB ( state :\n", "\n.B attach\n", 0);
	free(t);
	t = source_file("probe/cli/pmuguard.1");
	man_list_is_the_table(t, "\n.BR exit ,\n.B state\n", "\n.BR attached ,\n", unavailable);
	free(t);
}

#ifdef ENF_BPF_OBJ
/* The object's BTF says how clang -target bpf laid the structs out. */
static void same_layout(const struct btf *btf, const char *name, size_t size,
			const char *const *fields, const size_t *offsets, size_t n)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	cr_assert_gt(id, 0, "struct %s is in the object's BTF", name);
	const struct btf_type *t = btf__type_by_id(btf, (__u32)id);
	cr_assert_eq(t->size, size, "sizeof(struct %s)", name);
	const struct btf_member *m = btf_members(t);
	for (size_t f = 0; f < n; f++) {
		bool found = false;
		for (unsigned i = 0; i < btf_vlen(t); i++)
			if (!strcmp(btf__name_by_offset(btf, m[i].name_off), fields[f])) {
				cr_assert_eq(btf_member_bit_offset(t, i) / 8, offsets[f], "%s.%s", name,
					     fields[f]);
				found = true;
			}
		cr_assert(found, "%s.%s", name, fields[f]);
	}
}

/* The self-test's verdict: verified only when the canary came back with
 * its own errno and the program counted it. */
Test(verify, only_the_canarys_errno_counted_by_the_program_verifies)
{
	struct enf_verify v;
	memset(&v, 0, sizeof(v));
	enf_verify_judge(&v, -PMUG_ENF_CANARY_ERRNO, true, 3, 4, PMUG_ENF_ATTACH_FMOD_RET);
	cr_assert(v.ran && v.verified && v.answered == 4 && !v.why[0]);
	/* Opened: attached, never run (lsm/ where bpf is not an active LSM). */
	enf_verify_judge(&v, 5, true, 0, 0, PMUG_ENF_ATTACH_LSM);
	cr_assert(v.ran && !v.verified && v.open_errno == 0);
	cr_assert(strstr(v.why, "does not run it") && strstr(v.why, "lsm="), "%s", v.why);
	/* Refused by something else (paranoid, seccomp): unknown, not verified. */
	enf_verify_judge(&v, -EACCES, true, 0, 0, PMUG_ENF_ATTACH_LSM);
	cr_assert(!v.verified && v.open_errno == EACCES && strstr(v.why, "unknown"), "%s", v.why);
	/* The right errno, but not counted by this program. */
	enf_verify_judge(&v, -PMUG_ENF_CANARY_ERRNO, true, 4, 4, PMUG_ENF_ATTACH_LSM);
	cr_assert(!v.verified && strstr(v.why, "did not count"), "%s", v.why);
	enf_verify_judge(&v, -PMUG_ENF_CANARY_ERRNO, false, 0, 0, PMUG_ENF_ATTACH_LSM);
	cr_assert(!v.verified);
}

Test(abi, bpf_object_and_loader_agree)
{
	struct btf *btf = btf__parse(ENF_BPF_OBJ, NULL);
	cr_assert_not_null(btf, "%s has BTF", ENF_BPF_OBJ);
	static const char *const cfg_f[] = {"magic",  "enforce", "n_core", "core_types", "started",
					    "object", "canary", "reason", "facts_from"};
	static const size_t cfg_o[] = {
		offsetof(struct pmug_enf_config, magic), offsetof(struct pmug_enf_config, enforce),
		offsetof(struct pmug_enf_config, n_core),
		offsetof(struct pmug_enf_config, core_types),
		offsetof(struct pmug_enf_config, started), offsetof(struct pmug_enf_config, object),
		offsetof(struct pmug_enf_config, canary), offsetof(struct pmug_enf_config, reason),
		offsetof(struct pmug_enf_config, facts_from)};
	same_layout(btf, "pmug_enf_config", sizeof(struct pmug_enf_config), cfg_f, cfg_o, 9);
	static const char *const tot_f[] = {"denied",	 "audited",  "lost_events",
					    "lost_keys", "canaries", "canary_ns"};
	static const size_t tot_o[] = {0, 8, 16, 24, 32, 40};
	same_layout(btf, "pmug_enf_totals", sizeof(struct pmug_enf_totals), tot_f, tot_o, 6);
	/* struct pmug_enf_event only travels through the ring buffer (no BTF
	 * of its own); enforce_abi.h's _Static_asserts hold both compilers to
	 * its size. */
	static const char *const k_f[] = {"uid", "pmu_type", "code", "denied"};
	static const size_t k_o[] = {0, 4, 8, 12};
	same_layout(btf, "pmug_enf_key", sizeof(struct pmug_enf_key), k_f, k_o, 4);
	static const char *const c_f[] = {"calls", "last_ns", "last_pid", "last_comm"};
	static const size_t c_o[] = {0, 8, 16, 20};
	same_layout(btf, "pmug_enf_count", sizeof(struct pmug_enf_count), c_f, c_o, 4);
	/* The object reads only the four kernel structs, by CO-RE. */
	static const char *const kernel[] = {"perf_event", "pmu", "hw_perf_event",
					     "perf_event_attr"};
	for (size_t i = 0; i < 4; i++)
		cr_assert_gt(btf__find_by_name_kind(btf, kernel[i], BTF_KIND_STRUCT), 0, "%s",
			     kernel[i]);
	cr_assert_lt(btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT), 0,
		     "no vmlinux.h baked in");
	btf__free(btf);
}
#endif

/* The kernel program's fast paths (enforce_abi.h: an encoding no table
 * places on a guarded counter, a generic type, the attr already judged as
 * hw.config) give exactly the decision of the rule run on hw.config and
 * then on the attr, in every world and on every table. */
static enum guard_hit reference(const struct pmug_enf_config *c, unsigned pmu_type,
				unsigned long long hw, unsigned attr_type, unsigned long long attr)
{
	enum guard_hit h = guard_rule_classify(pmu_type, hw, c->core_types, c->core_hazard,
					       c->core_table, c->n_core);
	return h != GUARD_HIT_NONE ? h
				   : guard_rule_classify(attr_type, attr, c->core_types,
							 c->core_hazard, c->core_table, c->n_core);
}

Test(rodata, fast_paths_decide_as_the_rule)
{
	static struct world w;
	static const char *const worlds[] = {"m6i-16xlarge", "cwf-guest-fixed456",
					     "hybrid-guest-hazard"};
	static const unsigned long long codes[] = {0x0400, 0x8000, 0x8300, 0x0073, 0x019c, 0x02c2,
						   0x0500, 0x0700, 0x00c0, 0x01a4, 0x0000, 0x0300};
	unsigned types[] = {0, 1, 2, 3, 4, 5, 6, 8, 10};
	srand(22);
	for (size_t wi = 0; wi < sizeof(worlds) / sizeof(worlds[0]); wi++) {
		struct guard_policy p;
		policy_for(worlds[wi], GUARD_ALWAYS, &p, &w);
		struct pmug_enf_config c;
		memset(&c, 0, sizeof(c));
		enf_config_fill(&c, &p, w.v.state, NULL, PMUG_ENF_ATTACH_LSM, 1);
		for (unsigned i = 0; i < 200000; i++) {
			unsigned pt = types[(unsigned)rand() % 9], at = types[(unsigned)rand() % 9];
			unsigned long long hw = codes[(unsigned)rand() % 12], attr = codes[(unsigned)rand() % 12];
			unsigned long long noise = ((unsigned long long)rand() << 32) ^ (unsigned)rand();
			if (rand() & 1)
				hw |= noise & ~0xffffull;
			if (rand() & 1)
				attr = rand() & 1 ? hw : attr | (noise & 0xff840000ull);
			if (rand() % 4 == 0)
				at = pt;
			unsigned long long judged;
			cr_assert_eq(pmug_enf_classify(&c, pt, hw, at, attr, &judged),
				     reference(&c, pt, hw, at, attr),
				     "%s: pmu %u hw 0x%llx attr %u 0x%llx", worlds[wi], pt, hw, at, attr);
		}
	}
}
