// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * status_decide(): the verdict, the layer, PARTLY and the exit code of
 * `pmuguard status`, from models built here (no host is read).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "status.h"

static struct status_opts opts = {.version = "test", .me = 0};

/* A model: the probe's exit, and an enforce status document (lines). */
static void model(struct status_model *m, int probe_exit, int kernel_exit, const char *enf)
{
	memset(m, 0, sizeof(*m));
	m->o = &opts;
	m->probe_exit = probe_exit;
	m->kernel = kernel_exit == 0 || kernel_exit == 7 ? STATUS_K_ATTACHED
		    : kernel_exit == 6                   ? STATUS_K_DETACHED
							 : STATUS_K_UNAVAILABLE;
	status_kv_parse(&m->enf, enf ? strdup(enf) : NULL);
	m->canary = STATUS_C_REACHED;
}

static const char attached[] = "schema=1\nprotects=true\nverified=true\n"
			       "existing.known=true\nexisting.hits=0\nexisting.unguarded=false\n";

Test(status, hazard_and_nothing_guards_is_3)
{
	struct status_model m;
	struct status_decision d;
	model(&m, 3, 6, "schema=1\nwhy=nothing is pinned\npolicy.would_attach=true\n");
	status_decide(&d, &m);
	cr_assert_eq(d.verdict, STATUS_HAZARD);
	cr_assert_str_eq(d.layer, "none");
	cr_assert_eq(d.exit, 3);
	cr_assert_str_eq(d.kernel_err, "nothing is pinned");
	status_free(&m, &d);
}

Test(status, preload_counts_only_where_the_canary_was_refused)
{
	struct status_model m;
	struct status_decision d;
	model(&m, 3, 5, NULL);
	m.listed = m.loads = true;
	status_decide(&d, &m);
	cr_assert_str_eq(d.layer, "none", "a canary that was not refused guards nothing");
	cr_assert_eq(d.exit, 3);
	free(d.kenc);
	m.canary = STATUS_C_REFUSED;
	status_decide(&d, &m);
	cr_assert_str_eq(d.layer, "preload");
	cr_assert_eq(d.exit, 0);
	free(d.kenc);
	m.loads = false;
	status_decide(&d, &m);
	cr_assert_str_eq(d.layer, "none", "a library the loader refuses guards nothing");
	status_free(&m, &d);
}

Test(status, under_root_listed_and_loadable_is_the_preload)
{
	struct status_opts o = {.root = "/tree", .version = "test"};
	struct status_model m;
	struct status_decision d;
	model(&m, 3, 5, NULL);
	m.o = &o;
	m.listed = m.loads = true;
	m.canary = STATUS_C_UNKNOWN; /* not run under --root */
	status_decide(&d, &m);
	cr_assert_str_eq(d.layer, "preload");
	cr_assert_eq(d.exit, 0);
	status_free(&m, &d);
}

Test(status, the_kernel_counts_only_verified_and_denying)
{
	struct status_model m;
	struct status_decision d;
	model(&m, 3, 0, attached);
	status_decide(&d, &m);
	cr_assert_str_eq(d.layer, "kernel");
	cr_assert_eq(d.exit, 0);
	cr_assert(d.containers_covered);
	status_free(&m, &d);
	model(&m, 3, 0, "schema=1\nprotects=false\nverified=true\n");
	status_decide(&d, &m);
	cr_assert_eq(d.kernel, STATUS_K_AUDIT);
	cr_assert_str_eq(d.layer, "none");
	cr_assert_eq(d.exit, 3);
	status_free(&m, &d);
	model(&m, 3, 0, "schema=1\nprotects=false\nverified=false\n");
	status_decide(&d, &m);
	cr_assert_eq(d.kernel, STATUS_K_UNVERIFIED);
	status_free(&m, &d);
}

Test(status, events_opened_before_the_guard_make_it_partly)
{
	struct status_model m;
	struct status_decision d;
	model(&m, 3, 7,
	      "schema=1\nprotects=true\nverified=true\nexisting.known=true\nexisting.hits=3\n"
	      "existing.unguarded=true\nexisting.events.0.pid=321\nexisting.events.0.comm=perf\n");
	status_decide(&d, &m);
	cr_assert(d.guarded && d.partly && !d.protected_);
	cr_assert_eq(d.exit, 3);
	cr_assert_eq(d.escaped, 3);
	cr_assert_str_eq(d.escaped_who, "pid 321 perf, 2 more");
	status_free(&m, &d);
	/* On a host without the hazard they are harmless. */
	model(&m, 0, 7,
	      "schema=1\nprotects=true\nverified=true\nexisting.known=true\nexisting.hits=3\n"
	      "existing.unguarded=true\n");
	status_decide(&d, &m);
	cr_assert(!d.partly);
	cr_assert_eq(d.exit, 0);
	status_free(&m, &d);
}

Test(status, no_verdict_is_4_even_when_guarded)
{
	struct status_model m;
	struct status_decision d;
	model(&m, 1, 0, attached);
	status_decide(&d, &m);
	cr_assert_eq(d.verdict, STATUS_UNKNOWN);
	cr_assert_eq(d.exit, 4);
	status_free(&m, &d);
	/* Exit 0 with facts the guard cannot read is no proof of health. */
	model(&m, 0, 5, NULL);
	m.probe_guard_unknown = true;
	status_decide(&d, &m);
	cr_assert_eq(d.verdict, STATUS_UNKNOWN);
	cr_assert_eq(d.exit, 4);
	status_free(&m, &d);
}

Test(status, kernel_counts_are_summed_by_encoding_and_checked)
{
	struct status_model m;
	struct status_decision d;
	model(&m, 3, 0,
	      "schema=1\nprotects=true\nverified=true\n"
	      "by_encoding.0.decision=denied\nby_encoding.0.pmu_type=4\nby_encoding.0.config=0x0400\n"
	      "by_encoding.0.calls=5\n"
	      "by_encoding.1.decision=denied\nby_encoding.1.pmu_type=4\nby_encoding.1.config=0x400\n"
	      "by_encoding.1.calls=1\n"
	      "by_encoding.2.decision=denied\nby_encoding.2.pmu_type=4\nby_encoding.2.config=0xZZ\n"
	      "by_encoding.2.calls=9\n"
	      "by_encoding.3.decision=bogus\nby_encoding.3.pmu_type=4\nby_encoding.3.config=0x1\n"
	      "by_encoding.3.calls=9\n");
	status_decide(&d, &m);
	cr_assert_eq(d.n_kenc, 1);
	cr_assert_str_eq(d.kenc[0].config, "0x400");
	cr_assert_eq(d.kenc[0].calls, 6);
	status_free(&m, &d);
}

Test(status, kernel_blocks_are_named_from_the_guards_map)
{
	struct status_model m;
	struct status_decision d;
	model(&m, 3, 0,
	      "schema=1\nprotects=true\nverified=true\n"
	      "by_encoding.0.decision=denied\nby_encoding.0.uid=1000\nby_encoding.0.pmu_type=4\n"
	      "by_encoding.0.config=0x0400\nby_encoding.0.calls=2\nby_encoding.0.last_comm=toplev\n"
	      "by_encoding.1.decision=denied\nby_encoding.1.uid=0\nby_encoding.1.pmu_type=4\n"
	      "by_encoding.1.config=0x8000\nby_encoding.1.calls=5\nby_encoding.1.last_comm=perf\n"
	      /* Audited, or naming no program: not a block to name. */
	      "by_encoding.2.decision=audited\nby_encoding.2.uid=0\nby_encoding.2.pmu_type=4\n"
	      "by_encoding.2.config=0x400\nby_encoding.2.calls=9\nby_encoding.2.last_comm=x\n"
	      "by_encoding.3.decision=denied\nby_encoding.3.uid=0\nby_encoding.3.pmu_type=4\n"
	      "by_encoding.3.config=0x400\nby_encoding.3.calls=9\n");
	status_decide(&d, &m);
	cr_assert_eq(d.n_kprogs, 2);
	cr_assert_str_eq(d.kprogs[0].program, "perf", "most calls first");
	cr_assert_str_eq(d.kprogs[0].config, "0x8000");
	cr_assert_eq(d.kprogs[0].uid, 0);
	cr_assert_str_eq(d.kprogs[1].program, "toplev");
	cr_assert_str_eq(d.kprogs[1].config, "0x400");
	cr_assert_eq(d.kprogs[1].uid, 1000);
	cr_assert_eq(d.kprogs[1].calls, 2);
	status_free(&m, &d);
}

/* The textfile of model m into a temporary directory; its text (malloc'd). */
static char *textfile_of(const struct status_model *m, const struct status_decision *d)
{
	char dir[] = "/tmp/pmuguard-status-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char path[sizeof(dir) + 16];
	snprintf(path, sizeof(path), "%s/p.prom", dir);
	cr_assert_eq(status_write_textfile(path, m, d, NULL), 0);
	FILE *f = fopen(path, "re");
	cr_assert_not_null(f);
	char *text = calloc(1, 65536);
	cr_assert_not_null(text);
	size_t n = fread(text, 1, 65535, f);
	text[n] = '\0';
	fclose(f);
	unlink(path);
	rmdir(dir);
	return text;
}

Test(status, kernel_only_textfile_has_the_kernel_and_no_preload_series)
{
	/* A pod's view (the agent's --textfile): the node's kernel guard,
	 * verified and denying, counted; nothing of the pod's own preload. */
	static const struct status_opts pod = {.version = "test", .kernel_only = true};
	struct status_model m;
	struct status_decision d;
	model(&m, 3, 0,
	      "schema=1\nprotects=true\nverified=true\nexisting.known=true\nexisting.hits=0\n"
	      "existing.unguarded=false\n"
	      "by_encoding.0.decision=denied\nby_encoding.0.pmu_type=4\nby_encoding.0.config=0x400\n"
	      "by_encoding.0.calls=2\n");
	m.o = &pod;
	status_decide(&d, &m);
	char *t = textfile_of(&m, &d);
	cr_assert_not_null(strstr(t, "\npmuguard_protected 1\n"), "%s", t);
	cr_assert_not_null(strstr(t, "\npmuguard_unguarded 0\n"), "%s", t);
	cr_assert_not_null(strstr(t, "\npmuguard_layer_installed{layer=\"kernel\"} 1\n"), "%s", t);
	cr_assert_not_null(
		strstr(t, "\npmuguard_kernel_calls_total{decision=\"denied\",pmu_type=\"4\","
			  "config=\"0x400\"} 2\n"),
		"%s", t);
	/* The same HELP as a host's (which names both layers), no series. */
	cr_assert_null(strstr(t, "\npmuguard_preload"), "a pod's view has no preload series:\n%s",
		       t);
	cr_assert_null(strstr(t, "layer=\"preload\""), "%s", t);
	free(t);
	/* The host's view of the same model keeps them. */
	m.o = &opts;
	t = textfile_of(&m, &d);
	cr_assert_not_null(strstr(t, "pmuguard_layer_installed{layer=\"preload\"} 0\n"), "%s", t);
	cr_assert_not_null(strstr(t, "pmuguard_preload_reports_countable{"), "%s", t);
	free(t);
	status_free(&m, &d);
}
