// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmuguard enforce follow [--json]      (also: pmuguard enforce --follow)
 * pmuguard enforce agent [--mode M] [--snapshot DIR] [--attach A] [--remove-on-exit]
 *                        [--textfile FILE [--textfile-interval SECONDS]]
 *
 * follow reports the kernel program's decisions, once per process and
 * encoding, with the reason kept in its rodata; the agent is start, then
 * follow --json, in the foreground of a DaemonSet's pod.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "denial.h"
#include "enforce_common.h"
#include "once.h"

static volatile sig_atomic_t stopping;
static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}
static bool should_stop(void *ctx)
{
	(void)ctx;
	return stopping != 0;
}

/* Once per (process, encoding), as the shim and the supervisor decide it
 * (probe/guard/once.c); forgotten when full (follow runs for days, and the
 * processes it saw are long gone) and when another start replaces the
 * program (its reports are a new program's). */
static _Atomic uint64_t follow_seen[4096];

struct follow {
	const struct enf_status *st; /* the program followed: its attach and rodata */
	struct guard_policy policy;  /* the reason it was started with, for the line */
	struct guard_once once;
	bool journal; /* stdout is the journal: send entries with fields instead */
	bool json;    /* one JSON object per line (the agent's pod log) */
};

/* A denial as one JSON line: the data, and the text line as "message". */
struct event_doc {
	const struct follow *fo;
	const struct pmug_enf_event *e;
	const struct guard_decision *d;
	const char *comm, *when, *msg;
};

static void event_walk(const struct doc_sink *doc, const void *arg)
{
	const struct event_doc *a = arg;
	const struct pmug_enf_event *e = a->e;
	const struct guard_decision *d = a->d;
	doc_str(doc, "event", e->denied ? "denied" : "audited");
	doc_str(doc, "time", a->when);
	doc_uint(doc, "pid", e->tgid);
	doc_uint(doc, "tid", e->pid);
	doc_str(doc, "comm", a->comm);
	doc_uint(doc, "uid", e->uid);
	doc_uint(doc, "cgroup_id", e->cgroup_id);
	doc_uint(doc, "pmu_type", e->pmu_type);
	doc_uint(doc, "attr_type", e->attr_type);
	doc_hex(doc, "config", false, e->attr_config);
	doc_hex(doc, "hw_config", false, e->hw_config);
	doc_str(doc, "hit", enforce_hit_word(d->hit));
	int counter = guard_hit_counter(d->hit, d->config);
	if (counter >= 0)
		doc_uint(doc, "counter", (unsigned long long)counter);
	else
		doc_null(doc, "counter");
	doc_str(doc, "what", guard_hit_name(d->hit, d->config));
	doc_bool(doc, "inherited", e->inherited != 0);
	doc_str(doc, "attach", enf_attach_name(a->fo->st->attach));
	doc_str(doc, "message", a->msg);
}

static void event_json(const struct follow *fo, const struct pmug_enf_event *e,
		       const struct guard_decision *d, const char *comm, const struct logline *l)
{
	char when[32], msg[sizeof(l->buf) + 1];
	doc_time_utc(when, sizeof(when), time(NULL), DOC_TIME_ISO);
	size_t n = l->len < sizeof(l->buf) ? l->len : sizeof(l->buf);
	memcpy(msg, l->buf, n);
	msg[n] = '\0';
	const struct event_doc a = {fo, e, d, comm, when, msg};
	enforce_doc_print(DOC_FORM_JSON, event_walk, &a);
}

/* systemd's JOURNAL_STREAM ("DEV:INODE" of the stream it connected to
 * stdout): true when fd 1 is still that stream. */
static bool stdout_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	return js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && fstat(STDOUT_FILENO, &st) == 0 &&
	       (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

/* One line per (process, encoding): the kernel program's decision in the
 * shim's words, with the reason the guard was started with, then what only
 * the kernel knows. */
static void on_event(void *ctx, const struct pmug_enf_event *e)
{
	struct follow *fo = ctx;
	struct guard_decision d;
	enf_event_decision(e, &d);
	enum guard_once_result seen = guard_once_mark(&fo->once, guard_once_key(e->tgid, &d));
	if (seen == GUARD_ONCE_FULL) {
		guard_once_forget(&fo->once);
		seen = guard_once_mark(&fo->once, guard_once_key(e->tgid, &d));
	}
	if (seen != GUARD_ONCE_FIRST)
		return;
	char comm[17];
	enforce_comm_str(comm, e->comm);
	struct logline l;
	guard_format_denial(&l, &fo->policy, &d, comm, (pid_t)e->tgid);
	log_str(&l, " [kernel ");
	log_str(&l, enf_attach_name(fo->st->attach));
	log_str(&l, ": uid ");
	log_dec(&l, e->uid);
	log_str(&l, ", cgroup ");
	log_dec(&l, e->cgroup_id);
	log_str(&l, ", pmu type ");
	log_dec(&l, e->pmu_type);
	log_str(&l, ", hw.config ");
	log_hex(&l, e->hw_config);
	if (e->inherited)
		log_str(&l, ", inherited at fork");
	log_str(&l, "]");
	/* Under systemd, a native entry (MESSAGE_ID, PMUGUARD_LAYER=kernel, ...):
	 * as a plain stdout line it would read as one more preload report. */
	if (fo->json) {
		event_json(fo, e, &d, comm, &l);
		enforce_textfile_refresh(); /* the agent's: its count, soon */
		return;
	}
	struct log_report r;
	guard_report_fields(&r, &d, GUARD_LAYER_KERNEL, comm, (pid_t)e->tgid, (uid_t)e->uid);
	if (!fo->journal || !log_system(&l, sizeof("pmuguard: ") - 1, &r))
		log_emit(&l, STDOUT_FILENO);
}

/* Read what is attached, with its ring buffer: EXIT_OK, or the exit code
 * and a line on stderr. */
static int follow_open(struct enf_status *st)
{
	int err = enf_status_read(ENF_PIN_DIR, st, ENF_STATUS_EVENTS);
	if (err || !st->attached) {
		cli_line(stderr, "pmuguard: enforce: follow: %s",
			 st->why[0] ? st->why : "nothing is attached");
		return err ? EXIT_INTERNAL : EXIT_NOT_ATTACHED;
	}
	if (st->events_fd < 0) {
		cli_line(stderr, "pmuguard: enforce: follow: the attached program has no ring "
				 "buffer this pmuguard can read");
		return EXIT_INTERNAL;
	}
	return EXIT_OK;
}

static void on_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Follow the attached program (st, open) until stop or a signal. */
static int follow_loop(struct enf_status *st, bool json)
{
	int rc = EXIT_OK;
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct follow fo = {.st = st,
			    .once = GUARD_ONCE_INIT(follow_seen),
			    .journal = !json && stdout_is_journal(),
			    .json = json};
	const char *verb = "following denials";
	for (;;) {
		/* The reason sentence: the one the program was started with,
		 * from its rodata; nothing is probed again. */
		fo.policy = (struct guard_policy){.reason = st->cfg.reason};
		guard_once_forget(&fo.once);
		if (json)
			enforce_life_json("following", "attach", enf_attach_name(st->attach));
		else
			cli_line(stdout, "pmuguard: enforce: %s (%s, mode %s)", verb,
				 enf_attach_name(st->attach),
				 guard_mode_name((enum guard_mode)st->cfg.mode));
		fflush(stdout);
		int err = enf_follow(st->events_fd, st->link_id, ENF_PIN_DIR, on_event, &fo,
				     should_stop);
		close(st->events_fd);
		if (err == -ESTALE) {
			/* A start with another policy replaced the program: its
			 * reports go to a ring buffer of its own. */
			verb = "replaced by another start; following its denials";
			rc = follow_open(st);
			if (rc == EXIT_OK)
				continue;
			if (rc == EXIT_NOT_ATTACHED)
				rc = EXIT_OK; /* stopped just after the replace */
		} else if (err == -ENOENT) {
			if (json)
				enforce_life_json("stopped", "why",
					      "unpinned: no more denials to follow");
			else
				cli_line(
					stdout,
					"pmuguard: enforce: stopped (unpinned); no more denials to "
					"follow");
		} else if (err) {
			cli_line(stderr, "pmuguard: enforce: follow: %s", strerror(-err));
			rc = EXIT_INTERNAL;
		}
		break;
	}
	return rc;
}

int cmd_enforce_follow(int argc, char **argv)
{
	/* argv[0] is "follow" or "--follow" */
	bool json = argc == 2 && !strcmp(argv[1], "--json");
	if (argc > 1 && !json)
		die_usage("enforce follow takes no arguments but --json");
	struct enf_status *st = calloc(1, sizeof(*st));
	if (!st)
		die_errno("out of memory");
	int rc = follow_open(st);
	if (rc == EXIT_OK) {
		on_signals();
		rc = follow_loop(st, json);
	}
	free(st);
	return rc;
}

/* ---- agent, ready: the node agent of a DaemonSet --------------------------- */

/* `enforce agent`: what a node agent does, in the foreground, its log one
 * JSON object per line.  The LSM list read even where the pod has no
 * securityfs (mounted here); start (bpffs mounted where nothing is, the
 * attach, the self-test, the pin: the guard outlives the pod where
 * /sys/fs/bpf is the host's); then the denials followed until SIGTERM;
 * then the guard left in place, or removed with --remove-on-exit.  A node
 * that needs no guard idles.  Exit 0 at a signal, 4 where the kernel could
 * not take the guard (the pod restarts; `ready` never says yes). */
int cmd_enforce_agent(int argc, char **argv)
{
	static const struct option opts[] = {
		ENFORCE_START_OPTIONS,
		{"remove-on-exit", no_argument, NULL, 'R'},
		{"textfile", required_argument, NULL, 'T'},
		{"textfile-interval", required_argument, NULL, 'I'},
		CLI_HELP_OPTION_END,
	};
	int ch;
	struct enforce_start_opts so = ENFORCE_START_OPTS_INIT;
	bool remove = false;
	const char *textfile = NULL;
	unsigned long interval = 300; /* pmuguard-metrics.timer's on a host */
	char *end;
	while ((ch = getopt_long(argc, argv, "+m:s:a:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'm':
		case 's':
		case 'a': enforce_start_option(ch, optarg, &so); break;
		case 'R': remove = true; break;
		case 'T':
			if (optarg[0] != '/' || optarg[strlen(optarg) - 1] == '/')
				die_usage("enforce agent: --textfile must be an absolute file "
					  "name, not '%s'",
					  optarg);
			textfile = optarg;
			break;
		case 'I':
			errno = 0;
			interval = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || interval < 1 || interval > 86400)
				die_usage("enforce agent: --textfile-interval is 1 to 86400 "
					  "seconds, not '%s'",
					  optarg);
			break;
		case 'h': fputs(enforce_usage, stdout); return EXIT_OK;
		default: die_bad_option("enforce agent", argv, "m:s:a:h");
		}
	}
	if (optind < argc)
		die_usage("enforce agent: unexpected argument '%s'", argv[optind]);
	on_signals();
	setvbuf(stdout, NULL, _IOLBF, 0);
	int sec = enf_securityfs_mount();
	if (sec > 0)
		enforce_life_json("mounted", "securityfs", ENF_SECURITYFS ": the pod had no LSM list");
	else if (sec < 0)
		enforce_life_json("no-lsm-list", "why", strerror(-sec)); /* the self-test decides */

	struct enforce_start_model m;
	enforce_start_run(&m, so.mode, so.snapshot, so.attach, false);
	enforce_start_data(&m, DOC_FORM_JSON, "start");
	/* The "start" event carries the refusal; the pod's log is stdout
	 * and stderr together: not said a second time. */
	enforce_start_refused_say(&m, DOC_FORM_JSON, false);
	int rc = m.rc;
	enum enforce_outcome outcome = m.outcome;
	bool guarding = outcome != ENFORCE_OUT_NOTHING && outcome != ENFORCE_OUT_REFUSED;
	char facts[PATH_MAX];
	snprintf(facts, sizeof(facts), "%s", m.pl.set.snapshot ? m.pl.set.snapshot : "");
	char refused[512];
	snprintf(refused, sizeof(refused), "%s", outcome == ENFORCE_OUT_REFUSED && m.r ? m.r->why : "");
	enforce_start_free(&m);
	if (outcome == ENFORCE_OUT_REFUSED) {
		/* The one node that needs an alert keeps its series (issue 40,
		 * item 8): the kernel's refusal in the textfile, then exit 4. */
		if (textfile)
			(void)enforce_textfile_refused(textfile, facts, refused);
		return rc;
	}
	/* After the start, which verified the guard: the file's first state
	 * is the one the pod's log just gave. */
	if (textfile) {
		/* It says its own failure (the directory's, or the fork's). */
		(void)enforce_textfile_start(textfile, (unsigned)interval, facts);
	}
	if (guarding) {
		struct enf_status *st = calloc(1, sizeof(*st));
		if (!st)
			die_errno("out of memory");
		rc = follow_open(st);
		if (rc == EXIT_OK)
			rc = follow_loop(st, true);
		free(st);
	} else {
		while (!stopping)
			sleep(60); /* a signal ends the sleep */
	}
	enforce_textfile_stop();
	if (!stopping)
		return rc; /* unpinned by someone else, or an error: said above */
	if (remove && guarding) {
		char why[512] = "";
		int err = enf_stop(ENF_PIN_DIR, why, sizeof(why));
		enforce_life_json("exit", "guard", err ? why : "removed (--remove-on-exit)");
		return err ? EXIT_INTERNAL : EXIT_OK;
	}
	enforce_life_json("exit", "guard",
		      guarding ? "left in place, pinned in " ENF_PIN_DIR
				 ": `pmuguard enforce stop` "
				 "removes it"
			       : "none was needed on this node");
	return EXIT_OK;
}
