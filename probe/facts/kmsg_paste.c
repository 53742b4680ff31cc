// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The wrapping people add around a kernel log when they paste it, taken off
 * before kmsg.c reads the record (issue 41):
 *
 *   dmesg --color=always (and dmesg -L): SGR sequences around the
 *     timestamp, the "subsys: " prefix and a record's level
 *     ("\e[32m[    0.588495] \e[0m\e[33mDMI: \e[0m..."; util-linux
 *     dmesg.c, dmesg_enable_color()); grep's "\e[K" and tput's "\e(B" too;
 *   a log shipper's or desktop VM's fields before the kernel's timestamp
 *     ("[10:25:44.788][Moby][Info] [    0.000000] ...");
 *   forum and mail markup around each line
 *     ("[COLOR=#000000][FONT=arial][    0.123] ...[/FONT][/COLOR]",
 *     "<span style=...>[    0.123] ...</span><br>").
 *
 * Each is taken off only where a kernel timestamp follows it: the wrapping
 * is outside the record.  Nothing here makes a line the kernel's: kmsg.c
 * judges what is left as it judges any text line, and only text (never a
 * /dev/kmsg or syslog(2) record) comes here.  A user's record carries the
 * kernel's own timestamp before its text, so its text is never at a
 * line's start, where this looks; util-linux's dmesg prints a user's
 * escape bytes as "\x1b", never raw.
 */
#include "kmsg_paste.h"

#include <string.h>

#define ESC 0x1b
#define FIELD_MAX 64  /* a bracketed field before the stamp: "[Moby]", "[FONT=arial]" */
#define TAG_MAX 128   /* an HTML tag: "<span style=\"color:#000\">" */
#define FIELDS_MAX 8  /* fields or tags before the stamp */
#define STAMP_LOOK 32 /* where the stamp may start after SGR is cut: "<pri>", dmesg -x */

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool kmsg_paste_stamp(const char *p, const char *end, const char **after)
{
	if (p >= end || *p++ != '[')
		return false;
	while (p < end && *p == ' ')
		p++;
	const char *d = p;
	while (p < end && digit(*p))
		p++;
	if (p == d || p >= end || *p++ != '.')
		return false;
	d = p;
	while (p < end && digit(*p))
		p++;
	if (p == d)
		return false;
	/* "[ 0.123 ]", "[    1.234567 ]": some vendor kernels' printk. */
	while (p < end && *p == ' ')
		p++;
	if (p >= end || *p++ != ']')
		return false;
	if (after)
		*after = p;
	return true;
}

/* The length of an SGR (or erase-line, or charset) sequence at p, 0 if
 * none: "\e[0m", "\e[1;31m", "\e[K", "\e(B". */
static size_t sgr_len(const char *p, const char *end)
{
	if (end - p >= 3 && p[0] == ESC && p[1] == '(' && p[2] == 'B')
		return 3;
	if (end - p < 3 || p[0] != ESC || p[1] != '[')
		return 0;
	const char *q = p + 2;
	while (q < end && q - p < 24 && (digit(*q) || *q == ';' || *q == ':'))
		q++;
	return q < end && (*q == 'm' || *q == 'K') ? (size_t)(q + 1 - p) : 0;
}

/* Does a kernel timestamp start within the first STAMP_LOOK bytes? */
static bool stamp_near(const char *p, const char *end)
{
	for (const char *q = p; q < end && q - p < STAMP_LOOK; q++)
		if (*q == '[' && kmsg_paste_stamp(q, end, NULL))
			return true;
	return false;
}

/* The line without its SGR sequences, in buf; 0 where it has none, does
 * not fit, or leads to no timestamp. */
static size_t strip_sgr(const char *line, size_t len, char *buf, size_t size)
{
	const char *p = line, *end = line + len;
	if (!memchr(line, ESC, len))
		return 0;
	size_t n = 0;
	while (p < end) {
		size_t s = sgr_len(p, end);
		if (s) {
			p += s;
			continue;
		}
		if (n + 1 >= size)
			return 0; /* never cut a line short: its end may be the point */
		buf[n++] = *p++;
	}
	return stamp_near(buf, buf + n) ? n : 0;
}

/* One field before the stamp, not a stamp itself: "[Moby]", "[COLOR=#000]",
 * "<font color=red>"; its end, or NULL. */
static const char *field_end(const char *p, const char *end)
{
	if (*p == '[') {
		for (const char *q = p + 1; q < end && q - p <= FIELD_MAX; q++) {
			if (*q == '[')
				return NULL;
			if (*q == ']')
				return q > p + 1 ? q + 1 : NULL;
		}
		return NULL;
	}
	if (*p == '<' && end - p > 1 && (letter(p[1]) || p[1] == '/')) {
		for (const char *q = p + 1; q < end && q - p <= TAG_MAX; q++) {
			if (*q == '<')
				return NULL;
			if (*q == '>')
				return q + 1;
		}
	}
	return NULL;
}

/* A closing tag, or a line break, ending at end: "[/FONT]", "</span>",
 * "<br>", "<br />"; its start, or NULL. */
static const char *closing_start(const char *p, const char *end)
{
	if (end - p < 3)
		return NULL;
	char close = end[-1] == ']' ? '[' : end[-1] == '>' ? '<' : 0;
	if (!close)
		return NULL;
	for (const char *q = end - 2; q >= p && end - q <= TAG_MAX; q--) {
		if (*q == close) {
			if (q[1] == '/')
				return q;
			if (close == '<' && end - q >= 4 && (q[1] == 'b' || q[1] == 'B') &&
			    (q[2] == 'r' || q[2] == 'R'))
				return q;
			return NULL;
		}
		if (*q == '[' || *q == ']' || *q == '<' || *q == '>')
			return NULL;
	}
	return NULL;
}

/* The fields and tags before a timestamp at the line's start, and then the
 * closing tags at its end; false (nothing taken) where no timestamp
 * follows them. */
static bool strip_fields(const char **p, const char **end)
{
	const char *q = *p, *e = *end;
	int fields = 0;
	/* A line that starts with a blank is a record's further line (dmesg
	 * and the journal indent them) or a quote: its indent is what says it
	 * starts no record, and a user's own multi-line record would pass
	 * for the kernel's without it.  Never stripped. */
	if (q < e && blank(*q))
		return false;
	for (;;) {
		while (q < e && blank(*q))
			q++;
		if (q >= e || (fields > 0 && kmsg_paste_stamp(q, e, NULL)))
			break;
		const char *f = fields < FIELDS_MAX ? field_end(q, e) : NULL;
		if (!f || kmsg_paste_stamp(q, e, NULL))
			return false;
		q = f;
		fields++;
	}
	if (fields == 0 || q >= e)
		return false;
	for (int i = 0; i < FIELDS_MAX; i++) {
		while (e > q && (blank(e[-1]) || e[-1] == '\r'))
			e--;
		const char *c = closing_start(q, e);
		if (!c)
			break;
		e = c;
	}
	*p = q;
	*end = e;
	return true;
}

size_t kmsg_paste_unwrap(const char *line, size_t len, char *buf, size_t size, const char **out)
{
	size_t n = strip_sgr(line, len, buf, size);
	const char *p = n ? buf : line, *end = p + (n ? n : len);
	strip_fields(&p, &end);
	*out = p;
	return (size_t)(end - p);
}
