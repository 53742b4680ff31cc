// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmuguard enforce start [--mode auto|always|audit|off] [--snapshot DIR]
 * pmuguard enforce stop
 * pmuguard enforce status
 * pmuguard enforce follow        (also: pmuguard enforce --follow)
 *
 * The same facts, settings resolver and policy as the shim and `run`
 * decide whether anything is attached; probe/enforce/enforce.c attaches it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "conf.h"
#include "denial.h"
#include "enforce.h"
#include "policy.h"
#include "settings.h"

#ifndef PMUGUARD_ENFORCE
int cmd_enforce(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("pmuguard: enforce: this pmuguard was built without kernel enforcement "
	      "(meson -Denforce=disabled, or libbpf, bpftool or clang missing at build time); "
	      "the preload and `pmuguard run` still guard what they reach\n",
	      stderr);
	return EXIT_NO_ENFORCE;
}
#else
#include <linux/magic.h>

static const char usage_text[] =
	"Usage: pmuguard enforce start [--mode auto|always|audit|off] [--snapshot DIR]\n"
	"                              [--attach auto|lsm|fmod_ret]\n"
	"       pmuguard enforce stop\n"
	"       pmuguard enforce status\n"
	"       pmuguard enforce follow\n"
	"\n"
	"Guard every process on the host in the kernel: a BPF program on the LSM\n"
	"hook perf_event_alloc denies the fixed-counter-3 class with ENOENT.\n"
	"  start    attach it where the policy wants it (nothing on a healthy host);\n"
	"           pinned in /sys/fs/bpf/pmuguard, so it outlives the command\n"
	"    --mode auto|always|audit|off   as PMUGUARD_MODE (lock = yes applies)\n"
	"    --snapshot DIR                 take the facts from a snapshot\n"
	"    --attach auto|lsm|fmod_ret     how to attach (auto: lsm, else fmod_ret)\n"
	"  stop     detach and unpin it\n"
	"  status   attached or not (and why), counts per encoding and per uid, and\n"
	"           the events of the class that existed before the start\n"
	"  follow   print each denial, once per process and encoding, until stop\n"
	"\n"
	"start and status also name the perf events of the class that already\n"
	"exist (pid, comm, fd, encoding): the kernel judged them when they were\n"
	"allocated, before the guard, so each is unguarded until its owner closes it.\n"
	"\n"
	"Exit: 0 ok; 1 internal error; 2 usage; 4 the kernel could not attach the\n"
	"guard (start); 5 built without enforce; 6 nothing attached (status, follow);\n"
	"7 attached, but events of the class opened before it still exist (start,\n"
	"status: a warning; the guard is attached and denies every new one).\n";

/* What the policy says for this machine: the same path as the shim. */
struct plan {
	struct guard_settings set;
	struct guard_policy policy;
	struct probe_verdict v;
	struct probe_facts *f;
};

static void plan_make(struct plan *pl, int mode, const char *snapshot, bool quiet)
{
	struct guard_cli cli = {.mode = mode, .snapshot = snapshot};
	cli_settings(&pl->set, &cli, quiet, NULL);
	if (pl->set.snapshot)
		require_snapshot_dir(pl->set.snapshot);
	pl->f = calloc(1, sizeof(*pl->f));
	if (!pl->f)
		die_errno("out of memory");
	guard_policy_for(&pl->set, pl->f, &pl->v, &pl->policy);
}

static void print_types(FILE *out, const unsigned *types, unsigned n)
{
	for (unsigned i = 0; i < n && i < GUARD_RULE_MAX_CORE; i++)
		fprintf(out, "%s%u", i ? ", " : "", types[i]);
}

/* Why the kernel may have said no, in words an operator can act on. */
static void hint(int err)
{
	if (err != -EPERM && err != -EACCES)
		return;
	if (geteuid() != 0)
		fputs("pmuguard: enforce: run it as root (it needs CAP_BPF and CAP_PERFMON, or "
		      "CAP_SYS_ADMIN)\n",
		      stderr);
	char buf[128];
	if (probe_read_small("/sys/kernel/security/lockdown", buf, sizeof(buf)) > 0 &&
	    !strstr(buf, "[none]"))
		fprintf(stderr, "pmuguard: enforce: kernel lockdown is on (%s)\n", buf);
	else if (geteuid() == 0)
		fputs("pmuguard: enforce: refused to root: this kernel (its lockdown, a security "
		      "module or its build) does not let BPF trampoline or LSM programs load\n",
		      stderr);
}

static const char *hit_word(enum guard_hit hit)
{
	return hit == GUARD_HIT_SLOTS ? "slots" : hit == GUARD_HIT_METRIC ? "metric" : "none";
}

static void sanitize_comm(char out[17], const char in[16])
{
	memcpy(out, in, 16);
	out[16] = '\0';
	for (char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

/* The perf events that exist now, judged with cfg's rule (the attached
 * program's): lead starts the summary line, indent each event's line.
 * EXIT_EXISTING_EVENTS where cfg denies and one of the class exists, else
 * EXIT_OK.  Where the iterator cannot run, "unknown (why)", never "none". */
static int report_existing(const char *lead, const char *indent,
			   const struct pmug_enf_config *cfg)
{
	struct enf_existing *ex = calloc(1, sizeof(*ex));
	if (!ex)
		die_errno("out of memory");
	enf_existing_read(ex, cfg);
	int rc = EXIT_OK;
	if (!ex->known) {
		printf("%sexisting events: unknown (%s)\n", lead, ex->why);
	} else if (!ex->n_hits) {
		printf("%sexisting events: none of the counter-3 class (%u perf event file%s open, "
		       "judged with the guard's rule)\n",
		       lead, ex->n_files, ex->n_files == 1 ? "" : "s");
	} else if (cfg->enforce) {
		bool one = ex->n_hits == 1;
		printf("%swarning: existing events: %u of the counter-3 class, allocated before "
		       "the guard was attached. The kernel judges an event once, when it is "
		       "allocated, so the guard cannot stop %s: %s unguarded until its owner "
		       "closes it (restart %s):\n",
		       lead, ex->n_hits, one ? "it" : "them", one ? "it is" : "each is",
		       one ? "that process" : "those processes");
		rc = EXIT_EXISTING_EVENTS;
	} else {
		printf("%sexisting events: %u of the counter-3 class (audit mode: allowed, whenever "
		       "they were opened):\n",
		       lead, ex->n_hits);
	}
	for (unsigned i = 0; ex->known && i < ex->n_listed; i++) {
		const struct enf_existing_event *e = &ex->ev[i];
		char comm[17];
		sanitize_comm(comm, e->f.comm);
		printf("%spid %u comm %s fd %u: type %u config 0x%llx hw.config 0x%llx hit %s, "
		       "state %s, event id %llu%s: %s\n",
		       indent, e->f.tgid, comm, e->f.fd, e->f.attr_type, e->f.attr_config,
		       e->f.hw_config, hit_word(e->hit), enf_state_name(e->f.state), e->f.id,
		       e->f.inherit ? ", inherit (copies its children got before the start are "
				      "unguarded too; a fork after it fails with ENOENT)"
				    : "",
		       guard_hit_name(e->hit, e->judged));
	}
	if (ex->known && ex->n_hits > ex->n_listed)
		printf("%s(%u more)\n", indent, ex->n_hits - ex->n_listed);
	free(ex);
	return rc;
}

static int do_start(int argc, char **argv)
{
	static const struct option opts[] = {
		{"mode", required_argument, NULL, 'm'},
		{"snapshot", required_argument, NULL, 's'},
		{"attach", required_argument, NULL, 'a'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int mode = -1, ch;
	unsigned attach = PMUG_ENF_ATTACH_NONE;
	const char *snapshot = NULL;
	while ((ch = getopt_long(argc, argv, "+m:s:a:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'm':
			mode = guard_mode_parse(optarg);
			if (mode < 0)
				die_usage("enforce: --mode is auto, always, audit or off, not '%s'",
					  optarg);
			break;
		case 's':
			snapshot = optarg;
			break;
		case 'a':
			if (!strcmp(optarg, "lsm"))
				attach = PMUG_ENF_ATTACH_LSM;
			else if (!strcmp(optarg, "fmod_ret"))
				attach = PMUG_ENF_ATTACH_FMOD_RET;
			else if (strcmp(optarg, "auto"))
				die_usage("enforce: --attach is auto, lsm or fmod_ret, not '%s'",
					  optarg);
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			die_bad_option("enforce start", argv, "m:s:a:h");
		}
	}
	if (optind < argc)
		die_usage("enforce start: unexpected argument '%s'", argv[optind]);

	struct plan pl;
	plan_make(&pl, mode, snapshot, false);
	const char *src = pl.set.snapshot ? pl.set.snapshot : "this machine";
	if (!pl.policy.watch) {
		printf("pmuguard: enforce: nothing to attach (mode %s, facts from %s): %s\n",
		       guard_mode_name(pl.policy.mode), src, pl.policy.reason);
		struct enf_status *st = calloc(1, sizeof(*st));
		if (st && enf_status_read(ENF_PIN_DIR, st, false) == 0 && st->attached)
			printf("pmuguard: enforce: an earlier start is still attached (%s, mode %s); "
			       "`pmuguard enforce stop` removes it\n",
			       enf_attach_name(st->attach), guard_mode_name(st->cfg.mode));
		free(st);
		free(pl.f);
		return EXIT_OK;
	}
	struct pmug_enf_config cfg;
	enf_config_fill(&cfg, &pl.policy, pl.v.state, attach, time(NULL));
	struct enf_result *r = calloc(1, sizeof(*r));
	if (!r)
		die_errno("out of memory");
	int err = enf_start(&cfg, ENF_PIN_DIR, r);
	int rc = EXIT_OK;
	if (err) {
		fprintf(stderr,
			"pmuguard: enforce: could not attach the kernel guard: %s. Nothing of this "
			"start was left attached or pinned (a guard an earlier start attached is "
			"unchanged); the preload and `pmuguard run` still guard what they reach.\n",
			r->why);
		hint(err);
		if (pl.set.log == GUARD_LOG_DEBUG && r->log[0])
			fprintf(stderr, "pmuguard: enforce: libbpf said:\n%s", r->log);
		rc = EXIT_ENFORCE_FAILED;
	} else {
		printf("pmuguard: enforce: %s (%s, %s, mode %s, core PMU types ",
		       r->already ? "already attached" : r->replaced ? "replaced and attached"
									: "attached",
		       enf_attach_name(r->attach), cfg.enforce ? "denying with ENOENT" : "audit only",
		       guard_mode_name(pl.policy.mode));
		print_types(stdout, cfg.core_types, cfg.n_core);
		printf(", facts from %s): %s\n", src, pl.policy.reason);
		/* After the attach: from here on no event of the class can be
		 * allocated, so what the iterator finds is all there will be. */
		rc = report_existing("pmuguard: enforce: ", "  ", &cfg);
	}
	free(r);
	free(pl.f);
	return rc;
}

static int do_stop(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		die_usage("enforce stop takes no arguments");
	char why[512] = "";
	int err = enf_stop(ENF_PIN_DIR, why, sizeof(why));
	if (err == -ENOENT) {
		printf("pmuguard: enforce: nothing was attached (%s)\n", why);
		return EXIT_OK;
	}
	if (err) {
		fprintf(stderr, "pmuguard: enforce: stop: %s\n", why);
		return EXIT_INTERNAL;
	}
	printf("pmuguard: enforce: stopped; %s is unpinned and the guard detached\n",
	       ENF_PIN_DIR);
	return EXIT_OK;
}

static const char *yesno(int v)
{
	return v > 0 ? "yes" : v == 0 ? "no" : "unknown";
}

/* The kernel's side, for "why nothing is attached". */
static void print_kernel(void)
{
	char buf[512];
	long n = probe_read_small(ENF_LSM_LIST, buf, sizeof(buf));
	int lsm = n < 0 ? -1 : enf_lsm_listed(buf, (size_t)n);
	struct statfs sfs;
	int bpffs = statfs(ENF_BPFFS, &sfs) < 0 ? -1 : (unsigned long)sfs.f_type == BPF_FS_MAGIC;
	printf("  kernel: BTF %s; BPF LSM active: %s", access(ENF_BTF, R_OK) == 0 ? "yes" : "no",
	       yesno(lsm));
	if (n >= 0)
		printf(" (lsm=%s)", buf);
	else
		printf(" (%s: %s)", ENF_LSM_LIST, strerror((int)-n));
	printf("; bpffs at %s: %s\n", ENF_BPFFS, bpffs > 0 ? "mounted" : "not mounted");
}

static int do_status(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		die_usage("enforce status takes no arguments");
	struct enf_status *st = calloc(1, sizeof(*st));
	if (!st)
		die_errno("out of memory");
	int err = enf_status_read(ENF_PIN_DIR, st, false);
	if (err) {
		fprintf(stderr, "pmuguard: enforce: status: %s\n", st->why);
		free(st);
		return EXIT_INTERNAL;
	}
	if (!st->attached) {
		struct plan pl;
		plan_make(&pl, -1, NULL, true);
		printf("pmuguard enforce: not attached: %s\n", st->why);
		printf("  policy: %s (mode %s): %s\n",
		       pl.policy.watch ? "would attach" : "nothing to attach",
		       guard_mode_name(pl.policy.mode), pl.policy.reason);
		print_kernel();
		free(pl.f);
		free(st);
		return EXIT_NOT_ATTACHED;
	}
	const struct pmug_enf_config *c = &st->cfg;
	char when[64] = "?";
	time_t t = (time_t)c->started;
	struct tm tm;
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	printf("pmuguard enforce: attached (%s: %s), since %s\n", enf_attach_name(st->attach),
	       st->attach == PMUG_ENF_ATTACH_LSM ? "BPF LSM hook perf_event_alloc"
						 : "fmod_ret on security_perf_event_alloc",
	       when);
	printf("  mode: %s (%s); facts: %s\n", guard_mode_name((enum guard_mode)c->mode),
	       c->enforce ? "deny with ENOENT" : "audit: count, allow",
	       probe_state_name((enum probe_state)c->state));
	printf("  core PMU types: ");
	print_types(stdout, c->core_types, c->n_core);
	printf("\n  program: id %" PRIu32 ", link id %" PRIu32 ", %" PRIu32
	       " instructions (xlated), %" PRIu32 " bytes jited\n",
	       st->prog_id, st->link_id, st->xlated_insns, st->jited_bytes);
	if (st->run_cnt)
		printf("  runs: %" PRIu64 ", %" PRIu64 " ns on average (kernel.bpf_stats_enabled)\n",
		       st->run_cnt, st->run_time_ns / st->run_cnt);
	int rc = report_existing("  ", "    ", c);
	const struct pmug_enf_totals *tt = &st->totals;
	printf("  denied: %llu, audited: %llu, reports lost: %llu, keys not counted: %llu\n",
	       tt->denied, tt->audited, tt->lost_events, tt->lost_keys);
	if (st->n_counts) {
		printf("  by encoding:\n");
		for (unsigned i = 0; i < st->n_counts; i++) {
			const struct enf_count *e = &st->counts[i];
			char comm[17];
			sanitize_comm(comm, e->val.last_comm);
			printf("    %-7s uid %-6u type %-3u config 0x%04x  calls %-6llu last %s[%u]: "
			       "%s\n",
			       e->key.denied ? "denied" : "audited", e->key.uid, e->key.pmu_type,
			       e->key.code, e->val.calls, comm, e->val.last_pid,
			       guard_hit_name(guard_rule_config(e->key.code), e->key.code));
		}
		if (st->n_counts_total > st->n_counts)
			printf("    (%u more)\n", st->n_counts_total - st->n_counts);
		/* Per uid: the sum over encodings. */
		printf("  by uid:\n");
		for (unsigned i = 0; i < st->n_counts; i++) {
			bool first = true;
			for (unsigned j = 0; j < i && first; j++)
				first = st->counts[j].key.uid != st->counts[i].key.uid;
			if (!first)
				continue;
			unsigned long long den = 0, aud = 0;
			for (unsigned j = i; j < st->n_counts; j++)
				if (st->counts[j].key.uid == st->counts[i].key.uid)
					*(st->counts[j].key.denied ? &den : &aud) += st->counts[j].val.calls;
			printf("    uid %u: %llu denied, %llu audited\n", st->counts[i].key.uid, den,
			       aud);
		}
	}
	free(st);
	return rc;
}

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

struct follow {
	struct guard_policy policy;
	unsigned attach;
	bool journal; /* stdout is the journal: send entries with fields instead */
};

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

/* One line per (process, encoding): the shim's words, then what only the
 * kernel knows. */
static void on_event(void *ctx, const struct pmug_enf_event *e)
{
	const struct follow *fo = ctx;
	struct guard_decision d = {.hit = (enum guard_hit)e->hit,
				   .deny = e->denied != 0,
				   .report = true,
				   .type = e->attr_type,
				   .config = e->attr_config};
	char comm[17];
	memcpy(comm, e->comm, 16);
	comm[16] = '\0';
	struct logline l;
	guard_format_denial(&l, &fo->policy, &d, comm, (pid_t)e->tgid);
	log_str(&l, " [kernel ");
	log_str(&l, enf_attach_name(fo->attach));
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
	struct log_report r;
	guard_report_fields(&r, &d, GUARD_LAYER_KERNEL, comm, (pid_t)e->tgid, (uid_t)e->uid);
	if (!fo->journal || !log_system(&l, sizeof("pmuguard: ") - 1, &r))
		log_emit(&l, STDOUT_FILENO);
}

/* Read what is attached, with its ring buffer: EXIT_OK, or the exit code
 * and a line on stderr. */
static int follow_open(struct enf_status *st)
{
	int err = enf_status_read(ENF_PIN_DIR, st, true);
	if (err || !st->attached) {
		fprintf(stderr, "pmuguard: enforce: follow: %s\n",
			st->why[0] ? st->why : "nothing is attached");
		return err ? EXIT_INTERNAL : EXIT_NOT_ATTACHED;
	}
	if (st->events_fd < 0) {
		fprintf(stderr, "pmuguard: enforce: follow: the attached program has no ring "
				"buffer this pmuguard can read\n");
		return EXIT_INTERNAL;
	}
	return EXIT_OK;
}

static int do_follow(void)
{
	struct enf_status *st = calloc(1, sizeof(*st));
	if (!st)
		die_errno("out of memory");
	int rc = follow_open(st);
	if (rc != EXIT_OK) {
		free(st);
		return rc;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	bool journal = stdout_is_journal();
	const char *verb = "following denials";
	for (;;) {
		struct follow fo = {.attach = st->attach, .journal = journal};
		/* The reason sentence: the live policy's, as the shim would say it. */
		struct plan pl;
		plan_make(&pl, (int)st->cfg.mode, NULL, true);
		fo.policy = pl.policy;
		if (!pl.policy.watch)
			fo.policy.reason = "pmuguard enforce was started with these rules";
		printf("pmuguard: enforce: %s (%s, mode %s)\n", verb, enf_attach_name(st->attach),
		       guard_mode_name((enum guard_mode)st->cfg.mode));
		fflush(stdout);
		int err = enf_follow(st->events_fd, st->link_id, ENF_PIN_DIR, on_event, &fo,
				     should_stop);
		close(st->events_fd);
		free(pl.f);
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
			printf("pmuguard: enforce: stopped (unpinned); no more denials to follow\n");
		} else if (err) {
			fprintf(stderr, "pmuguard: enforce: follow: %s\n", strerror(-err));
			rc = EXIT_INTERNAL;
		}
		break;
	}
	free(st);
	return rc;
}

int cmd_enforce(int argc, char **argv)
{
	if (argc < 2)
		die_usage("enforce: start, stop, status or follow is required");
	const char *sub = argv[1];
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	if (!strcmp(sub, "start"))
		return do_start(argc - 1, argv + 1);
	if (!strcmp(sub, "stop"))
		return do_stop(argc - 1, argv + 1);
	if (!strcmp(sub, "status"))
		return do_status(argc - 1, argv + 1);
	if (!strcmp(sub, "follow") || !strcmp(sub, "--follow")) {
		if (argc > 2)
			die_usage("enforce follow takes no arguments");
		return do_follow();
	}
	die_usage("enforce: unknown subcommand '%s' (start, stop, status or follow)", sub);
}
#endif
