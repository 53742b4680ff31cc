// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmuguard canary: this process's own answer to the hazard class, as every
 * process on the host meets it.  `pmuguard status` starts it as an
 * unprivileged user with a clean environment, so that the preload is
 * counted only where it was seen to refuse: the policy (mode, lock,
 * snapshot), the verdict, and whether the loader loads the library for
 * such a user all decide here, as they do for the processes it protects.
 *
 * The calls are made in a dynamically linked process, pmuguard-canary
 * (../../shim/canary_calls.c, installed beside the library), which the
 * host's loader starts with /etc/ld.so.preload and LD_PRELOAD as it starts
 * every process: the portable command is static, and no loader preloads
 * anything into it.  Where the helper is not found (a distribution's
 * dynamic build run from elsewhere), the calls are made here.
 *
 * Each call is harmless whatever answers it (decide.h): a topdown metric
 * (fixed counter 3's class) and TOPDOWN_BAD_SPECULATION.ALL (fixed counter
 * 4's, E-cores) on every core PMU, with a group descriptor that cannot
 * exist.  A guard in the process answers ENOENT; the kernel answers EBADF
 * before it allocates anything.
 *
 * What it saw is one document (canary_walk(), ../doc/schema/canary.schema.json),
 * KEY=VALUE lines (what status reads) or, with --json, one JSON object.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "decide.h"
#include "probe.h"
#include "settings.h"

/* The schema of the document: raised when a key changes meaning. */
#define CANARY_SCHEMA 1
/* Calls made: PERF_TYPE_RAW and at most 4 core PMUs, two configs each. */
#define CANARY_TYPES 5
#define CANARY_CALLS 12

/* perf_event_attr's first 64 bytes (PERF_ATTR_SIZE_VER0): type, size,
 * config, the flags word at 40 (disabled, exclude_kernel, exclude_hv), and
 * config1 at 56, which carries the mark (decide.h). */
struct canary_attr {
	uint32_t type, size;
	uint64_t config, sample_period, sample_type, read_format, flags, wakeup_bp, config1;
};

static bool library_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	bool found = false;
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, "/libpmuguard.so") != NULL;
	if (f)
		fclose(f);
	return found;
}

extern char **environ;

/* pmuguard-canary beside the library: where an installed command finds
 * it (PMUGUARD_REL_LIBDIR), or in the build tree; NULL where there is none. */
static bool helper_path(char *out, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	static const char *const rel[] = {PMUGUARD_REL_LIBDIR "/pmuguard-canary",
					  "../../shim/pmuguard-canary"};
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++)
		if (snprintf(out, size, "%s/%s", exe, rel[i]) < (int)size && access(out, X_OK) == 0)
			return true;
	return false;
}

/* The calls made by the helper: its answers (result, errno) into r and e,
 * and whether the library was in its maps; false where it did not answer
 * every call (then they are made here). */
static bool helper_calls(const char *helper, const uint32_t *types, unsigned nt,
			 const uint64_t *configs, size_t nc, long *r, int *e, bool *mapped)
{
	char args[CANARY_CALLS][48], group[24], mark[24];
	char *argv[16];
	unsigned k = 0, calls = 0;
	snprintf(group, sizeof(group), "%ld", (long)GUARD_REPORT_GROUP_FD);
	snprintf(mark, sizeof(mark), "0x%llx", (unsigned long long)GUARD_CANARY_MARK);
	argv[k++] = (char *)helper;
	argv[k++] = group;
	argv[k++] = mark;
	for (unsigned t = 0; t < nt; t++)
		for (size_t c = 0; c < nc && calls < CANARY_CALLS; c++, calls++) {
			snprintf(args[calls], sizeof(args[calls]), "%u:0x%llx", types[t],
				 (unsigned long long)configs[c]);
			argv[k++] = args[calls];
		}
	argv[k] = NULL;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return false;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	pid_t pid;
	int rc = posix_spawn(&pid, helper, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		return false;
	}
	FILE *f = fdopen(fds[0], "r");
	char line[128];
	unsigned got = 0;
	bool head = false;
	while (f && fgets(line, sizeof(line), f)) {
		if (!head) {
			head = !strncmp(line, "mapped=", 7);
			*mapped = head && line[7] == '1';
			continue;
		}
		if (got < calls && sscanf(line, "%ld %d", &r[got], &e[got]) == 2)
			got++;
	}
	if (f)
		fclose(f);
	else
		close(fds[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return head && got == calls && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* PERF_TYPE_RAW and the core PMUs' types, as the probe reads them from
 * sysfs (probe_sysfs: the PMU names the kernel registers, nothing else). */
static unsigned core_types(uint32_t *types, unsigned max)
{
	struct probe_facts *f = calloc(1, sizeof(*f));
	if (!f)
		die_errno("out of memory");
	unsigned n = 0;
	types[n++] = 4;
	probe_sysfs(f, "/sys/bus/event_source/devices", false);
	for (unsigned i = 0; i < f->n_pmus && n < max; i++)
		if (f->pmus[i].type != 4)
			types[n++] = f->pmus[i].type;
	free(f);
	return n;
}

/* What the canary saw, gathered before anything prints. */
struct canary_doc {
	unsigned uid;
	bool mapped;
	const char *made_by; /* "pmuguard-canary", "pmuguard" */
	struct canary_call {
		uint32_t type;
		char config[24];    /* "0x8000" */
		const char *answer; /* "refused", "kernel", "opened" */
		int err;
	} calls[CANARY_CALLS];
	unsigned n_calls;
	bool refused;
	/* What of the policy file the guard does not take (status says the
	 * policy has such lines), and whether this process's environment
	 * could have switched the guard off (PMUGUARD_MODE=off): not under a
	 * lock (status says "not locked"). */
	char *ignored[GUARD_MAX_IGNORED];
	unsigned n_ignored;
	bool locked;
	const char *lock_why;
};

static void canary_walk(const struct doc_sink *d, const void *arg)
{
	const struct canary_doc *c = arg;
	doc_open_schema(d, CANARY_SCHEMA);
	doc_uint(d, "uid", c->uid);
	doc_bool(d, "library_mapped", c->mapped);
	doc_str(d, "calls_made_by", c->made_by);
	doc_open(d, "calls", true);
	for (unsigned i = 0; i < c->n_calls; i++) {
		doc_open(d, NULL, false);
		doc_uint(d, "type", c->calls[i].type);
		doc_str(d, "config", c->calls[i].config);
		doc_str(d, "answer", c->calls[i].answer);
		doc_uint(d, "errno", (unsigned)c->calls[i].err);
		doc_end(d);
	}
	doc_end(d);
	doc_bool(d, "refused", c->refused);
	doc_open(d, "policy", false);
	doc_open(d, "ignored", true);
	for (unsigned i = 0; i < c->n_ignored; i++)
		doc_str(d, NULL, c->ignored[i]);
	doc_end(d);
	doc_bool(d, "locked", c->locked);
	doc_str_or_null(d, "lock_why", c->lock_why);
	doc_end(d);
	doc_end(d);
}

int cmd_canary(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_FORM_OPTIONS,
		CLI_HELP_OPTION_END,
	};
	enum doc_form form = DOC_FORM_TEXT;
	int ch;
	while ((ch = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (ch) {
		case CLI_OPT_JSON:
		case CLI_OPT_KEYS: cli_form_option(&form, ch, "canary"); break;
		case 'h':
			fputs("Usage: pmuguard canary [--json|--keys]\n"
			      "\n"
			      "Ask, from this process, whether a guard in it refuses the hazard class:\n"
			      "harmless perf_event_open calls (a group descriptor that cannot exist, so\n"
			      "the kernel allocates nothing) that the preload answers as it would answer\n"
			      "a tool. pmuguard status runs it as an unprivileged user with a clean\n"
			      "environment. Prints key=value lines, first schema=1 (--keys, the\n"
			      "default), or one JSON object (--json, canary.schema.json).\n"
			      "\n"
			      "Exit: 0 refused (a guard in the process answered); 3 nothing refused it;\n"
			      "1 internal error; 2 usage.\n",
			      stdout);
			return EXIT_OK;
		default: die_bad_option("canary", argv, "h");
		}
	}
	if (optind < argc)
		die_usage("canary: no arguments are taken");
	if (form == DOC_FORM_TEXT) /* data alone: the keys, unless --json */
		form = DOC_FORM_KEYS;
	static const uint64_t configs[] = {0x8000, 0x0073};
	uint32_t types[CANARY_TYPES];
	unsigned nt = core_types(types, CANARY_TYPES);
	const size_t nc = sizeof(configs) / sizeof(configs[0]);
	long hr[CANARY_CALLS];
	int he[CANARY_CALLS];
	char helper[PATH_MAX];
	bool mapped = false;
	bool by_helper = helper_path(helper, sizeof(helper)) &&
			 helper_calls(helper, types, nt, configs, nc, hr, he, &mapped);
	struct canary_doc c = {.uid = (unsigned)getuid(),
			       .made_by = by_helper ? "pmuguard-canary" : "pmuguard"};
	c.mapped = by_helper ? mapped : library_mapped();
	for (unsigned t = 0; t < nt; t++) {
		for (size_t k = 0; k < nc && c.n_calls < CANARY_CALLS; k++) {
			unsigned call = c.n_calls++;
			long r;
			int e;
			if (by_helper) {
				r = hr[call], e = he[call];
			} else {
				struct canary_attr a = {.type = types[t],
							.size = sizeof(a),
							.config = configs[k],
							.flags = 1 | 1u << 5 | 1u << 6,
							.config1 = GUARD_CANARY_MARK};
				errno = 0;
				r = syscall(SYS_perf_event_open, &a, 0L, -1L, GUARD_REPORT_GROUP_FD,
					    0L);
				e = r < 0 ? errno : 0;
				if (r >= 0)
					close((int)r); /* never: the group cannot exist */
			}
			struct canary_call *cc = &c.calls[call];
			cc->type = types[t];
			snprintf(cc->config, sizeof(cc->config), "0x%04llx",
				 (unsigned long long)configs[k]);
			cc->answer = r >= 0 ? "opened" : e == ENOENT ? "refused" : "kernel";
			cc->err = e;
			c.refused |= e == ENOENT;
		}
	}
	struct guard_cli none = {.mode = -1};
	struct guard_settings set;
	cli_settings(&set, &none, true, NULL);
	for (unsigned i = 0; i < set.n_ignored && i < GUARD_MAX_IGNORED; i++)
		if (asprintf(&c.ignored[c.n_ignored], "%s%s%s", set.ignored[i].what,
			     set.ignored[i].value, set.ignored[i].why) >= 0)
			c.n_ignored++;
	c.locked = set.locked;
	if (set.lock_why)
		c.lock_why = set.lock_why[0] == ':' ? set.lock_why + 2 : set.lock_why;
	doc_write(stdout, form, canary_walk, &c);
	for (unsigned i = 0; i < c.n_ignored; i++)
		free(c.ignored[i]);
	return c.refused ? EXIT_OK : EXIT_HAZARD;
}
