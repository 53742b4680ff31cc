/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The system policy, /etc/pmuguard.conf:
 *
 *   mode = auto | always | audit | off
 *   log  = syslog | stderr | quiet
 *   lock = yes | no
 *   slots = deny | substitute
 *   snapshot = DIR | NAME  (read the facts from a snapshot: replay and tests;
 *                          a NAME is a reference snapshot, never a relative path)
 *
 * '#' starts a comment; unknown keys or values are counted and ignored,
 * but a lock line not understood reads as lock = yes (lock_unclear).
 * How the file combines with the environment and the command line is
 * settings.h's.  Read with plain open/read: no stdio, no malloc.
 */
#ifndef PMUGUARD_CONF_H
#define PMUGUARD_CONF_H

#include <stdbool.h>
#include <stddef.h>

#define GUARD_CONF_PATH "/etc/pmuguard.conf"

enum guard_dest { GUARD_DEST_DEFAULT = 0, GUARD_DEST_SYSLOG, GUARD_DEST_STDERR, GUARD_DEST_QUIET };

/* What the preload does with TOPDOWN.SLOTS where counter 3 is unsafe:
 * answer ENOENT (the default, and what a zeroed struct says), or count it
 * as TOPDOWN.SLOTS_P on a general counter. */
enum guard_slots { GUARD_SLOTS_DENY = 0, GUARD_SLOTS_SUBSTITUTE };
/* The slots value's word ("deny", "substitute") in the len bytes at s: its
 * enum guard_slots, or -1 for a word that names none. */
int guard_slots_parse_n(const char *s, size_t len);

struct guard_conf {
	bool present; /* the file was read */
	int mode;     /* enum guard_mode, or -1 when not set */
	enum guard_dest dest;
	bool lock;
	int slots;          /* enum guard_slots, or -1 when not set */
	char snapshot[256]; /* "" when not set */
	int bad_lines;      /* lines that named no known key or value */
	int first_bad;      /* line number of the first of them */
	/* The first of them said as systemd says it, for the one line that
	 * reports it (settings.c): "PATH:N (unknown key '", the key or value
	 * as written (cut at 31 bytes), and "'): that line only ..." with the
	 * line numbers of the next four and how many more there are.  Made by
	 * guard_conf_read(). */
	enum {
		GUARD_CONF_BAD_KEY,
		GUARD_CONF_BAD_VALUE,
		GUARD_CONF_BAD_LINE,
		GUARD_CONF_BAD_LOCK, /* a lock line not understood: said first */
	} bad_kind;
	char bad_where[192];
	char bad_word[32];
	char bad_tail[128];
	int more_bad[4]; /* the line numbers of the next ones, named in bad_tail */
	/* A line that names the lock (its key `lock` in any case, or
	 * `locked`; a line without '=' whose first word is one of them) and
	 * does not say exactly `lock = yes` or `lock = no`: `lock = ye`,
	 * `Lock = yes`, `lock: yes`.  A line that does not parse must never
	 * loosen the guard, so the stricter reading is taken: locked
	 * (settings.c), whatever else the file says; that line is the one
	 * the report describes. */
	bool lock_unclear;
	/* Someone other than root can change it (guard_conf_judge_trust):
	 * then nothing in it may loosen the guard (settings.c), and why. */
	bool untrusted;
	char trust_why[320];
};

/* Parse one line (no newline needed, never reads past len). */
void guard_conf_line(struct guard_conf *c, const char *line, size_t len, int lineno);
/* Read path; a missing file leaves *c empty (present = false).  A file
 * read is judged for trust (guard_conf_judge_trust). */
int guard_conf_read(struct guard_conf *c, const char *path);
/* Mark c untrusted where file (its status as opened; NULL: not judged) or
 * a directory on path's way (from /) may be written by anyone but root:
 * a policy any user can rewrite is no policy (a config-management or
 * umask mistake would otherwise let them switch the guard off). */
struct stat;
void guard_conf_judge_trust(struct guard_conf *c, const char *path, const struct stat *file);
/* The same test on one file or directory (st), named name in the words;
 * true where it marked c untrusted. */
bool guard_conf_judge_one(struct guard_conf *c, const char *name, const struct stat *st);
/* The len bytes of text as the file path (named in the words): what
 * guard_conf_read() reads, from a buffer (a tree's file, read by the
 * caller's rules); present is the caller's to set. */
void guard_conf_parse(struct guard_conf *c, const char *text, size_t len, const char *path);

#endif
