// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmuguard probe: the machine's PMU in plain words, as one JSON object, or
 * as KEY=VALUE lines.  This file parses the arguments, gathers, and hands
 * the one model (../report/report.h) to the text renderer, or its walker
 * (../report/document.c) to ../doc/'s writers.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"
#include "settings.h"

/* --dmesg FILE must be a file we can read: a typo is an error (exit 1,
 * naming it), not a report of unknown facts. */
static void require_log_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		die_errno("kernel log %s", path);
	struct stat st;
	if (fstat(fd, &st) < 0)
		die_errno("kernel log %s", path);
	close(fd);
	if (!S_ISREG(st.st_mode))
		die("kernel log %s: not a regular file", path);
}

/* What the command line asked for. */
struct probe_args {
	enum doc_form form;
	bool check, quiet, as_locked;
	const char *snapshot; /* --snapshot, or NULL */
};

static const char probe_usage[] =
	"Usage: pmuguard probe [--json|--keys] [--check [-q]] [--msr] "
	"[--snapshot DIR] [--dmesg FILE]\n"
	"                      [--as-locked]\n"
	"\n"
	"What this machine's PMU really implements, in plain words: the facts,\n"
	"the verdict, and findings with cause, consequence and remedy.\n"
	"  --json           one JSON object (schema 4; keys: probe/report/README.md)\n"
	"  --keys           the same, one KEY=VALUE a line for shells: keys are\n"
	"                   JSON paths (machine.words, pmus.0.name), null is empty,\n"
	"                   control characters, \\ and bytes that are not UTF-8\n"
	"                   are \\xHH; first schema=4\n"
	"  --check          exit 3 where the fixed-counter-3 hazard is present\n"
	"  -q, --quiet      with --check: print nothing on stdout, only the exit\n"
	"                   status says (errors still go to stderr)\n"
	"  --msr            show IA32_PERF_CAPABILITIES and IA32_FIXED_CTR3 (root,\n"
	"                   the msr module; reads only)\n"
	"  --snapshot DIR   read the facts from a snapshot (pmuguard snapshot); a NAME\n"
	"                   without '/' that is no directory here: a reference\n"
	"                   snapshot (pmuguard snapshot --list)\n"
	"  --dmesg FILE     diagnose from a kernel log alone (or with --snapshot)\n"
	"  --as-locked      take the settings as under lock = yes, which the caller\n"
	"                   is about to set (pmuguard-fleet install): what the\n"
	"                   environment may not change then is ignored, and said\n"
	"\n"
	"Exit: 0 report printed (--check: no hazard); 3 hazard present (--check;\n"
	"also on a verdict from a kernel log alone); 1 internal error, or a\n"
	"snapshot or --dmesg FILE that cannot be read; 2 usage.\n";

/* The options into a and in (--msr, --dmesg); false after --help. */
static bool probe_parse(int argc, char **argv, struct probe_args *a, struct report_input *in)
{
	static const struct option opts[] = {
		CLI_FORM_OPTIONS,
		{"check", no_argument, NULL, 'c'},
		{"quiet", no_argument, NULL, 'q'},
		{"msr", no_argument, NULL, 'm'},
		{"snapshot", required_argument, NULL, 's'},
		{"dmesg", required_argument, NULL, 'd'},
		{"as-locked", no_argument, NULL, 'L'},
		CLI_HELP_OPTION_END,
	};
	int ch;
	while ((ch = getopt_long(argc, argv, "+jkcqms:d:Lh", opts, NULL)) != -1) {
		switch (ch) {
		case CLI_OPT_JSON:
		case CLI_OPT_KEYS: cli_form_option(&a->form, ch, "probe"); break;
		case 'c': a->check = true; break;
		case 'q': a->quiet = true; break;
		case 'm': in->msr_asked = true; break;
		case 's': a->snapshot = optarg; break;
		case 'd': in->dmesg = optarg; break;
		case 'L': a->as_locked = true; break;
		case 'h': fputs(probe_usage, stdout); return false;
		default: die_bad_option("probe", argv, "jkcqms:d:Lh");
		}
	}
	if (optind < argc)
		die_usage("probe: unexpected argument '%s'", argv[optind]);
	/* -q is for `if pmuguard probe --check -q`: the answer is the status,
	 * so it goes only with --check, and a document asked for too is a
	 * contradiction, not something to drop in silence. */
	if (a->quiet && !a->check)
		die_usage("probe: --quiet goes with --check (the exit status is the answer)");
	if (a->quiet && a->form != DOC_FORM_TEXT)
		die_usage("probe: --quiet prints nothing; it cannot go with --%s",
			  a->form == DOC_FORM_JSON ? "json" : "keys");
	return true;
}

/* A snapshot must be a folder we can open and search: one the caller may
 * not read (`pmuguard snapshot` writes 0700: a colleague's, unpacked by
 * root) is an error (exit 1, naming it), not a report of unknown facts
 * that --check would call "no hazard". */
static void require_snapshot_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		die_errno("snapshot %s", path);
	if (faccessat(fd, ".", X_OK, AT_EACCESS) != 0)
		die_errno("snapshot %s: its files cannot be reached", path);
	close(fd);
}

/* What the command line names is what is diagnosed: --snapshot, or with
 * --dmesg alone nothing of this machine, or with --msr this machine.
 * Without any of them, the facts the guard would read (PMUGUARD_SNAPSHOT,
 * the policy file's snapshot, under its lock; else this machine), through
 * the one resolver. */
static void probe_sources(const struct probe_args *a, struct report_input *in)
{
	in->snapshot = a->snapshot && *a->snapshot ? a->snapshot : NULL;
	/* The settings' snapshot is this machine's facts pinned (fleet mode):
	 * what runs here is still this machine's. */
	in->this_machine = !in->snapshot && !in->dmesg;
	/* Read once: the settings' snapshot where the command line names
	 * none, and where a NAME is looked up whenever there is one. */
	bool from_settings = !in->snapshot && !in->dmesg && !in->msr_asked;
	struct guard_settings set = {0};
	if (from_settings || in->snapshot) {
		struct guard_cli cli = {.mode = -1, .locking = a->as_locked};
		cli_settings(&set, &cli, !from_settings, NULL);
	}
	if (from_settings)
		in->snapshot = set.snapshot;
	if (in->snapshot && in->msr_asked)
		die_usage("probe: --msr reads this machine; it cannot go with a snapshot");
	if (in->dmesg && in->msr_asked)
		die_usage("probe: --msr reads this machine; it cannot go with --dmesg");
	if (in->dmesg && !*in->dmesg)
		die_usage("probe: --dmesg needs a file");
	if (in->snapshot)
		in->snapshot = cli_snapshot_path(in->snapshot, set.snapshot_dir);
	if (in->snapshot)
		require_snapshot_dir(in->snapshot);
	if (in->dmesg)
		require_log_file(in->dmesg);
}

/* A read that failed: the caller may not read the file (a snapshot's, a
 * restricted kernel log), a loop of links, an I/O error, a path too long,
 * a resource short.  Not a file that is absent (an unknown fact the
 * snapshot format allows: a dmesg-only snapshot), nor one read and not
 * understood or refused as junk (EINVAL, EFBIG: no cpuid -r dump, a FIFO,
 * a giant): those are unknown facts, as they always were. */
static bool read_failed(int err)
{
	static const int failed[] = {EACCES, EPERM,  EIO,    ELOOP,	 ENAMETOOLONG,
				     EMFILE, ENFILE, ENOMEM, EOVERFLOW, EINTR};
	for (size_t i = 0; i < sizeof(failed) / sizeof(failed[0]); i++)
		if (err == -failed[i])
			return true;
	return false;
}

/* A fact whose read failed (read_failed()): its name and error, or NULL.
 * Such a failure may hide the hazard, so it never reads as "no hazard"
 * (cli_probe_unread_exit).  The MSRs and DMI strings are not the
 * verdict's. */
static const char *read_failure(const struct probe_facts *f, int *err)
{
	const struct {
		unsigned what;
		int err;
		const char *name;
	} reads[] = {
		{PROBE_KNOWN_CPUID, f->cpuid_err, "CPUID (cpuid.txt)"},
		{PROBE_KNOWN_SYSFS | PROBE_KNOWN_SYSFS_EVENTS, f->sysfs_err,
		 "the PMUs in sysfs (sys/bus/event_source/devices)"},
		{PROBE_KNOWN_KLOG, f->klog_err, "the kernel log"},
	};
	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		if (!(f->tried & reads[i].what) || !read_failed(reads[i].err))
			continue;
		*err = -reads[i].err;
		return reads[i].name;
	}
	return NULL;
}

/* What the exit says where the facts were not all read (README, Exit
 * codes): never 0 ("no hazard") where a read failed and the hazard was not
 * found.  A snapshot (or --dmesg FILE) that cannot be read is exit 1 in
 * every form; live, an unknown verdict with a failed read is exit 1 for
 * --check (what cannot be read here, root may read: the plain report says
 * so, and exits 0 for "printed").  -1 where the reads say nothing against
 * the exit the verdict gives; also status's probe (status_observe.c). */
int cli_probe_unread_exit(const struct report_input *in, const struct report *r, bool check)
{
	int err = 0;
	const char *what = read_failure(&in->f, &err);
	if (!what || r->hazard)
		return -1;
	if (in->snapshot || in->dmesg) {
		warn_msg("%s %s: %s cannot be read (%s): no verdict can rest on it",
			 in->snapshot ? "snapshot" : "kernel log", in->snapshot ? in->snapshot : in->dmesg,
			 what, strerror(err));
		return EXIT_INTERNAL;
	}
	bool unknown = !strcmp(r->state, "unknown") || !strcmp(r->guard_state, "unknown");
	if (!check || !unknown)
		return -1;
	warn_msg("probe --check: the verdict is unknown: %s cannot be read (%s)%s", what,
		 strerror(err), getuid() != 0 ? "; run it as root for the full picture" : "");
	return EXIT_INTERNAL;
}

int cmd_probe(int argc, char **argv)
{
	/* What was read, and the model built from it (which points into it). */
	struct report_input *in = calloc(1, sizeof(*in));
	struct report *r = calloc(1, sizeof(*r));
	if (!in || !r)
		die_errno("out of memory");
	struct probe_args a = {0};
	if (!probe_parse(argc, argv, &a, in)) {
		free(r);
		free(in);
		return EXIT_OK;
	}
	probe_sources(&a, in);
	report_gather(in);
	report_build(r, in);
	r->version = PMUGUARD_VERSION;
	doc_utc_now(r->generated_at, sizeof(r->generated_at));
	/* The gather read the MSRs (live); --msr shows them. */
	if (r->msr.missing)
		fprintf(stderr, "pmuguard: /dev/cpu/0/msr is missing: `modprobe msr` first\n");

	if (a.form != DOC_FORM_TEXT)
		doc_write(stdout, a.form, report_walk, r);
	else if (!a.quiet)
		report_render_text(stdout, r);
	int rc = a.check && r->hazard ? EXIT_HAZARD : EXIT_OK;
	int failed = cli_probe_unread_exit(in, r, a.check);
	if (failed >= 0)
		rc = failed;
	free(r);
	free(in);
	if (fflush(stdout) != 0)
		die_errno("writing the report");
	return rc;
}
