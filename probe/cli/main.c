// SPDX-License-Identifier: GPL-2.0-or-later
/* pmuguard: the command.  One file per subcommand; this one dispatches. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "report.h"

void fput_safe(const char *s, FILE *out)
{
	report_put_safe(out, s);
}

void cli_utc_now(char *buf, size_t size)
{
	time_t t = time(NULL);
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	if (sde && *sde) {
		char *end;
		errno = 0;
		long long v = strtoll(sde, &end, 10);
		if (!*end && !errno && v >= 0)
			t = (time_t)v;
	}
	struct tm tm;
	if (!size || !gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		if (size)
			buf[0] = '\0';
}

/* One line on stderr, whatever the values in it hold: paths and variables
 * come from outside, and a newline in one must not start a line of its own
 * (the same escaping as log_str_safe in the shim). */
static void vmsg(const char *fmt, va_list ap, int err)
{
	char *text = NULL;
	fputs("pmuguard: ", stderr);
	if (vasprintf(&text, fmt, ap) >= 0) {
		fput_safe(text, stderr);
		free(text);
	} else {
		fputs("(out of memory formatting a message)", stderr);
	}
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void warn_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	exit(EXIT_INTERNAL);
}

void die_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap, err);
	va_end(ap);
	exit(EXIT_INTERNAL);
}

void die_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	fputs("Try 'pmuguard --help'.\n", stderr);
	exit(EXIT_USAGE);
}

void die_bad_option(const char *cmd, char **argv, const char *optstring)
{
	/* getopt's own messages are off (opterr = 0 in main): one prefix.  An
	 * unknown long option leaves optopt 0; a known one, or a short one in
	 * optstring, that getopt refused lacks its argument. */
	const char *arg = optind > 0 ? argv[optind - 1] : "?";
	if (optopt && (!strncmp(arg, "--", 2) || strchr(optstring, optopt)))
		die_usage("%s: option '%s' needs an argument", cmd,
			  !strncmp(arg, "--", 2) ? arg : (char[]){'-', (char)optopt, '\0'});
	if (optopt)
		die_usage("%s: unrecognized option '-%c'", cmd, optopt);
	die_usage("%s: unrecognized option '%s'", cmd, arg);
}

static const char usage[] =
	"Usage: pmuguard COMMAND [ARGS]\n"
	"\n"
	"Keeps perf tools away from PMU counters a cloud guest advertises but does\n"
	"not implement (fixed counter 3, TOPDOWN.SLOTS, on AWS m6i and kin; the\n"
	"E-cores' fixed counters 4-6 where a guest's CPUID claims them).\n"
	"\n"
	"Commands:\n"
	"  probe [--json|--keys] [--check [-q]] [--msr] [--snapshot DIR] [--dmesg FILE]\n"
	"                      explain this machine's PMU: facts, verdict, findings\n"
	"  snapshot DIR        capture this machine's PMU facts for --snapshot\n"
	"  snapshot --list     the reference snapshots --snapshot NAME finds\n"
	"  run [--mode auto|preload|seccomp] [--audit] [--snapshot DIR] -- CMD [ARGS]\n"
	"                      run CMD guarded: by default a seccomp supervisor over\n"
	"                      the whole tree, plus the preload for dynamic programs;\n"
	"                      --audit blocks nothing and reports every call at exit\n"
	"  check PROGRAM...    say which guard fits each program, and why\n"
	"  enforce start [--mode auto|always|audit|off] [--snapshot DIR]\n"
	"  enforce stop | status | follow | agent | ready\n"
	"                      guard the whole host in the kernel (BPF on the\n"
	"                      perf_event_alloc LSM hook); follow prints each denial;\n"
	"                      agent and ready: a Kubernetes node agent and its probe\n"
	"  canary              does a guard in this process refuse the hazard class?\n"
	"                      (harmless calls; pmuguard-fleet status runs it)\n"
	"  -V, --version       print the version\n"
	"\n"
	"Exit codes (COMMAND --help: that command's):\n"
	"  0    ok; probe --check: no hazard\n"
	"  1    internal error, unreadable input, a program check could not read\n"
	"  2    usage\n"
	"  3    probe --check: the hazard is present\n"
	"  4    enforce start, agent: the kernel could not take the guard\n"
	"  5    enforce: built without kernel enforcement\n"
	"  6    enforce status, follow, ready: nothing attached\n"
	"  7    enforce start, status: attached, but perf events of the class opened\n"
	"       before it still exist (a warning)\n"
	"  8    enforce status, ready: attached, but the self-test failed\n"
	"  run: CMD's own status (128+N when killed by signal N); 126 CMD not\n"
	"  executable, 127 CMD not found; 1 nothing was run; 2 usage.\n";

int main(int argc, char **argv)
{
	if (argc < 2)
		die_usage("a command is required");
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		puts("pmuguard " PMUGUARD_VERSION);
		return EXIT_OK;
	}
	opterr = 0; /* die_bad_option() says it, with our prefix */
	if (!strcmp(cmd, "probe"))
		return cmd_probe(argc - 1, argv + 1);
	if (!strcmp(cmd, "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(cmd, "snapshot"))
		return cmd_snapshot(argc - 1, argv + 1);
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "enforce"))
		return cmd_enforce(argc - 1, argv + 1);
	if (!strcmp(cmd, "canary"))
		return cmd_canary(argc - 1, argv + 1);
	die_usage("unknown command '%s'", cmd);
}
