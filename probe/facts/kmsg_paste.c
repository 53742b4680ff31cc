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

#include <stdint.h>
#include <string.h>

#include "probe.h"

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

/* After blanks, seconds as a stamp writes them, "0.352933": the end of
 * them, or NULL where p holds none. */
static const char *seconds(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	const char *d = p;
	while (p < end && digit(*p))
		p++;
	if (p == d || p >= end || *p++ != '.')
		return NULL;
	d = p;
	while (p < end && digit(*p))
		p++;
	return p == d ? NULL : p;
}

bool kmsg_paste_stamp(const char *p, const char *end, const char **after)
{
	if (p >= end || *p++ != '[' || !(p = seconds(p, end)))
		return false;
	/* "[ 0.123 ]", "[    1.234567 ]": some vendor kernels' printk. */
	while (p < end && *p == ' ')
		p++;
	p = kmsg_paste_delta(p, end);
	if (p >= end || *p++ != ']')
		return false;
	if (after)
		*after = p;
	return true;
}

bool kmsg_paste_stamp_us(const char *p, const char *end, uint64_t *us)
{
	if (p < end && *p == '<') {
		const char *q = p + 1;
		while (q < end && digit(*q) && q - p < 5)
			q++;
		if (q > p + 1 && q < end && *q == '>')
			p = q + 1;
	}
	if (!kmsg_paste_stamp(p, end, NULL))
		return false;
	uint64_t sec = 0, frac = 0;
	int digits = 0;
	for (p++; *p == ' '; p++)
		;
	for (; digit(*p); p++)
		if (digits++ < 12)
			sec = sec * 10 + (uint64_t)(*p - '0');
	digits = 0;
	for (p++; digit(*p); p++)
		if (digits++ < 6)
			frac = frac * 10 + (uint64_t)(*p - '0');
	for (; digits < 6; digits++)
		frac *= 10;
	*us = sec * 1000000 + frac;
	return true;
}

const char *kmsg_paste_delta(const char *p, const char *end)
{
	/* dmesg -d: "[    0.352933 <    0.000902>]", the time since the
	 * record before it inside the stamp (util-linux dmesg.c). */
	const char *q = p;
	if (q >= end || *q++ != '<' || !(q = seconds(q, end)) || q >= end || *q++ != '>')
		return p;
	return q;
}

/* The length of a terminal's escape sequence at p (ESC there), 0 if it
 * is cut short: CSI ("\e[0m", "\e[2K", "\e[?25l", "\e[H": parameters,
 * intermediates, one final byte, ECMA-48 5.4), OSC ("\e]0;title\a"),
 * a charset ("\e(B") or any other two-byte escape ("\e7"). */
static size_t esc_len(const char *p, const char *end)
{
	if (end - p < 2)
		return 0;
	const char *q = p + 2;
	if (p[1] == '[') {
		while (q < end && q - p < 32 && (unsigned char)*q >= 0x20 &&
		       (unsigned char)*q <= 0x3f)
			q++;
		return q < end && (unsigned char)*q >= 0x40 && (unsigned char)*q <= 0x7e
			       ? (size_t)(q + 1 - p)
			       : 0;
	}
	if (p[1] == ']') {
		for (; q < end && q - p < 256; q++) {
			if (*q == '\a')
				return (size_t)(q + 1 - p);
			if (*q == ESC && q + 1 < end && q[1] == '\\')
				return (size_t)(q + 2 - p);
		}
		return 0;
	}
	if ((p[1] == '(' || p[1] == ')') && end - p >= 3)
		return 3;
	return 2;
}

/* A Unicode blank in UTF-8 at p: its length, and *space whether it stands
 * for a blank (U+00A0 and the other spaces a browser or word processor
 * copies) or for nothing (the BOM, zero-width spaces); 0 if none. */
static size_t unicode_blank(const unsigned char *p, const unsigned char *end, bool *space)
{
	*space = true;
	if (end - p >= 2 && p[0] == 0xc2 && p[1] == 0xa0)
		return 2; /* U+00A0 */
	if (end - p < 3)
		return 0;
	if (p[0] == 0xe2 && p[1] == 0x80 && p[2] >= 0x80 && p[2] <= 0x8a)
		return 3; /* U+2000..U+200A */
	if (p[0] == 0xe2 && ((p[1] == 0x80 && p[2] == 0xaf) || (p[1] == 0x81 && p[2] == 0x9f)))
		return 3; /* U+202F, U+205F */
	if (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80)
		return 3; /* U+3000 */
	*space = false;
	if (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		return 3; /* U+FEFF, the BOM glued to a file's first line */
	if (p[0] == 0xe2 && p[1] == 0x80 && p[2] >= 0x8b && p[2] <= 0x8d)
		return 3; /* U+200B..U+200D */
	return 0;
}

/* Does the line hold anything the normalizer changes? */
static bool needs_norm(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f || c == 0xc2 || c == 0xe2 || c == 0xe3 ||
		    c == 0xef)
			return true;
	}
	return false;
}

/* The line as a terminal showed it, into buf: escape sequences and other
 * control bytes gone, every Unicode blank a space, and where a carriage
 * return is followed by text (a serial console's "\e[2K\r" before each
 * line), only what came after the last one; 0 where nothing changed or it
 * does not fit.  Tabs stay: they say how a quoted log is indented. */
static size_t normalize(const char *line, size_t len, char *buf, size_t size)
{
	const char *p = line, *end = line + len;
	if (!needs_norm(line, len))
		return 0;
	size_t n = 0;
	while (p < end) {
		unsigned char c = (unsigned char)*p;
		bool space;
		size_t u;
		if (c == ESC) {
			size_t e = esc_len(p, end);
			p += e ? e : 1;
			continue;
		}
		if (c == '\r') {
			const char *q = p + 1;
			while (q < end && (*q == '\r' || *q == ESC)) {
				size_t e = *q == ESC ? esc_len(q, end) : 1;
				q += e ? e : 1;
			}
			if (q < end)
				n = 0; /* the text after it overwrote the line */
			p = q;
			continue;
		}
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			p++;
			continue;
		}
		if ((u = unicode_blank((const unsigned char *)p, (const unsigned char *)end,
				       &space))) {
			p += u;
			if (!space)
				continue;
			c = ' ';
		} else {
			p++;
		}
		if (n + 1 >= size)
			return 0; /* never cut a line short: its end may be the point */
		buf[n++] = (char)c;
	}
	return n ? n : (len ? (buf[0] = ' ', 1) : 0);
}

/* The value of "key", its first byte (a string's quote included); NULL
 * where the line has no such member. */
static const char *json_value(const char *p, const char *end, const char *key)
{
	size_t k = strlen(key);
	for (const char *q = p; q + k + 2 < end; q++) {
		if (q[0] != '"' || memcmp(q + 1, key, k) || q[k + 1] != '"')
			continue;
		const char *v = q + k + 2;
		while (v < end && blank(*v))
			v++;
		if (v >= end || *v++ != ':')
			continue;
		while (v < end && blank(*v))
			v++;
		if (v < end)
			return v;
	}
	return NULL;
}

/* The value of "key": a JSON string, its bytes after the quote; NULL
 * where the line has no such member or it is no string. */
static const char *json_member(const char *p, const char *end, const char *key)
{
	const char *v = json_value(p, end, key);
	return v && *v == '"' ? v + 1 : NULL;
}

/* Does the entry name a facility other than the kernel's (0), as a string
 * ("1", journalctl -o json) or a number?  journald keeps a record written
 * to /dev/kmsg by a program with _TRANSPORT=kernel, and takes
 * SYSLOG_IDENTIFIER from its text ("kernel: ..."): only the facility says
 * it is not the kernel's (rule 1, kmsg.c). */
static bool json_other_facility(const char *p, const char *end)
{
	const char *v = json_value(p, end, "SYSLOG_FACILITY");
	if (!v)
		return false;
	if (*v == '"')
		v++;
	return end - v < 2 || v[0] != '0' || digit(v[1]);
}

static int hexval(char c)
{
	return digit(c)                 ? c - '0'
	       : (c >= 'a' && c <= 'f') ? c - 'a' + 10
	       : (c >= 'A' && c <= 'F') ? c - 'A' + 10
					: -1;
}

/* A JSON string's text up to its closing quote or its first newline (a
 * record's first line), unescaped into out; its length, or -1 where it
 * does not fit.  \uXXXX is written as UTF-8 (U+00A0 stays one, for the
 * normalizer to make a blank). */
static long json_text(const char *v, const char *end, char *out, size_t size)
{
	size_t n = 0;
	while (v < end && *v != '"') {
		char c = *v++;
		unsigned u = 0;
		if (c == '\\' && v < end) {
			c = *v++;
			if (c == 'n' || c == 'r')
				break;
			if (c == 't')
				c = '\t';
			else if (c == 'u' && end - v >= 4) {
				for (int i = 0; i < 4; i++)
					u = u << 4 |
					    (unsigned)(hexval(v[i]) < 0 ? 0 : hexval(v[i]));
				v += 4;
				if (u >= 0x80) {
					if (n + 3 >= size)
						return -1;
					if (u < 0x800) {
						out[n++] = (char)(0xc0 | u >> 6);
					} else {
						out[n++] = (char)(0xe0 | u >> 12);
						out[n++] = (char)(0x80 | (u >> 6 & 0x3f));
					}
					out[n++] = (char)(0x80 | (u & 0x3f));
					continue;
				}
				c = (char)u;
			} else if (c != '"' && c != '\\' && c != '/') {
				c = '?';
			}
		}
		if (n + 1 >= size)
			return -1;
		out[n++] = c;
	}
	return (long)n;
}

/* "[%5u.%06u] " from a journal field of microseconds; its length. */
static size_t json_stamp(const char *v, const char *end, char *out)
{
	uint64_t us = 0;
	int digits = 0;
	for (; v < end && digit(*v) && digits < 19; v++, digits++)
		us = us * 10 + (uint64_t)(*v - '0');
	if (!digits || v >= end || *v != '"')
		return 0;
	char tmp[32];
	size_t n = 0, t = 0;
	uint64_t sec = us / 1000000, frac = us % 1000000;
	do
		tmp[t++] = (char)('0' + sec % 10);
	while ((sec /= 10) && t < 20);
	out[n++] = '[';
	for (size_t pad = t; pad < 5; pad++)
		out[n++] = ' ';
	while (t)
		out[n++] = tmp[--t];
	out[n++] = '.';
	for (int i = 5; i >= 0; i--, frac /= 10)
		out[n + (size_t)i] = (char)('0' + frac % 10);
	n += 6;
	out[n++] = ']';
	out[n++] = ' ';
	return n;
}

size_t kmsg_paste_json(struct probe_klog_paste *ps, const char *line, size_t len, char *buf,
		       size_t size)
{
	const char *p = line, *end = line + len;
	while (p < end && blank(*p))
		p++;
	if (p >= end || *p != '{' || size < 48)
		return 0;
	/* journalctl -o json (MESSAGE), Docker's json-file and Fluent Bit
	 * (log), most shippers (message). */
	const char *v = json_member(p, end, "MESSAGE");
	if (!v)
		v = json_member(p, end, "message");
	if (!v)
		v = json_member(p, end, "log");
	if (!v)
		return 0;
	/* Another program's entry is not the kernel's: the journal says who
	 * wrote it (_TRANSPORT, SYSLOG_IDENTIFIER, SYSLOG_FACILITY). */
	const char *tr = json_member(p, end, "_TRANSPORT");
	const char *id = json_member(p, end, "SYSLOG_IDENTIFIER");
	if ((tr && (end - tr < 7 || memcmp(tr, "kernel\"", 7))) ||
	    (id && (end - id < 7 || memcmp(id, "kernel\"", 7))) || json_other_facility(p, end))
		ps->foreign = true;
	/* The kernel's own time of the record, where the journal kept it
	 * (not __MONOTONIC_TIMESTAMP: when the journal received it). */
	const char *mono = json_member(p, end, "_SOURCE_MONOTONIC_TIMESTAMP");
	size_t n = mono && !kmsg_paste_stamp(v, end, NULL) ? json_stamp(mono, end, buf) : 0;
	long t = json_text(v, end, buf + n, size - n);
	if (t < 0)
		return 0;
	n += (size_t)t;
	return n ? n : (buf[0] = ' ', 1);
}

/* A line number's separator at p: "\t" (`cat -n`, "     1\t"), ": "
 * ("12: ", pastebins, `grep -n`'s "12:"), " | " ("  12 | ", a pastebin's
 * gutter); its length, 0 if none.  A line a pastebin left empty keeps
 * only "12:" or "12 |". */
static size_t number_sep(const char *p, const char *end, char *sep)
{
	if (p < end && *p == '\t') {
		*sep = '\t';
		return 1;
	}
	*sep = ':';
	if (p < end && *p == ':')
		return p + 1 == end ? 1 : p[1] == ' ' ? 2 : 0;
	*sep = '|';
	const char *q = p;
	if (q < end && *q == ' ')
		q++;
	if (q >= end || *q++ != '|')
		return 0;
	if (q < end && *q == ' ')
		q++;
	return (size_t)(q - p);
}

/* Line numbers before each line: `cat -n`'s ("     1\t": a kernel record
 * never starts with a number and a tab) on any line; a pastebin's ("12: ",
 * "12 | ") only where the text's first line has one, so a record or a
 * user's text that starts with a number and a colon keeps it. */
static void skip_line_number(struct probe_klog_paste *ps, const char **p, const char *end)
{
	const char *q = *p;
	while (q < end && *q == ' ')
		q++;
	const char *d = q;
	while (q < end && digit(*q) && q - d < 9)
		q++;
	char sep = 0;
	size_t n = q > d ? number_sep(q, end, &sep) : 0;
	const char *c = *p;
	while (c < end && blank(*c))
		c++;
	if (!ps->numbered_known && c < end) {
		ps->numbered_known = true;
		ps->number_sep = n && sep != '\t' ? sep : 0;
	}
	if (n && (sep == '\t' || sep == ps->number_sep))
		*p = q + n;
}

/* Any prefix before the kernel's stamp ("2024-12-06T10:15:01.123Z ",
 * "{host=\"a\"} ", "i-0abc\t", "12: ", "{noformat}"): the text's first
 * stamped line says whether its lines carry one (a log whose stamps start
 * its lines never loses a byte this way).  The first stamp of a line is
 * the kernel's: a user's text comes after it, never before.  A line that
 * starts with a blank keeps it (a further line, or a quote: kmsg.c). */
#define PREFIX_MAX 200

/* Is [p, s) a prefix that says nothing about who wrote the record?  What
 * kmsg.c reads and judges stays for it: mail quotes ("> ": their depth
 * says record or further line), a priority ("<14>": its facility), dmesg
 * -x's "user  :info  : " and any sender's tag ("host evil[1]: ", "host
 * kernel: "), all of which end in ": ". */
static bool plain_prefix(const char *p, const char *s)
{
	const char *c = p;
	while (c < s && (*c == '>' || blank(*c)))
		c++;
	if (c == s || (*p == '<' && s - p > 1 && digit(p[1])))
		return false;
	for (c = p; c + 1 < s; c++)
		if (c[0] == ':' && blank(c[1]))
			return false;
	return s[-1] != ':';
}

static void strip_prefix(struct probe_klog_paste *ps, const char **p, const char *end)
{
	const char *q = *p;
	if (q >= end || blank(*q))
		return;
	for (const char *s = q; s < end && s - q <= PREFIX_MAX; s++) {
		if (*s != '[' || !kmsg_paste_stamp(s, end, NULL))
			continue;
		if (!plain_prefix(q, s))
			return;
		if (!ps->prefix_known) {
			ps->prefix_known = true;
			ps->prefixed = s > q;
		}
		if (ps->prefixed)
			*p = s;
		return;
	}
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

size_t kmsg_paste_unwrap(struct probe_klog_paste *ps, const char *line, size_t len, char *buf,
			 size_t size, const char **out)
{
	ps->foreign = false;
	size_t n = kmsg_paste_json(ps, line, len, buf, size);
	if (n) {
		line = buf;
		len = n;
	}
	char *nb = n ? buf + n : buf; /* the JSON's text, if any, stays where it is */
	size_t m = normalize(line, len, nb, size - (size_t)(nb - buf));
	const char *p = m ? nb : line, *end = p + (m ? m : len);
	skip_line_number(ps, &p, end);
	if (!strip_fields(&p, &end))
		strip_prefix(ps, &p, end);
	*out = p;
	return (size_t)(end - p);
}
