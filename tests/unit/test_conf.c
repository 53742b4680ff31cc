// SPDX-License-Identifier: GPL-2.0-or-later
/* /etc/pmuguard.conf: the parser and the precedence rules. */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "probe.h"
#include "settings.h"
#include "fixture.h"

static struct guard_conf parse(const char *const lines[], int n)
{
	struct guard_conf c;
	memset(&c, 0, sizeof(c));
	c.mode = -1;
	for (int i = 0; i < n; i++)
		guard_conf_line(&c, lines[i], strlen(lines[i]), i + 1);
	return c;
}

Test(conf, keys_values_comments)
{
	const char *l[] = {"# pmuguard policy", "", "  mode = always  # strict", "log=syslog",
			   "lock = yes", "\tmode\t=\taudit"};
	struct guard_conf c = parse(l, 6);
	cr_assert_eq(c.mode, GUARD_AUDIT, "the last mode line wins");
	cr_assert_eq(c.dest, GUARD_DEST_SYSLOG);
	cr_assert(c.lock);
	cr_assert_eq(c.bad_lines, 0);
}

Test(conf, snapshot_must_be_absolute)
{
	const char *l[] = {"snapshot = relative/dir", "snapshot = /var/lib/pmuguard/m6i"};
	struct guard_conf c = parse(l, 2);
	cr_assert_eq(c.bad_lines, 1);
	cr_assert_str_eq(c.snapshot, "/var/lib/pmuguard/m6i");
}

/* A NAME, as --snapshot and PMUGUARD_SNAPSHOT take it, is a reference
 * snapshot: joined to the installed ones once, never looked up in a
 * process's working directory; "." and ".." are no names. */
Test(conf, snapshot_by_name_is_a_reference_snapshot)
{
	const char *l[] = {"snapshot = m6i-16xlarge"};
	struct guard_conf c = parse(l, 1);
	cr_assert_eq(c.bad_lines, 0);
	char want[512];
	snprintf(want, sizeof(want), "%s/m6i-16xlarge", probe_snapshot_dir);
	cr_assert_str_eq(c.snapshot, want);
	const char *bad[] = {"snapshot = ..", "snapshot = .", "snapshot = .hidden"};
	c = parse(bad, 3);
	cr_assert_eq(c.bad_lines, 3);
	cr_assert_str_eq(c.snapshot, "");
}

Test(conf, garbage_is_counted_and_ignored)
{
	const char *l[] = {"mode = sometimes", "colour = blue", "lock", "= yes", "log = Stderr",
			   "mode = off"};
	struct guard_conf c = parse(l, 6);
	cr_assert_eq(c.bad_lines, 5);
	/* The bare "lock" line (3) names the lock: described first, read as
	 * locked (lock_unclear), never as lock = yes parsed. */
	cr_assert_eq(c.first_bad, 3);
	cr_assert_eq(c.more_bad[0], 1);
	cr_assert_eq(c.more_bad[1], 2);
	cr_assert(c.lock_unclear);
	cr_assert_eq(c.mode, GUARD_OFF);
	cr_assert_eq(c.dest, GUARD_DEST_DEFAULT);
	cr_assert_not(c.lock);
}

static void tail_of(const char *text, struct guard_conf *c);

/* A lock line that does not parse never loosens (issue 50, item 6): the
 * stricter reading, locked, whatever the typo, in whichever line, also
 * after lock = no and from a file others can write; the environment's
 * PMUGUARD_MODE=off is then ignored and said; lock = no and lock = yes as
 * written are what they say. */
Test(conf, lock_line_not_understood_locks)
{
	static const char *const typos[] = {
		"lock = ye",   "lock = Yes", "lock = 1",	 "lock = true", "lock=",
		"Lock = yes",  "LOCK = no",  "locked = yes", "lock yes",    "lock: yes",
		"lock = \"yes\"",
	};
	for (size_t i = 0; i < sizeof(typos) / sizeof(typos[0]); i++) {
		const char *lines[] = {"# site policy", "mode = auto", "colour = blue", typos[i]};
		struct guard_conf c = parse(lines, 4);
		cr_assert(c.lock_unclear, "'%s' is not read as a lock line", typos[i]);
		cr_assert_not(c.lock, "'%s'", typos[i]);
		cr_assert_eq(c.first_bad, 4, "'%s': the lock line is the one described", typos[i]);
		cr_assert_eq(c.bad_kind, GUARD_CONF_BAD_LOCK, "'%s'", typos[i]);
		cr_assert_eq(c.more_bad[0], 3, "'%s'", typos[i]);
		for (int untrusted = 0; untrusted < 2; untrusted++) {
			c.untrusted = untrusted;
			struct guard_env env = {.visible = true, .mode = "off", .snapshot = "/tmp/s"};
			struct guard_cli cli = {.mode = -1};
			struct guard_settings s;
			guard_settings_resolve(&c, 0, &env, &cli, true, &s);
			cr_assert(s.locked, "'%s' (untrusted %d): not locked", typos[i], untrusted);
			cr_assert_eq(s.mode, GUARD_AUTO, "'%s': PMUGUARD_MODE=off loosened it",
				     typos[i]);
			cr_assert_null(s.snapshot, "'%s': PMUGUARD_SNAPSHOT moved the facts",
				       typos[i]);
		}
	}
	struct guard_conf c;
	tail_of("mode = auto\nlock = no\nlock = ye\n", &c);
	cr_assert(c.lock_unclear);
	cr_assert(strstr(c.bad_where, ":3 (a lock line that says neither lock = yes nor lock = no: '"),
		  "%s", c.bad_where);
	cr_assert_str_eq(c.bad_word, "ye");
	cr_assert_str_eq(c.bad_tail, "'): read as lock = yes, the stricter reading; the rest applies");
	struct guard_env env = {.visible = true, .mode = "off"};
	struct guard_cli cli = {.mode = -1};
	struct guard_settings s;
	guard_settings_resolve(&c, 0, &env, &cli, true, &s);
	cr_assert(s.locked, "lock = no before lock = ye: the stricter reading is locked");
	cr_assert_eq(s.mode, GUARD_AUTO);
	/* As written, each says what it says. */
	static const char *const no[] = {"lock = no", "mode = auto"};
	c = parse(no, 2);
	cr_assert_not(c.lock_unclear);
	guard_settings_resolve(&c, 0, &env, &cli, true, &s);
	cr_assert_not(s.locked);
	cr_assert_eq(s.mode, GUARD_OFF);
	static const char *const yes[] = {"lock = yes", "blocked = 1"};
	c = parse(yes, 2);
	cr_assert(c.lock && !c.lock_unclear, "'blocked' names no lock");
}

/* Each line not understood can be found: the first named with its key,
 * the next four by number, the rest counted. */
static void tail_of(const char *text, struct guard_conf *c)
{
	char path[] = "/tmp/pmuguard-conf-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	cr_assert_eq(guard_conf_read(c, path), 0);
	unlink(path);
}

Test(conf, every_line_not_understood_is_named)
{
	struct guard_conf c;
	tail_of("mode = auto\nmdoe = off\nslots = substitue\nlock = yes\n", &c);
	cr_assert_eq(c.bad_lines, 2);
	cr_assert(strstr(c.bad_where, ":2 (unknown key '"), "%s", c.bad_where);
	cr_assert_str_eq(c.bad_word, "mdoe");
	cr_assert_str_eq(c.bad_tail,
			 "'): that line only; the rest applies; not understood either: line 3");
	cr_assert(c.lock, "the rest still applies");
	tail_of("a\nb\nc\nmode = auto\nd\ne\nf\ng\n", &c);
	cr_assert_eq(c.bad_lines, 7);
	cr_assert(strstr(c.bad_tail, "; not understood either: lines 2, 3, 5, 6 and 2 more"), "%s",
		  c.bad_tail);
	tail_of("a\nb\nc\n", &c);
	cr_assert(strstr(c.bad_tail, "; not understood either: lines 2 and 3"), "%s", c.bad_tail);
}

Test(conf, missing_file_is_empty_not_an_error)
{
	struct guard_conf c;
	cr_assert_eq(guard_conf_read(&c, "/nonexistent/pmuguard.conf"), 0);
	cr_assert_not(c.present);
	cr_assert_eq(c.mode, -1);
}

/* The settings resolver, as a table: file, environment, command line,
 * fleet -> mode, destination, level, snapshot, what was ignored. */
struct row {
	const char *name;
	struct guard_conf conf;
	int conf_err;
	struct guard_env env;
	struct guard_cli cli;
	bool fleet;
	enum guard_mode mode;
	enum guard_dest dest;
	enum guard_log log;
	const char *snapshot;
	unsigned n_ignored;
	const char *ignored_what; /* the first ignored item, when any */
	bool cacheable;
};

#define VIS .visible = true
#define NOCLI {.mode = -1}
static const struct row rows[] = {
	{"defaults", {.mode = -1}, 0, {VIS}, NOCLI, false, GUARD_AUTO, GUARD_DEST_STDERR,
	 GUARD_LOG_WARN, NULL, 0, NULL, true},
	{"file sets the mode", {.mode = GUARD_ALWAYS}, 0, {VIS}, NOCLI, false, GUARD_ALWAYS,
	 GUARD_DEST_STDERR, GUARD_LOG_WARN, NULL, 0, NULL, true},
	{"env overrides the file", {.mode = GUARD_ALWAYS}, 0, {VIS, .mode = "off"}, NOCLI, false,
	 GUARD_OFF, GUARD_DEST_STDERR, GUARD_LOG_WARN, NULL, 0, NULL, true},
	{"garbage env mode is reported", {.mode = GUARD_ALWAYS}, 0, {VIS, .mode = "of\nf"}, NOCLI,
	 false, GUARD_ALWAYS, GUARD_DEST_STDERR, GUARD_LOG_WARN, NULL, 1, "PMUGUARD_MODE=", true},
	{"lock: env may not loosen", {.mode = GUARD_AUTO, .lock = true}, 0, {VIS, .mode = "off"},
	 NOCLI, false, GUARD_AUTO, GUARD_DEST_STDERR, GUARD_LOG_WARN, NULL, 1, "PMUGUARD_MODE=",
	 true},
	{"lock: audit is looser than auto", {.mode = GUARD_AUTO, .lock = true}, 0,
	 {VIS, .mode = "audit"}, NOCLI, false, GUARD_AUTO, GUARD_DEST_STDERR, GUARD_LOG_WARN, NULL,
	 1, "PMUGUARD_MODE=", true},
	{"lock: env may tighten", {.mode = GUARD_AUTO, .lock = true}, 0, {VIS, .mode = "always"},
	 NOCLI, false, GUARD_ALWAYS, GUARD_DEST_STDERR, GUARD_LOG_WARN, NULL, 0, NULL, true},
	{"lock: snapshot in env is ignored and said", {.mode = -1, .lock = true}, 0,
	 {VIS, .snapshot = "/tmp/s"}, NOCLI, false, GUARD_AUTO, GUARD_DEST_STDERR, GUARD_LOG_WARN,
	 NULL, 1, "PMUGUARD_SNAPSHOT=", true},
	{"lock: --snapshot is ignored too", {.mode = -1, .lock = true}, 0, {VIS},
	 {.mode = -1, .snapshot = "/tmp/s"}, false, GUARD_AUTO, GUARD_DEST_STDERR, GUARD_LOG_WARN,
	 NULL, 1, "--snapshot ", true},
	{"lock: --mode may not loosen", {.mode = GUARD_AUTO, .lock = true}, 0, {VIS},
	 {.mode = GUARD_AUDIT}, false, GUARD_AUTO, GUARD_DEST_STDERR, GUARD_LOG_WARN, NULL, 1,
	 "--mode ", true},
	{"env snapshot over the file's", {.mode = -1, .snapshot = "/f"}, 0,
	 {VIS, .snapshot = "/e"}, NOCLI, false, GUARD_AUTO, GUARD_DEST_STDERR, GUARD_LOG_WARN, "/e",
	 0, NULL, true},
	{"--snapshot over the env's", {.mode = -1}, 0, {VIS, .snapshot = "/e"},
	 {.mode = -1, .snapshot = "/c"}, false, GUARD_AUTO, GUARD_DEST_STDERR, GUARD_LOG_WARN, "/c",
	 0, NULL, true},
	{"unreadable file is locked", {.mode = -1}, -EACCES, {VIS, .mode = "off"}, NOCLI, false,
	 GUARD_AUTO, GUARD_DEST_STDERR, GUARD_LOG_WARN, NULL, 2, GUARD_CONF_PATH, true},
	{"EMFILE: locked and not cached", {.mode = -1}, -EMFILE,
	 {VIS, .mode = "off", .snapshot = "/e"}, NOCLI, false, GUARD_AUTO, GUARD_DEST_STDERR,
	 GUARD_LOG_WARN, NULL, 3, GUARD_CONF_PATH, false},
	{"no environment yet (preinit)", {.mode = -1}, 0, {.visible = false}, NOCLI, true,
	 GUARD_AUTO, GUARD_DEST_SYSLOG, GUARD_LOG_WARN, NULL, 0, NULL, false},
	{"fleet: syslog, never stderr", {.mode = -1, .dest = GUARD_DEST_STDERR}, 0, {VIS}, NOCLI,
	 true, GUARD_AUTO, GUARD_DEST_SYSLOG, GUARD_LOG_WARN, NULL, 0, NULL, true},
	{"log = quiet in the file wins over env debug", {.mode = -1, .dest = GUARD_DEST_QUIET}, 0,
	 {VIS, .log = "debug"}, NOCLI, false, GUARD_AUTO, GUARD_DEST_QUIET, GUARD_LOG_QUIET, NULL,
	 0, NULL, true},
	{"env log levels", {.mode = -1}, 0, {VIS, .log = "debug"}, NOCLI, false, GUARD_AUTO,
	 GUARD_DEST_STDERR, GUARD_LOG_DEBUG, NULL, 0, NULL, true},
	{"bad env log", {.mode = -1}, 0, {VIS, .log = "loud"}, NOCLI, false, GUARD_AUTO,
	 GUARD_DEST_STDERR, GUARD_LOG_WARN, NULL, 1, "PMUGUARD_LOG=", true},
	{"bad env slots", {.mode = -1}, 0, {VIS, .slots = "maybe"}, NOCLI, false, GUARD_AUTO,
	 GUARD_DEST_STDERR, GUARD_LOG_WARN, NULL, 1, "PMUGUARD_SLOTS=", true},
	{"lock: env may not turn deny into substitute", {.mode = -1, .lock = true}, 0,
	 {VIS, .slots = "substitute"}, NOCLI, false, GUARD_AUTO, GUARD_DEST_STDERR, GUARD_LOG_WARN,
	 NULL, 1, "PMUGUARD_SLOTS=", true},
};

/* slots: default deny; the file; the environment; the lock. */
Test(conf, slots_setting)
{
	static const struct {
		int file;
		bool lock;
		const char *env;
		enum guard_slots want;
	} t[] = {
		{-1, false, NULL, GUARD_SLOTS_DENY},
		{GUARD_SLOTS_SUBSTITUTE, false, NULL, GUARD_SLOTS_SUBSTITUTE},
		{-1, false, "substitute", GUARD_SLOTS_SUBSTITUTE},
		{GUARD_SLOTS_SUBSTITUTE, false, "deny", GUARD_SLOTS_DENY},
		{GUARD_SLOTS_DENY, true, "substitute", GUARD_SLOTS_DENY},
		{GUARD_SLOTS_SUBSTITUTE, true, "deny", GUARD_SLOTS_DENY},
		{GUARD_SLOTS_SUBSTITUTE, true, NULL, GUARD_SLOTS_SUBSTITUTE},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct guard_conf c = {.mode = -1, .slots = t[i].file, .lock = t[i].lock};
		struct guard_env e = {.visible = true, .slots = t[i].env};
		struct guard_cli cli = {.mode = -1};
		struct guard_settings s;
		guard_settings_resolve(&c, 0, &e, &cli, false, &s);
		cr_assert_eq(s.slots, t[i].want, "row %zu", i);
	}
	static const char *const lines[] = {"slots = substitute"};
	struct guard_conf c = parse(lines, 1);
	cr_assert_eq(c.slots, GUARD_SLOTS_SUBSTITUTE);
	cr_assert_eq(c.bad_lines, 0);
}

Test(conf, settings_table)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct guard_settings s;
		guard_settings_resolve(&r->conf, r->conf_err, &r->env, &r->cli, r->fleet, &s);
		cr_assert_eq(s.mode, r->mode, "%s: mode", r->name);
		cr_assert_eq(s.dest, r->dest, "%s: dest", r->name);
		cr_assert_eq(s.log, r->log, "%s: log", r->name);
		if (r->snapshot)
			cr_assert(s.snapshot && !strcmp(s.snapshot, r->snapshot), "%s: snapshot",
				  r->name);
		else
			cr_assert_null(s.snapshot, "%s: snapshot", r->name);
		cr_assert_eq(s.n_ignored, r->n_ignored, "%s: ignored", r->name);
		if (r->ignored_what)
			cr_assert_str_eq(s.ignored[0].what, r->ignored_what, "%s", r->name);
		cr_assert_eq(s.cacheable, r->cacheable, "%s: cacheable", r->name);
	}
}

Test(conf, transient_errnos)
{
	cr_assert(probe_errno_transient(-EMFILE));
	cr_assert(probe_errno_transient(-ENOMEM));
	cr_assert_not(probe_errno_transient(-EACCES));
	cr_assert_not(probe_errno_transient(0));
}

/* The one reader of the environment: each variable by its whole name, the
 * first definition wins (as getenv answers), a prefix or a name without
 * '=' is nothing, and no array (a secure process) reads nothing. */
Test(conf, env_read)
{
	char *envp[] = {"PMUGUARD_MODEX=off", "PMUGUARD_MODE=always", "PMUGUARD_MODE=off",
			"PMUGUARD_LOG", "PMUGUARD_SLOTS=substitute", "PMUGUARD_SNAPSHOT=/s",
			"PMUGUARD_SECCOMP_COOKIE=0123456789abcdef", "PMUGUARD_LIB=/l.so",
			"LD_PRELOAD=/x.so", "PMUGUARD_SNAPSHOT_DIR=/d", NULL};
	struct guard_env e = {.visible = true};
	guard_env_read(&e, envp);
	cr_assert(e.visible);
	cr_assert_str_eq(e.mode, "always");
	cr_assert_null(e.log);
	cr_assert_str_eq(e.slots, "substitute");
	cr_assert_str_eq(e.snapshot, "/s");
	cr_assert_str_eq(e.cookie, "0123456789abcdef");
	cr_assert_str_eq(e.lib, "/l.so");
	cr_assert_str_eq(e.preload, "/x.so");
	cr_assert_str_eq(e.snapshot_dir, "/d");
	cr_assert_str_eq(guard_env_cookie_name, "PMUGUARD_SECCOMP_COOKIE");
	guard_env_read(&e, NULL);
	cr_assert(!e.mode && !e.log && !e.slots && !e.snapshot && !e.cookie && !e.lib &&
		  !e.preload && !e.snapshot_dir);
}

/* The loader takes the last LD_PRELOAD (each replaces the list), so the
 * way the shim was loaded is read from the last; the guard's own variables
 * are the first, as getenv() answers. */
Test(conf, env_read_takes_the_loaders_ld_preload)
{
	char *envp[] = {"LD_PRELOAD=/usr/lib/libpmuguard.so", "PMUGUARD_MODE=always",
			"LD_PRELOAD=/other.so", "PMUGUARD_MODE=off", NULL};
	struct guard_env e = {.visible = true};
	guard_env_read(&e, envp);
	cr_assert_str_eq(e.preload, "/other.so");
	cr_assert_str_eq(e.mode, "always");
	char *one[] = {"LD_PRELOAD=/a.so", NULL};
	guard_env_read(&e, one);
	cr_assert_str_eq(e.preload, "/a.so");
}

/* Where a snapshot NAME is looked up: the environment's folder only where
 * the environment may point the facts anywhere (not under lock, not with
 * an unreadable file). */
Test(conf, snapshot_dir_trust)
{
	struct guard_cli cli = {.mode = -1};
	struct guard_settings s;
	struct guard_conf free_conf = {.mode = -1};
	struct guard_env e = {.visible = true, .snapshot = "m6i", .snapshot_dir = "/d"};
	guard_settings_resolve(&free_conf, 0, &e, &cli, false, &s);
	cr_assert_str_eq(s.snapshot, "m6i");
	cr_assert_str_eq(s.snapshot_dir, "/d");
	struct guard_conf locked = {.mode = -1, .lock = true};
	guard_settings_resolve(&locked, 0, &e, &cli, false, &s);
	cr_assert_null(s.snapshot);
	cr_assert_null(s.snapshot_dir, "the folder is the environment's: not under lock");
	guard_settings_resolve(&free_conf, -EACCES, &e, &cli, false, &s);
	cr_assert_null(s.snapshot_dir, "an unreadable file is a lock");
	e.snapshot_dir = "";
	guard_settings_resolve(&free_conf, 0, &e, &cli, false, &s);
	cr_assert_null(s.snapshot_dir, "empty: the installed folder");
}

/* probe_snapshot_find: a path (a '/', or a directory here) as given; a
 * bare NAME in the folder; one found nowhere is -ENOENT, as given. */
Test(conf, snapshot_find)
{
	char top[] = "/tmp/pmuguard-snap-XXXXXX", path[PROBE_PATH_MAX], here[PROBE_PATH_MAX];
	cr_assert_not_null(mkdtemp(top));
	cr_assert(probe_join(path, sizeof(path), top, "ref"));
	cr_assert_eq(mkdir(path, 0755), 0);
	cr_assert(probe_join(path, sizeof(path), top, "ref/m6i"));
	cr_assert_eq(mkdir(path, 0755), 0);
	cr_assert(probe_join(path, sizeof(path), top, "m6i")); /* a file, not a folder, here */
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert(probe_join(path, sizeof(path), top, "cwd-only"));
	cr_assert_eq(mkdir(path, 0755), 0);
	cr_assert_not_null(getcwd(here, sizeof(here)));
	cr_assert_eq(chdir(top), 0);
	char out[PROBE_PATH_MAX], dir[PROBE_PATH_MAX];
	cr_assert(probe_join(dir, sizeof(dir), top, "ref"));
	cr_assert_eq(probe_snapshot_find(out, sizeof(out), "m6i", dir), 1);
	cr_assert(probe_join(path, sizeof(path), dir, "m6i"));
	cr_assert_str_eq(out, path);
	cr_assert_eq(probe_snapshot_find(out, sizeof(out), "cwd-only", dir), 0);
	cr_assert_str_eq(out, "cwd-only", "a directory here is a path");
	cr_assert_eq(probe_snapshot_find(out, sizeof(out), "./m6i", dir), 0);
	cr_assert_str_eq(out, "./m6i", "a '/' makes a path, whatever is there");
	cr_assert_eq(probe_snapshot_find(out, sizeof(out), "nope", dir), -ENOENT);
	cr_assert_str_eq(out, "nope");
	cr_assert_eq(probe_snapshot_find(out, sizeof(out), "..", dir), 0, "never a way out");
	cr_assert_eq(probe_snapshot_find(out, 4, "m6i", dir), -ENAMETOOLONG);
	cr_assert_eq(probe_snapshot_find(out, sizeof(out), "m6i", "/nonexistent"), -ENOENT);
	cr_assert_eq(chdir(here), 0);
	cr_assert(probe_join(path, sizeof(path), top, "ref/m6i"));
	rmdir(path);
	cr_assert(probe_join(path, sizeof(path), top, "ref"));
	rmdir(path);
	cr_assert(probe_join(path, sizeof(path), top, "cwd-only"));
	rmdir(path);
	cr_assert(probe_join(path, sizeof(path), top, "m6i"));
	unlink(path);
	rmdir(top);
}
