// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "classify.h"
#include "conf.h"
#include "probe.h"
#include "sys.h"

static void trim(const char **s, const char **e)
{
	while (*s < *e && (**s == ' ' || **s == '\t' || **s == '\r'))
		(*s)++;
	while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r'))
		(*e)--;
}

static bool is(const char *s, const char *e, const char *word)
{
	size_t n = strlen(word);
	return (size_t)(e - s) == n && memcmp(s, word, n) == 0;
}

/* The value's words, each at its enum's index: the one spelling of each,
 * for the file and (slots) the environment alike. */
static const char dest_words[][8] = {
	[GUARD_DEST_SYSLOG] = "syslog",
	[GUARD_DEST_STDERR] = "stderr",
	[GUARD_DEST_QUIET] = "quiet",
};
static const char slots_words[][12] = {
	[GUARD_SLOTS_DENY] = "deny",
	[GUARD_SLOTS_SUBSTITUTE] = "substitute",
};
static const char lock_words[][4] = {"no", "yes"};

/* The index of the word s..e in words (n of them, each size bytes), or -1;
 * an empty slot names nothing. */
static int word_index(const char *s, const char *e, const char *words, size_t size, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (words[i * size] && is(s, e, words + i * size))
			return (int)i;
	return -1;
}
#define WORD_INDEX(s, e, table)                                                                    \
	word_index(s, e, (table)[0], sizeof((table)[0]), sizeof(table) / sizeof((table)[0]))

int guard_slots_parse_n(const char *s, size_t len)
{
	return WORD_INDEX(s, s + len, slots_words);
}

/* snapshot = DIR (absolute) or NAME, a reference snapshot, as the flag and
 * the environment take them.  A NAME is joined to the installed reference
 * snapshots here, once: root's policy never resolves against a process's
 * working directory (a user's own directory of that name) nor against
 * PMUGUARD_SNAPSHOT_DIR. */
static bool conf_snapshot(struct guard_conf *c, const char *v, size_t n)
{
	if (n == 0 || n >= sizeof(c->snapshot) || memchr(v, '\0', n))
		return false;
	char name[sizeof(c->snapshot)];
	memcpy(name, v, n);
	name[n] = '\0';
	if (*v == '/') {
		memcpy(c->snapshot, name, n + 1);
		return true;
	}
	if (*v == '.' || memchr(v, '/', n))
		return false; /* relative paths, "." and ".." are no names */
	if (probe_join(c->snapshot, sizeof(c->snapshot), probe_snapshot_dir, name))
		return true;
	c->snapshot[0] = '\0';
	return false;
}

/* word, in any case (ASCII), is s..e. */
static bool is_nocase(const char *s, const char *e, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(e - s) != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if (ch != word[i])
			return false;
	}
	return true;
}

/* Does the key s..e name the lock, however it is spelt in case? */
static bool names_lock(const char *s, const char *e)
{
	return is_nocase(s, e, "lock") || is_nocase(s, e, "locked");
}

void guard_conf_line(struct guard_conf *c, const char *line, size_t len, int lineno)
{
	const char *s = line, *e = line + len;
	const char *hash = memchr(s, '#', len);
	if (hash)
		e = hash;
	trim(&s, &e);
	if (s == e)
		return;
	const char *eq = memchr(s, '=', (size_t)(e - s));
	const char *ks = s, *ke = eq ? eq : e, *vs = eq ? eq + 1 : e, *ve = e;
	bool ok = false, known = eq != NULL;
	if (eq) {
		trim(&ks, &ke);
		trim(&vs, &ve);
		if (is(ks, ke, "mode")) {
			int m = guard_mode_parse_n(vs, (size_t)(ve - vs));
			if ((ok = m >= 0))
				c->mode = m;
		} else if (is(ks, ke, "log")) {
			int v = WORD_INDEX(vs, ve, dest_words);
			if ((ok = v >= 0))
				c->dest = (enum guard_dest)v;
		} else if (is(ks, ke, "snapshot")) {
			ok = conf_snapshot(c, vs, (size_t)(ve - vs));
		} else if (is(ks, ke, "slots")) {
			int v = WORD_INDEX(vs, ve, slots_words);
			if ((ok = v >= 0))
				c->slots = v;
		} else if (is(ks, ke, "lock")) {
			int v = WORD_INDEX(vs, ve, lock_words);
			if ((ok = v >= 0))
				c->lock = v == 1;
		} else {
			known = false;
		}
	}
	if (ok)
		return;
	/* A lock line not understood (a value other than yes or no, the key
	 * in another case, no '='): read as locked, the stricter reading,
	 * and described before any other line not understood. */
	const char *ws0 = s;
	while (!eq && ws0 < e && *ws0 != ' ' && *ws0 != '\t' && *ws0 != ':')
		ws0++;
	bool lock_line = eq ? names_lock(ks, ke) : names_lock(s, ws0);
	if (lock_line)
		c->lock_unclear = true;
	bool describe = c->bad_lines == 0 || (lock_line && c->bad_kind != GUARD_CONF_BAD_LOCK);
	if (!describe && c->bad_lines <= 4) {
		c->more_bad[c->bad_lines - 1] = lineno;
	} else if (describe && c->bad_lines > 0) {
		/* The line described until now becomes the first of the others. */
		memmove(&c->more_bad[1], &c->more_bad[0],
			sizeof(c->more_bad) - sizeof(c->more_bad[0]));
		c->more_bad[0] = c->first_bad;
	}
	c->bad_lines++;
	if (describe) {
		/* What was not understood: the value of a known key, else the
		 * key, else the line (no '='); a lock line's value, or the line
		 * where its key is not `lock` as written. */
		c->first_bad = lineno;
		c->bad_kind = lock_line ? GUARD_CONF_BAD_LOCK
			      : !eq     ? GUARD_CONF_BAD_LINE
			      : known   ? GUARD_CONF_BAD_VALUE
					: GUARD_CONF_BAD_KEY;
		const char *ws = known ? vs : ks, *we = known ? ve : ke;
		if (lock_line && !(eq && is(ks, ke, "lock"))) {
			ws = s; /* the line as written: "Lock = yes", "lock: yes" */
			we = e;
		}
		size_t n = (size_t)(we - ws) < sizeof(c->bad_word) - 1 ? (size_t)(we - ws)
								       : sizeof(c->bad_word) - 1;
		memcpy(c->bad_word, ws, n);
		c->bad_word[n] = '\0';
	}
}

static size_t put(char *buf, size_t at, size_t size, const char *s)
{
	while (*s && at + 1 < size)
		buf[at++] = *s++;
	buf[at] = '\0';
	return at;
}

/* "PATH:N (unknown key '" ... "'): that line only; the rest of the file
 * applies" (and how many more lines were not understood). */
static void say_bad(struct guard_conf *c, const char *path)
{
	char num[24];
	size_t at = put(c->bad_where, 0, sizeof(c->bad_where), path);
	at = put(c->bad_where, at, sizeof(c->bad_where), ":");
	num[probe_utoa(num, (uint64_t)c->first_bad)] = '\0';
	at = put(c->bad_where, at, sizeof(c->bad_where), num);
	put(c->bad_where, at, sizeof(c->bad_where),
	    c->bad_kind == GUARD_CONF_BAD_LOCK ? " (a lock line that says neither lock = yes nor "
						 "lock = no: '"
	    : c->bad_kind == GUARD_CONF_BAD_VALUE ? " (a value it does not know, '"
	    : c->bad_kind == GUARD_CONF_BAD_KEY   ? " (unknown key '"
						  : " (no key = value: '");
	at = put(c->bad_tail, 0, sizeof(c->bad_tail),
		 c->bad_kind == GUARD_CONF_BAD_LOCK
			 ? "'): read as lock = yes, the stricter reading; the rest applies"
			 : "'): that line only; the rest applies");
	/* The next ones by line number (the first four), so that each can be
	 * found: "; not understood either: lines 5, 9 and 3 more". */
	if (c->bad_lines > 1) {
		int named = c->bad_lines - 1 < 4 ? c->bad_lines - 1 : 4;
		at = put(c->bad_tail, at, sizeof(c->bad_tail),
			 named > 1 ? "; not understood either: lines "
				   : "; not understood either: line ");
		for (int i = 0; i < named; i++) {
			if (i)
				at = put(c->bad_tail, at, sizeof(c->bad_tail),
					 i == named - 1 && c->bad_lines - 1 == named ? " and "
										     : ", ");
			num[probe_utoa(num, (uint64_t)c->more_bad[i])] = '\0';
			at = put(c->bad_tail, at, sizeof(c->bad_tail), num);
		}
		if (c->bad_lines - 1 > named) {
			num[probe_utoa(num, (uint64_t)(c->bad_lines - 1 - named))] = '\0';
			at = put(c->bad_tail, at, sizeof(c->bad_tail), " and ");
			at = put(c->bad_tail, at, sizeof(c->bad_tail), num);
			put(c->bad_tail, at, sizeof(c->bad_tail), " more");
		}
	}
}

struct conf_ctx {
	struct guard_conf *c;
	int lineno;
};

static int conf_cb(void *p, const char *line, size_t len)
{
	struct conf_ctx *x = p;
	guard_conf_line(x->c, line, len, ++x->lineno);
	return 0;
}

/* ": WHAT is writable by other users (mode 0666): not trusted; ..." (or
 * "owned by uid 1000") into c->trust_why, as the one line that reports it
 * ends (settings.c: "ignoring PATH" and this). */
static void distrust(struct guard_conf *c, const char *what, const struct stat *st)
{
	char num[24];
	size_t at = put(c->trust_why, 0, sizeof(c->trust_why), ": ");
	at = put(c->trust_why, at, sizeof(c->trust_why), what);
	if (st->st_uid != 0) {
		at = put(c->trust_why, at, sizeof(c->trust_why), " is owned by uid ");
		num[probe_utoa(num, st->st_uid)] = '\0';
	} else {
		at = put(c->trust_why, at, sizeof(c->trust_why),
			 " is writable by other users (mode ");
		unsigned m = st->st_mode & 07777;
		for (int i = 3; i >= 0; i--)
			num[3 - i] = (char)('0' + ((m >> (3 * i)) & 7));
		num[4] = ')';
		num[5] = '\0';
	}
	at = put(c->trust_why, at, sizeof(c->trust_why), num);
	put(c->trust_why, at, sizeof(c->trust_why),
	    ": not trusted: nothing in it loosens the guard (only lock = yes and a mode "
	    "stricter than auto are taken)");
	c->untrusted = true;
}

/* Can anyone but root change what the file says?  Root owns it and no
 * group or other may write it, nor a directory on its path (where they
 * could rename another file over it, or create it where it is absent).
 * The named path's directories are judged (a link at the path is root's
 * own choice: its target's directories are not).  A stat that fails is
 * no proof of anything: only what is seen counts against the file. */
static bool writable_by_others(const struct stat *st)
{
	return st->st_uid != 0 || (st->st_mode & (S_IWGRP | S_IWOTH));
}

bool guard_conf_judge_one(struct guard_conf *c, const char *name, const struct stat *st)
{
	if (!writable_by_others(st))
		return false;
	distrust(c, name, st);
	return true;
}

void guard_conf_judge_trust(struct guard_conf *c, const char *path, const struct stat *file)
{
	if (file && guard_conf_judge_one(c, path, file))
		return;
	char dir[256];
	size_t n = strlen(path);
	if (n >= sizeof(dir) || path[0] != '/')
		return;
	memcpy(dir, path, n + 1);
	while (n > 1) {
		while (n > 0 && dir[n - 1] != '/')
			n--;           /* just past the last '/' */
		n = n > 1 ? n - 1 : 1; /* "/etc/x" -> "/etc", "/x" -> "/" */
		dir[n] = '\0';
		struct stat st;
		if (pmug_sys4(PMUG_SYS_FSTATAT, -100 /* AT_FDCWD */, dir, &st, 0) == 0 &&
		    guard_conf_judge_one(c, dir, &st))
			return;
	}
}

/* A policy that sets nothing: what the file is read into. */
static void conf_empty(struct guard_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->mode = -1;
	c->slots = -1;
}

void guard_conf_parse(struct guard_conf *c, const char *text, size_t len, const char *path)
{
	conf_empty(c);
	int lineno = 0;
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		guard_conf_line(c, text + at, n, ++lineno);
		at += n + 1;
	}
	if (c->bad_lines)
		say_bad(c, path);
}

int guard_conf_read(struct guard_conf *c, const char *path)
{
	conf_empty(c);
	struct conf_ctx x = {c, 0};
	struct stat st;
	int rc = probe_read_lines_st(path, conf_cb, &x, &st);
	if (rc == 0) {
		c->present = true;
		guard_conf_judge_trust(c, path, &st);
	}
	if (c->bad_lines)
		say_bad(c, path);
	return rc == -ENOENT ? 0 : rc;
}
