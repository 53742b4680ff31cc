// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * status_decide(): the verdict, the layer, PARTLY and the exit code of
 * `pmuguard status`, from models built here (no host is read); the
 * journal's export parsed from streams built here; a child's bounds.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "status.h"

extern char **environ;

/* The preload's MESSAGE_ID (probe/guard/log.h, LOG_MSGID_BLOCK). */
#define LOG_MSGID_BLOCK_TEST "7cd40d08058b4d219f41289bb6a12067"

static struct status_opts opts = {.version = "test", .me = 0};

/* A model: the probe's exit, and enforce status's exit and document
 * (lines), read as status reads them (status_kernel_read()). */
static void model(struct status_model *m, int probe_exit, int kernel_exit, const char *enf)
{
	memset(m, 0, sizeof(*m));
	m->o = &opts;
	m->probe_exit = probe_exit;
	status_kernel_read(&m->kernel, kernel_exit, enf ? strdup(enf) : NULL);
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
	cr_assert_str_eq(status_layer_word(d.layers), "none");
	cr_assert_eq(d.exit, 3);
	cr_assert_str_eq(d.kernel_err, "nothing is pinned");
	status_free(&m);
}

Test(status, preload_counts_only_where_the_canary_was_refused)
{
	struct status_model m;
	struct status_decision d;
	model(&m, 3, 5, NULL);
	m.listed = m.loads = true;
	status_decide(&d, &m);
	cr_assert_str_eq(status_layer_word(d.layers), "none",
			 "a canary that was not refused guards nothing");
	cr_assert_eq(d.exit, 3);
	m.canary = STATUS_C_REFUSED;
	status_decide(&d, &m);
	cr_assert_str_eq(status_layer_word(d.layers), "preload");
	cr_assert_eq(d.exit, 0);
	m.loads = false;
	status_decide(&d, &m);
	cr_assert_str_eq(status_layer_word(d.layers), "none",
			 "a library the loader refuses guards nothing");
	status_free(&m);
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
	cr_assert_str_eq(status_layer_word(d.layers), "preload");
	cr_assert_eq(d.exit, 0);
	status_free(&m);
}

Test(status, the_kernel_counts_only_verified_and_denying)
{
	struct status_model m;
	struct status_decision d;
	model(&m, 3, 0, attached);
	status_decide(&d, &m);
	cr_assert_str_eq(status_layer_word(d.layers), "kernel");
	cr_assert_eq(d.exit, 0);
	cr_assert(d.containers_covered);
	status_free(&m);
	model(&m, 3, 0, "schema=1\nprotects=false\nverified=true\n");
	status_decide(&d, &m);
	cr_assert_eq(d.kernel, ENF_GUARD_AUDIT);
	cr_assert_str_eq(status_layer_word(d.layers), "none");
	cr_assert_eq(d.exit, 3);
	status_free(&m);
	model(&m, 3, 0, "schema=1\nprotects=false\nverified=false\n");
	status_decide(&d, &m);
	cr_assert_eq(d.kernel, ENF_GUARD_UNVERIFIED);
	status_free(&m);
}

/* enforce status names its state (`state`, ../enforce/enforce_state.c's
 * words); status reads the word, held to the exit the same table gives
 * it.  A pmuguard before the word: the exit alone (the tests above). */
Test(status, the_kernel_state_is_the_documents_word_held_to_its_exit)
{
	struct status_model m;
	struct status_decision d;
	model(&m, 3, 0, "schema=1\nstate=attached\nprotects=true\nverified=true\n");
	status_decide(&d, &m);
	cr_assert_eq(d.kernel, ENF_GUARD_ATTACHED);
	cr_assert_str_eq(status_layer_word(d.layers), "kernel");
	status_free(&m);
	model(&m, 3, 9, "schema=1\nstate=audit\nprotects=false\nverified=true\n");
	status_decide(&d, &m);
	cr_assert_eq(d.kernel, ENF_GUARD_AUDIT);
	status_free(&m);
	model(&m, 3, 6, "schema=1\nstate=detached\nwhy=nothing is pinned\n");
	status_decide(&d, &m);
	cr_assert_eq(d.kernel, ENF_GUARD_DETACHED);
	status_free(&m);
	/* A word the exit does not give, or none of the table's: unknown,
	 * never attached. */
	model(&m, 3, 0, "schema=1\nstate=detached\nprotects=true\nverified=true\n");
	status_decide(&d, &m);
	cr_assert_eq(d.kernel, ENF_GUARD_UNKNOWN);
	cr_assert_str_eq(status_layer_word(d.layers), "none");
	cr_assert(strstr(d.kernel_err, "state 'detached' and exited 0"), "%s", d.kernel_err);
	status_free(&m);
	model(&m, 3, 0, "schema=1\nstate=attached\\x0a\nprotects=true\nverified=true\n");
	status_decide(&d, &m);
	cr_assert_eq(d.kernel, ENF_GUARD_UNKNOWN);
	status_free(&m);
	/* Exit 1: unknown whatever the word. */
	model(&m, 3, 1, "schema=1\nstate=attached\nerror=bpf: Operation not permitted\n");
	status_decide(&d, &m);
	cr_assert_eq(d.kernel, ENF_GUARD_UNKNOWN);
	cr_assert(strstr(d.kernel_err, "Operation not permitted"), "%s", d.kernel_err);
	status_free(&m);
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
	status_free(&m);
	/* On a host without the hazard they are harmless. */
	model(&m, 0, 7,
	      "schema=1\nprotects=true\nverified=true\nexisting.known=true\nexisting.hits=3\n"
	      "existing.unguarded=true\n");
	status_decide(&d, &m);
	cr_assert(!d.partly);
	cr_assert_eq(d.exit, 0);
	status_free(&m);
}

Test(status, no_verdict_is_4_even_when_guarded)
{
	struct status_model m;
	struct status_decision d;
	model(&m, 1, 0, attached);
	status_decide(&d, &m);
	cr_assert_eq(d.verdict, STATUS_UNKNOWN);
	cr_assert_eq(d.exit, 4);
	status_free(&m);
	/* Exit 0 with facts the guard cannot read is no proof of health. */
	model(&m, 0, 5, NULL);
	m.probe_guard_unknown = true;
	status_decide(&d, &m);
	cr_assert_eq(d.verdict, STATUS_UNKNOWN);
	cr_assert_eq(d.exit, 4);
	status_free(&m);
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
	cr_assert_eq(m.kernel.n_kenc, 1);
	cr_assert_str_eq(m.kernel.kenc[0].config, "0x400");
	cr_assert_eq(m.kernel.kenc[0].calls, 6);
	status_free(&m);
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
	cr_assert_eq(m.kernel.n_kprogs, 2);
	cr_assert_str_eq(m.kernel.kprogs[0].program, "perf", "most calls first");
	cr_assert_str_eq(m.kernel.kprogs[0].config, "0x8000");
	cr_assert_eq(m.kernel.kprogs[0].uid, 0);
	cr_assert_str_eq(m.kernel.kprogs[1].program, "toplev");
	cr_assert_str_eq(m.kernel.kprogs[1].config, "0x400");
	cr_assert_eq(m.kernel.kprogs[1].uid, 1000);
	cr_assert_eq(m.kernel.kprogs[1].calls, 2);
	status_free(&m);
}

/* The textfile of model m into a temporary directory; its text (malloc'd). */
static char *textfile_of(const struct status_model *m, const struct status_decision *d)
{
	char dir[] = "/tmp/pmuguard-status-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char path[sizeof(dir) + 16];
	snprintf(path, sizeof(path), "%s/p.prom", dir);
	cr_assert_eq(status_write_textfile(path, m, d, NULL, NULL), 0);
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
	status_free(&m);
}

/* --- The journal's export, as journalctl writes it ------------------------ */

/* A stream being built: text, and binary fields with their length. */
struct stream {
	char *p;
	size_t n;
	FILE *f;
};

static void stream_open(struct stream *s)
{
	s->p = NULL;
	s->n = 0;
	s->f = open_memstream(&s->p, &s->n);
	cr_assert(s->f);
}

/* NAME\n, the size as 8 bytes little-endian, the data, \n: journalctl's
 * form for a value with a control byte (or a NUL) in it. */
static void binary_field(struct stream *s, const char *name, const char *data, size_t len)
{
	fprintf(s->f, "%s\n", name);
	for (int i = 0; i < 8; i++)
		fputc((int)((uint64_t)len >> (8 * i) & 0xff), s->f);
	fwrite(data, 1, len, s->f);
	fputc('\n', s->f);
}

static char *stream_close(struct stream *s, size_t *len)
{
	fclose(s->f);
	*len = s->n;
	return s->p; /* open_memstream keeps a NUL after the data */
}

static void report_entry(struct stream *s, int i, const char *type, const char *config)
{
	fprintf(s->f,
		"__CURSOR=s=x;i=%x\nPMUGUARD_DECISION=deny\nPMUGUARD_TYPE=%s\n"
		"PMUGUARD_CONFIG=%s\n\n",
		i, type, config);
}

Test(status_log, a_binary_field_and_a_nul_do_not_hide_later_reports)
{
	struct stream s;
	stream_open(&s);
	/* Forged: the type with a control byte, the config with a NUL. */
	fprintf(s.f, "__CURSOR=s=x;i=1\nPMUGUARD_DECISION=deny\n");
	binary_field(&s, "PMUGUARD_TYPE", "4\x01", 2);
	binary_field(&s, "PMUGUARD_CONFIG", "0x400\0\n\n__CURSOR=x", 19);
	fprintf(s.f, "\n");
	/* A decision with a control byte is no denial's. */
	fprintf(s.f, "__CURSOR=s=x;i=2\n");
	binary_field(&s, "PMUGUARD_DECISION", "deny\x01", 5);
	fprintf(s.f, "PMUGUARD_TYPE=4\nPMUGUARD_CONFIG=0x400\n\n");
	/* The real reports after them. */
	report_entry(&s, 3, "4", "0x400");
	report_entry(&s, 4, "4", "0x400");
	size_t len;
	char *text = stream_close(&s, &len);
	struct status_model m = {.o = &opts};
	cr_assert_eq(status_log_count_export(&m, text, len), 0);
	cr_assert_eq(m.blocks, 3, "blocks %llu", (unsigned long long)m.blocks);
	cr_assert_eq(m.n_lenc, 2);
	cr_assert_str_eq(m.lenc[0].pmu_type, "4");
	cr_assert_str_eq(m.lenc[0].config, "0x400");
	cr_assert_eq(m.lenc[0].reports, 2);
	cr_assert_str_eq(m.lenc[1].pmu_type, "other");
	cr_assert_eq(m.lenc[1].reports, 1);
	free(m.lenc);
	free(text);
}

Test(status_log, a_stream_cut_short_counts_nothing)
{
	struct stream s;
	stream_open(&s);
	report_entry(&s, 1, "4", "0x400");
	fprintf(s.f, "__CURSOR=s=x;i=2\nPMUGUARD_CONFIG\n\x10");
	size_t len;
	char *text = stream_close(&s, &len);
	struct status_model m = {.o = &opts};
	cr_assert_eq(status_log_count_export(&m, text, len), -EBADMSG);
	cr_assert_eq(m.blocks, 0);
	cr_assert_eq(m.undelivered, 0);
	free(text);
}

Test(status_log, a_binary_program_is_sanitised_and_later_programs_counted)
{
	struct stream b, k;
	stream_open(&b);
	fprintf(b.f, "__CURSOR=s=x;i=1\nMESSAGE_ID=" LOG_MSGID_BLOCK_TEST "\n"
		     "PMUGUARD_LAYER=preload\n");
	binary_field(&b, "PMUGUARD_PROGRAM", "ev\x01l\0x", 6);
	fprintf(b.f, "\n__CURSOR=s=x;i=2\nMESSAGE_ID=" LOG_MSGID_BLOCK_TEST "\n");
	binary_field(&b, "PMUGUARD_LAYER", "preload\x01", 8);
	fprintf(b.f, "PMUGUARD_PROGRAM=perf\n\n");
	fprintf(b.f, "__CURSOR=s=x;i=3\nMESSAGE_ID=" LOG_MSGID_BLOCK_TEST "\n"
		     "PMUGUARD_LAYER=preload\nPMUGUARD_PROGRAM=perf\n\n");
	stream_open(&k);
	size_t bn, kn;
	char *bt = stream_close(&b, &bn), *kt = stream_close(&k, &kn);
	struct status_model m = {.o = &opts};
	cr_assert_eq(status_log_programs_export(&m, bt, bn, kt, kn), 0);
	cr_assert(m.progs_known);
	cr_assert_eq(m.n_progs, 3);
	for (unsigned i = 0; i < 3; i++)
		cr_assert_eq(m.progs[i].reports, 1);
	/* By count, then layer, then program. */
	cr_assert_str_eq(m.progs[0].layer, "preload");
	cr_assert_str_eq(m.progs[0].program, "ev?l?x");
	cr_assert_str_eq(m.progs[1].layer, "preload");
	cr_assert_str_eq(m.progs[1].program, "perf");
	cr_assert_str_eq(m.progs[2].layer, "unknown", "a layer with a control byte is no layer");
	free(m.progs);
	free(bt);
	free(kt);
}

/* Forged reports are many: 50,000 distinct labels and programs are sorted
 * and counted by runs (the time is logged, not asserted). */
Test(status_log, fifty_thousand_distinct_labels_are_counted_and_folded, .timeout = 60)
{
	enum { N = 50000 };
	struct stream s, b, k;
	stream_open(&s);
	stream_open(&b);
	stream_open(&k);
	for (int i = 0; i < N; i++) {
		char cfg[24];
		snprintf(cfg, sizeof(cfg), "0x%x", 0x10000 + i);
		/* Counts rise with the label: the worst order for a sort by
		 * insertion. */
		report_entry(&s, i, "4", cfg);
		fprintf(b.f,
			"__CURSOR=s=x;i=%x\nMESSAGE_ID=" LOG_MSGID_BLOCK_TEST
			"\nPMUGUARD_LAYER=preload\nPMUGUARD_PROGRAM=p%d\n\n",
			i, i);
	}
	for (int i = 0; i < 3; i++)
		report_entry(&s, N + i, "4", "0x400");
	size_t len, bn, kn;
	char *text = stream_close(&s, &len), *bt = stream_close(&b, &bn),
	     *kt = stream_close(&k, &kn);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct status_model m = {.o = &opts};
	cr_assert_eq(status_log_count_export(&m, text, len), 0);
	cr_assert_eq(status_log_programs_export(&m, bt, bn, kt, kn), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_log_info("50,000 labels and programs counted in %.3f s",
		    (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	cr_assert_eq(m.blocks, N + 3);
	cr_assert_eq(m.n_lenc, STATUS_LABELS_MAX + 1);
	cr_assert_str_eq(m.lenc[0].config, "0x400");
	cr_assert_eq(m.lenc[0].reports, 3);
	cr_assert_str_eq(m.lenc[1].config, "0x10000", "equal counts in label order");
	cr_assert_str_eq(m.lenc[STATUS_LABELS_MAX].config, "other");
	cr_assert_eq(m.lenc[STATUS_LABELS_MAX].reports, N - (STATUS_LABELS_MAX - 1));
	cr_assert_eq(m.n_progs, STATUS_LABELS_MAX + 1);
	cr_assert_str_eq(m.progs[STATUS_LABELS_MAX].program, "(others)");
	cr_assert_eq(m.progs[STATUS_LABELS_MAX].reports, N - STATUS_LABELS_MAX);
	free(m.lenc);
	free(m.progs);
	free(text);
	free(bt);
	free(kt);
}

/* --- A child of status: bounded in time and output ------------------------- */

Test(status_run, a_child_past_the_deadline_is_killed_with_its_group, .timeout = 60)
{
	char dir[] = "/tmp/status-run-XXXXXX";
	cr_assert(mkdtemp(dir));
	char pidf[64], script[256];
	snprintf(pidf, sizeof(pidf), "%s/pid", dir);
	snprintf(script, sizeof(script), "echo $$ >%s; echo partial; sleep 1000 & exec sleep 1000",
		 pidf);
	setenv("PMUGUARD_STATUS_CHILD_DEADLINE_MS", "300", 1);
	char *argv[] = {"/bin/sh", "-c", script, NULL};
	char *out = (char *)1;
	size_t len = 1;
	int rc = status_run(argv, environ, false, false, &out, &len);
	cr_assert_eq(rc, -ETIMEDOUT, "rc %d", rc);
	cr_assert_null(out, "a document cut short is not a document");
	cr_assert_eq(len, 0);
	FILE *f = fopen(pidf, "r");
	cr_assert(f);
	int pg = 0;
	cr_assert_eq(fscanf(f, "%d", &pg), 1);
	fclose(f);
	/* The sleep it left behind is killed too (init reaps it: wait for it). */
	for (int i = 0; i < 2000 && kill(-pg, 0) == 0; i++)
		usleep(5000);
	cr_assert_eq(kill(-pg, 0), -1, "process group %d outlived the deadline", pg);
	unlink(pidf);
	rmdir(dir);
}

Test(status_run, a_flood_is_cut_and_no_answer, .timeout = 60)
{
	char *argv[] = {"/bin/sh", "-c", "exec head -c 17000000 /dev/zero", NULL};
	char *out = NULL;
	size_t len = 0;
	int rc = status_run(argv, environ, false, false, &out, &len);
	cr_assert_eq(rc, -EFBIG, "rc %d", rc);
	cr_assert_null(out);
}

Test(status_run, output_with_nuls_keeps_its_length)
{
	char *argv[] = {"/usr/bin/printf", "a\\0b\\n", NULL};
	char *out = NULL;
	size_t len = 0;
	cr_assert_eq(status_run(argv, environ, false, false, &out, &len), 0);
	cr_assert_eq(len, 4);
	cr_assert_eq(memcmp(out, "a\0b\n", 4), 0);
	free(out);
}

Test(status_run, sigchld_ignored_is_no_exit_status)
{
	signal(SIGCHLD, SIG_IGN);
	char *argv[] = {"/bin/true", NULL};
	char *out = NULL;
	int rc = status_run(argv, environ, false, false, &out, NULL);
	signal(SIGCHLD, SIG_DFL);
	cr_assert_eq(rc, -ECHILD, "rc %d: a lost exit is unknown, never 0", rc);
	cr_assert_null(out);
}

Test(status, under_root_the_trees_policy_decides)
{
	/* Issue 38 (3): the tree's policy file by the live rules: mode off or
	 * audit guards nothing (NO, 3); a policy read from a snapshot is
	 * unknown (4), never yes. */
	struct status_opts o = {.root = "/tree", .version = "test"};
	struct status_model m;
	struct status_decision d;
	model(&m, 3, 5, NULL);
	m.o = &o;
	m.listed = m.loads = true;
	m.canary = STATUS_C_UNKNOWN;
	m.tree_policy.state = STATUS_POLICY_LETS_THROUGH;
	status_decide(&d, &m);
	cr_assert_str_eq(status_layer_word(d.layers), "none");
	cr_assert_not(d.protected_);
	cr_assert_eq(d.exit, 3);
	status_free(&m);
	model(&m, 3, 5, NULL);
	m.o = &o;
	m.listed = m.loads = true;
	m.tree_policy.state = STATUS_POLICY_UNKNOWN;
	status_decide(&d, &m);
	cr_assert_not(d.protected_);
	cr_assert(d.pre_unknown);
	cr_assert_eq(d.exit, 4);
	status_free(&m);
}

Test(status, the_preload_file_is_read_as_the_loader_parses_it)
{
	static const char lib[] = "/usr/lib/pmuguard/libpmuguard.so";
	static const char plain[] = "/usr/lib/pmuguard/libpmuguard.so\n";
	cr_assert(status_preload_lists(plain, sizeof(plain) - 1, lib));
	/* glibc splits at ": \t\n" and blanks comments. */
	static const char spaced[] = "/x.so: /usr/lib/pmuguard/libpmuguard.so\t/y.so";
	cr_assert(status_preload_lists(spaced, sizeof(spaced) - 1, lib));
	static const char last[] = "/x.so /usr/lib/pmuguard/libpmuguard.so";
	cr_assert(status_preload_lists(last, sizeof(last) - 1, lib));
	static const char comment[] = "# /usr/lib/pmuguard/libpmuguard.so\n";
	cr_assert_not(status_preload_lists(comment, sizeof(comment) - 1, lib));
	static const char longer[] = "/usr/lib/pmuguard/libpmuguard.so.1\n";
	cr_assert_not(status_preload_lists(longer, sizeof(longer) - 1, lib));
	/* A NUL ends the loader's list (strsep on a C string): nothing after
	 * it is loaded. */
	static const char nul[] = "x\0/usr/lib/pmuguard/libpmuguard.so\n";
	cr_assert_not(status_preload_lists(nul, sizeof(nul) - 1, lib));
}

Test(status, the_textfile_is_never_written_where_others_may_write)
{
	/* Issue 38 (7): one writer, one rule, for status --textfile and the
	 * node agent's (both call status_write_textfile()). */
	struct status_model m;
	struct status_decision d;
	model(&m, 0, 5, NULL);
	status_decide(&d, &m);
	char dir[] = "/tmp/pmuguard-status-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(chmod(dir, 0777), 0);
	char path[sizeof(dir) + 16];
	snprintf(path, sizeof(path), "%s/p.prom", dir);
	cr_assert_eq(status_write_textfile(path, &m, &d, NULL, NULL), -EPERM);
	cr_assert_neq(access(path, F_OK), 0, "a file was written in a directory others may write");
	char why[256];
	cr_assert_eq(status_textfile_dir_check(path, why, sizeof(why)), -EPERM);
	cr_assert_not_null(strstr(why, "writable by group or others"), "%s", why);
	/* Sticky and root's (as /tmp): each user's files stay theirs. */
	cr_assert_eq(chmod(dir, 01777), 0);
	if (geteuid() == 0)
		cr_assert_eq(status_write_textfile(path, &m, &d, NULL, NULL), 0);
	unlink(path);
	rmdir(dir);
	status_free(&m);
}

Test(status, the_kernels_numbers_are_written_only_as_numbers)
{
	/* Values of another command's document: a sample that is not a
	 * number makes the collector refuse the whole file. */
	struct status_model m;
	struct status_decision d;
	model(&m, 3, 7,
	      "schema=1\nprotects=true\nverified=true\nverification.checked_utc=2025-12-02T12:01:40Z\n"
	      "verification.checked_at=12a\nexisting.known=true\nexisting.hits=3 x\n"
	      "existing.unguarded=true\n");
	status_decide(&d, &m);
	char *t = textfile_of(&m, &d);
	cr_assert_null(strstr(t, "\npmuguard_kernel_verified_timestamp_seconds "), "%s", t);
	cr_assert_null(strstr(t, "\npmuguard_kernel_existing_events "), "%s", t);
	free(t);
	status_free(&m);
	model(&m, 3, 7,
	      "schema=1\nprotects=true\nverified=true\nverification.checked_utc=2025-12-02T12:01:40Z\n"
	      "verification.checked_at=1764676900\nexisting.known=true\nexisting.hits=3\n"
	      "existing.unguarded=true\n");
	status_decide(&d, &m);
	t = textfile_of(&m, &d);
	cr_assert_not_null(strstr(t, "\npmuguard_kernel_verified_timestamp_seconds 1764676900\n"),
			   "%s", t);
	cr_assert_not_null(strstr(t, "\npmuguard_kernel_existing_events 3\n"), "%s", t);
	free(t);
	status_free(&m);
}

Test(status, escaped_events_that_do_not_fit_end_the_list_and_are_counted)
{
	/* Long names: the list ends at the first that does not fit (none
	 * skipped for a shorter one after it), and "N more" counts from the
	 * last one named. */
	size_t cap = 8192;
	char *enf = calloc(1, cap);
	cr_assert_not_null(enf);
	size_t at = (size_t)snprintf(enf, cap,
				     "schema=1\nprotects=true\nverified=true\nexisting.known=true\n"
				     "existing.hits=10\nexisting.unguarded=true\n");
	char big[301];
	memset(big, 'c', 300);
	big[300] = '\0';
	for (int i = 0; i < 10; i++)
		at += (size_t)snprintf(enf + at, cap - at,
				       "existing.events.%d.pid=%d\nexisting.events.%d.comm=%s\n", i,
				       100 + i, i, i == 4 ? "short" : big);
	struct status_model m;
	struct status_decision d;
	model(&m, 3, 7, enf);
	free(enf);
	status_decide(&d, &m);
	cr_assert(d.partly);
	cr_assert_null(strstr(d.escaped_who, "short"), "entry 4 skipped past 3: %s", d.escaped_who);
	cr_assert_not_null(strstr(d.escaped_who, "pid 102 "), "%s", d.escaped_who);
	const char *more = strstr(d.escaped_who, ", 7 more");
	cr_assert_not_null(more, "three named, 7 more: %s", d.escaped_who);
	cr_assert_str_eq(more, ", 7 more");
	status_free(&m);
}

Test(status, a_maps_line_names_the_library_by_its_whole_path)
{
	const char *real = "/usr/lib/x86_64-linux-gnu/pmuguard/libpmuguard.so";
	const char *lib = "/usr/lib/pmuguard/libpmuguard.so";
	cr_assert(status_maps_line_names("7f0-7f1 r-xp 00000000 08:01 42      "
					 "/usr/lib/x86_64-linux-gnu/pmuguard/libpmuguard.so\n",
					 real, lib));
	cr_assert(status_maps_line_names("7f0-7f1 r-xp 00000000 08:01 42 "
					 "/usr/lib/pmuguard/libpmuguard.so\n",
					 real, lib));
	/* A copy elsewhere whose path ends (or starts) like it is not it. */
	cr_assert(!status_maps_line_names(
		"7f0-7f1 r-xp 00000000 08:01 42 "
		"/home/u/usr/lib/x86_64-linux-gnu/pmuguard/libpmuguard.so\n",
		real, lib));
	cr_assert(!status_maps_line_names("7f0-7f1 r-xp 00000000 08:01 42 "
					  "/usr/lib/pmuguard/libpmuguard.so.old\n",
					  real, lib));
	cr_assert(!status_maps_line_names("7f0-7f1 rw-p 00000000 00:00 0\n", real, lib));
}

Test(status, kv_rows_in_one_pass_read_what_kv_row_reads)
{
	/* Duplicates (the first line counts), indices not as %u spells them,
	 * a field absent, a field that only starts like another. */
	char text[] = "a.0.x=first\na.0.x=second\na.00.x=zero\na.+1.x=plus\na.1.y=y1\n"
		      "a.1.xx=long\na.2.x=\nb.0.x=other\na.3=scalar\na.1.x=late\na.10.x=past\n";
	struct status_kv kv;
	status_kv_parse(&kv, text);
	static const char *const fields[] = {"x", "y"};
	unsigned n = 4;
	const char *out[8];
	status_kv_rows(&kv, "a", n, fields, 2, out);
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < 2; j++) {
			const char *want = status_kv_row(&kv, "a", i, fields[j]);
			const char *got = out[i * 2 + j];
			cr_assert(want == got, "a.%u.%s: %s, not %s", i, fields[j],
				  got ? got : "NULL", want ? want : "NULL");
		}
	cr_assert_str_eq(out[0], "first");
	cr_assert_str_eq(out[2], "late");
	cr_assert_null(out[6]);
}

/* The schema enumerates the layer's words: exactly status_layer_word()'s
 * (issue 51: the words named once, the schema checked against them). */
Test(status, the_schema_lists_the_layers_words)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/../../probe/doc/schema/status.schema.json",
		 PMUGUARD_FIXTURES);
	FILE *f = fopen(path, "r");
	cr_assert(f, "%s", path);
	static char text[1 << 20];
	text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
	fclose(f);
	const char *at = strstr(text, "\n  \"layer\": {");
	cr_assert(at, "the top-level layer key");
	const char *list = strstr(at, "\"enum\": [");
	const char *end = list ? strchr(list, ']') : NULL;
	cr_assert(list && end);
	unsigned listed = 0;
	for (const char *q = strchr(list + 9, '"'); q && q < end; q = strchr(q + 1, '"')) {
		const char *e = strchr(q + 1, '"');
		char word[32];
		snprintf(word, sizeof(word), "%.*s", (int)(e - q - 1), q + 1);
		bool ours = false;
		for (unsigned b = 0; b < 4; b++)
			ours |= !strcmp(word, status_layer_word(b));
		cr_assert(ours, "'%s' is not a word of status_layer_word()", word);
		listed++;
		q = e;
	}
	cr_assert_eq(listed, 4, "the schema lists every layer word once");
}
