// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The text forms' record grammar (probe_klog_parse.form PROBE_KLOG_TEXT and
 * PROBE_KLOG_SYSLOG): what a saved or pasted log puts before the kernel's
 * message (quote marks, "<pri>", a syslog or journal header, dmesg -x's
 * facility, the timestamp in any of dmesg's formats, the caller id), taken
 * off one line into a struct rec; and whether a line starts a record of its
 * own.  Liberal where kmsg.c is strict: the prefix says the facility only
 * where it carries one, and a quoted line is only as good as its quote.
 */
#include <string.h>

#include "kmsg_parse.h"
#include "kmsg_paste.h"
#include "probe.h"
#include "text.h"

/* "<6>": syslog(2)'s and dmesg -r's priority (print_syslog()). */
static bool skip_pri(struct text *t, struct rec *r)
{
	struct text s = *t;
	uint64_t v;
	if (!text_lit(&s, "<") || !text_dec(&s, &v, 1u << 16) || !text_lit(&s, ">"))
		return false;
	*t = s;
	r->kernel = (v >> 3) == 0;
	return true;
}

static bool skip_digits(struct text *t, int min, int max);

/* "[    0.352933]" (print_time()). */
static bool skip_stamp(struct text *t, struct rec *r)
{
	const char *p = t->p, *e = t->end;
	if (p >= e || *p++ != '[')
		return false;
	while (p < e && *p == ' ')
		p++;
	bool nonzero = false;
	const char *d = p;
	while (p < e && *p >= '0' && *p <= '9')
		nonzero |= *p++ != '0';
	if (p == d || p >= e || *p++ != '.')
		return false;
	d = p;
	while (p < e && *p >= '0' && *p <= '9')
		nonzero |= *p++ != '0';
	if (p == d)
		return false;
	const char *pad = p;
	while (p < e && *p == ' ')
		p++; /* "[ 0.123 ]": some vendor kernels' printk */
	r->padded = p > pad;
	p = kmsg_paste_delta(p, e); /* dmesg -d: "[    0.352933 <    0.000902>]" */
	if (p >= e || *p++ != ']')
		return false;
	t->p = p;
	r->stamp = true;
	r->stamp_zero = !nonzero;
	return true;
}

/* dmesg -H: "[Dec 6 10:15]" where the minute changes, "[  +0.002991]"
 * between (util-linux dmesg.c, the reltime format): no monotonic time. */
static bool skip_human(struct text *t)
{
	struct text s = *t;
	if (!text_lit(&s, "["))
		return false;
	if (text_lit(&s, "Jan") || text_lit(&s, "Feb") || text_lit(&s, "Mar") ||
	    text_lit(&s, "Apr") || text_lit(&s, "May") || text_lit(&s, "Jun") ||
	    text_lit(&s, "Jul") || text_lit(&s, "Aug") || text_lit(&s, "Sep") ||
	    text_lit(&s, "Oct") || text_lit(&s, "Nov") || text_lit(&s, "Dec")) {
		while (s.p < s.end && *s.p == ' ')
			s.p++;
		if (!skip_digits(&s, 1, 2) || !text_lit(&s, " ") || !skip_digits(&s, 2, 2) ||
		    !text_lit(&s, ":") || !skip_digits(&s, 2, 2) || !text_lit(&s, "]"))
			return false;
	} else {
		while (s.p < s.end && *s.p == ' ')
			s.p++;
		if (!text_lit(&s, "+") || !skip_digits(&s, 1, 9) || !text_lit(&s, ".") ||
		    !skip_digits(&s, 1, 9) || !text_lit(&s, "]"))
			return false;
	}
	*t = s;
	return true;
}

/* "[    T1]" / "[   C12]" (CONFIG_PRINTK_CALLER, print_caller()). */
static bool skip_caller(struct text *t)
{
	const char *p = t->p, *e = t->end;
	if (p >= e || *p++ != '[')
		return false;
	while (p < e && *p == ' ')
		p++;
	if (p >= e || (*p != 'T' && *p != 'C'))
		return false;
	const char *d = ++p;
	while (p < e && *p >= '0' && *p <= '9')
		p++;
	if (p == d || p >= e || *p != ']')
		return false;
	t->p = p + 1;
	return true;
}

static bool skip_letters(struct text *t, int n)
{
	for (int i = 0; i < n; i++, t->p++)
		if (t->p >= t->end ||
		    !((*t->p >= 'a' && *t->p <= 'z') || (*t->p >= 'A' && *t->p <= 'Z')))
			return false;
	return true;
}

static bool skip_digits(struct text *t, int min, int max)
{
	int n = 0;
	while (t->p < t->end && *t->p >= '0' && *t->p <= '9' && n < max)
		t->p++, n++;
	return n >= min;
}

static bool skip_clock(struct text *t)
{
	return skip_digits(t, 2, 2) && text_lit(t, ":") && skip_digits(t, 2, 2) &&
	       text_lit(t, ":") && skip_digits(t, 2, 2);
}

/* dmesg -T: "[Mon May  4 12:22:28 2024]" (ctime). */
static bool skip_ctime(struct text *t)
{
	struct text s = *t;
	if (!text_lit(&s, "[") || !skip_letters(&s, 3) || !text_lit(&s, " ") ||
	    !skip_letters(&s, 3) || !text_lit(&s, " "))
		return false;
	text_lit(&s, " ");
	if (!skip_digits(&s, 1, 2) || !text_lit(&s, " ") || !skip_clock(&s) || !text_lit(&s, " ") ||
	    !skip_digits(&s, 4, 4) || !text_lit(&s, "]"))
		return false;
	*t = s;
	return true;
}

/* A syslog or journal date: "May 04 12:22:28", "Sep  6 10:22:55.123456",
 * "2024-05-04T12:22:28+0200"; then one space. */
static bool skip_date(struct text *t)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	struct text s = *t;
	bool month = false;
	for (int i = 0; i < 12 && s.end - s.p >= 4 && s.p[3] == ' '; i++)
		month |= !memcmp(s.p, months + 3 * i, 3);
	if (month) {
		s.p += 4;
		while (s.p < s.end && *s.p == ' ')
			s.p++;
		if (!skip_digits(&s, 1, 2) || !text_lit(&s, " ") || !skip_clock(&s))
			return false;
		if (text_lit(&s, "."))
			skip_digits(&s, 1, 9);
	} else if (s.end - s.p >= 9 && s.p[2] == ':' && s.p[5] == ':') {
		/* A time alone: "14:46:57 kernel: " (journalctl -o short, cut). */
		if (!skip_clock(&s))
			return false;
		if (text_lit(&s, "."))
			skip_digits(&s, 1, 9);
	} else {
		/* journalctl -o short-full: "Tue 2024-12-06 10:15:01 UTC". */
		struct text w = s;
		if (skip_letters(&w, 3) && text_lit(&w, " "))
			s = w;
		if (!skip_digits(&s, 4, 4) || !text_lit(&s, "-") || !skip_digits(&s, 2, 2) ||
		    !text_lit(&s, "-") || !skip_digits(&s, 2, 2))
			return false;
		if (text_lit(&s, " ")) {
			if (!skip_clock(&s))
				return false;
			if (text_lit(&s, "."))
				skip_digits(&s, 1, 9);
		} else if (!text_lit(&s, "T")) {
			return false;
		}
		/* dmesg --time-format iso: "2024-12-06T10:15:01,123456+01:00". */
		while (s.p < s.end && ((*s.p >= '0' && *s.p <= '9') || *s.p == ':' || *s.p == '.' ||
				       *s.p == ',' || *s.p == '+' || *s.p == '-' || *s.p == 'Z'))
			s.p++;
	}
	if (!text_lit(&s, " "))
		return false;
	*t = s;
	return true;
}

/* journalctl -k, syslog files: "DATE [HOST] kernel: ".  1 the kernel's
 * record follows, -1 another program's, 0 no such header. */
static int skip_header(struct text *t)
{
	struct text s = *t;
	if (!skip_date(&s))
		return 0;
	for (int word = 0; word < 3; word++) {
		const char *sp = memchr(s.p, ' ', (size_t)(s.end - s.p));
		if (!sp)
			return 0;
		size_t n = (size_t)(sp - s.p);
		if (n == 7 && !memcmp(s.p, "kernel:", 7)) {
			t->p = sp + 1;
			return 1;
		}
		if (word >= 1 && n > 1 && s.p[n - 1] == ':')
			return -1; /* "host systemd[1]: ..." */
		s.p = sp + 1;
	}
	return 0;
}

/* dmesg --time-format iso: "2024-12-06T10:15:01,123456+01:00 " before the
 * record itself (util-linux dmesg.c: "%Y-%m-%dT%H:%M:%S,%06ld%+03d:%02d"):
 * the comma says it is dmesg's, not a journal's or a shipper's. */
static bool skip_iso_stamp(struct text *t)
{
	struct text s = *t;
	const char *start = s.p;
	if (!skip_digits(&s, 4, 4) || !text_lit(&s, "-") || s.end - start < 27 ||
	    start[10] != 'T' || start[19] != ',')
		return false;
	s.p = start;
	if (!skip_date(&s))
		return false;
	*t = s;
	return true;
}

/* A token up to the next space, and that space. */
static bool skip_token(struct text *t)
{
	const char *sp = memchr(t->p, ' ', (size_t)(t->end - t->p));
	if (!sp || sp == t->p)
		return false;
	t->p = sp + 1;
	return true;
}

/* RFC 5424's structured data: "-", or "[id k=\"v\"]" elements (a value may
 * hold "]" or a space, escaped or quoted: section 6.3). */
static bool skip_sd(struct text *t)
{
	if (text_lit(t, "-"))
		return true;
	bool any = false;
	while (t->p < t->end && *t->p == '[') {
		bool quoted = false;
		for (t->p++; t->p < t->end && (quoted || *t->p != ']'); t->p++) {
			if (*t->p == '\\' && t->p + 1 < t->end)
				t->p++;
			else if (*t->p == '"')
				quoted = !quoted;
		}
		if (!text_lit(t, "]"))
			return false;
		any = true;
	}
	return any;
}

/* RFC 5424 after its "<pri>": "1 TIMESTAMP HOST APP PROCID MSGID SD MSG"
 * (section 6): 1 the kernel's record follows (APP "kernel"), -1 another
 * program's, 0 no such header. */
static int skip_rfc5424(struct text *t)
{
	struct text s = *t;
	if (!text_lit(&s, "1 ") || !skip_token(&s) || !skip_token(&s))
		return 0;
	bool kernel = s.end - s.p > 7 && !memcmp(s.p, "kernel ", 7);
	if (!skip_token(&s) || !skip_token(&s) || !skip_token(&s) || !skip_sd(&s))
		return 0;
	text_lit(&s, " ");
	*t = s;
	return kernel ? 1 : -1;
}

/* dmesg -x: "kern  :info  : " ("%-6s:%-6s: "): 1 the kernel's, -1 another
 * facility's, 0 none. */
static int skip_decode(struct text *t)
{
	const char *p = t->p;
	if (t->end - p < 15 || p[6] != ':' || p[13] != ':' || p[14] != ' ')
		return 0;
	for (int f = 0; f < 2; f++) {
		const char *w = p + 7 * f;
		int i = 0;
		while (i < 6 && ((w[i] >= 'a' && w[i] <= 'z') || (w[i] >= '0' && w[i] <= '9')))
			i++;
		if (i == 0)
			return 0;
		while (i < 6 && w[i] == ' ')
			i++;
		if (i < 6)
			return 0;
	}
	t->p += 15;
	return !memcmp(p, "kern  ", 6) ? 1 : -1;
}

/* The blanks before a "[ts]" or "<pri>" that start a line, or 0. */
static size_t quote_blanks(const char *line, size_t len)
{
	size_t n = 0;
	while (n < len && (line[n] == ' ' || line[n] == '\t'))
		n++;
	if (n == 0 || n > 255)
		return 0;
	struct text t = {line + n, line + len};
	struct rec scratch;
	return skip_stamp(&t, &scratch) || skip_pri(&t, &scratch) ? n : 0;
}

/* The blanks that start a line before its text, or 0 (none, more than
 * one byte's worth, or the line is blank). */
static size_t bare_blanks(const char *line, size_t len)
{
	size_t n = 0;
	while (n < len && (line[n] == ' ' || line[n] == '\t'))
		n++;
	return n < len && n <= 255 && line[n] != '\r' ? n : 0;
}

/* The text's first line that is not blank: a paste of `dmesg -t` indented
 * once ("  Linux version ...", every line alike) says so there, where a
 * log's first line is never a record's further line.  Its lines are read
 * as dmesg -t printed them (no more trusted: a text without timestamps is
 * only as trustworthy as its source), a line indented deeper stays a
 * further line, and a stamped line ends the mode (no dmesg -t paste has
 * one). */
#define BARE_INDENT_MAX 8

static void first_line(struct probe_klog_parse *ps, const char *line, size_t len)
{
	size_t q = bare_blanks(line, len), n = 0;
	while (n < len && (line[n] == ' ' || line[n] == '\t' || line[n] == '\r'))
		n++;
	if (n == len)
		return; /* blank: the next line says */
	ps->first_line = true;
	struct text t = {line + q, line + len};
	struct rec scratch;
	/* At most 8 blanks: dmesg and the journal indent a record's further
	 * lines by their stamp's or header's width (15 and more), so a text
	 * cut inside a user's record never starts like a paste indented once. */
	if (q && q <= BARE_INDENT_MAX && !skip_stamp(&t, &scratch) && !skip_pri(&t, &scratch) &&
	    !skip_ctime(&t) && !skip_date(&t)) {
		ps->quote_known = ps->quote_bare = true;
		ps->quote_blanks = (unsigned char)q;
	}
}

/* journalctl -o short-monotonic: "[    0.588495] HOST kernel: text", and
 * another program's "[    5.1] HOST systemd[1]: text".  The text's first
 * stamped line says whether its lines carry a host and a tag (a kernel
 * record never starts "WORD kernel: "); after it, only such a text's
 * lines lose them.  1 the kernel's record follows, -1 another program's,
 * 0 neither. */
static int mono_header(struct probe_klog_parse *ps, struct text *t)
{
	const char *p = t->p, *e = t->end, *host = p;
	while (p < e && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			 (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' || *p == '_'))
		p++;
	bool kernel = p > host && e - p >= 9 && !memcmp(p, " kernel: ", 9);
	if (!ps->mono_known) {
		ps->mono_known = true;
		ps->mono = kernel;
	}
	if (!ps->mono || p == host || p >= e || *p != ' ')
		return 0;
	if (kernel) {
		t->p = p + 9;
		return 1;
	}
	const char *tag = ++p;
	while (p < e && *p != ' ' && *p != ':' && p - tag < 64)
		p++;
	return p > tag && p < e && *p == ':' && e - p >= 2 && p[1] == ' ' ? -1 : 0;
}

/* A text line: quote marks ("> "), "<pri>", "DATE HOST kernel: ",
 * "kern  :info  : ", "[ts]" or "[ctime]", "[T1]", one space.  A line that
 * then starts with a blank (dmesg indents the further lines of a record)
 * starts no record.
 *
 * Quoted logs (mails, issue trackers, console captures) indent every line
 * with a tab or spaces before its "[ts]".  The first line of the text says
 * which: where it starts with blanks and a "[ts]", those blanks are the
 * quote's and are stripped from every line that has exactly them; a line
 * with more is a record's further line, as above.  Where the first line
 * (the first with a "[ts]" or "<pri>") is not indented, nothing changes.
 * A quoted line proves nothing beyond doubt (its banner starts no anchored
 * boot: kmsg_boot.c, banner()): a user's text can follow dmesg's blanks
 * too. */
void kmsg_rec_text(struct probe_klog_parse *ps, const char *line, size_t len, struct rec *r)
{
	struct text t = {line, line + len};
	*r = (struct rec){.kernel = true};
	size_t q = quote_blanks(line, len);
	if (!ps->first_line)
		first_line(ps, line, len);
	if (ps->quote_bare) {
		q = bare_blanks(line, len);
		struct text s = {line + q, line + len};
		struct rec scratch;
		if (q && skip_stamp(&s, &scratch)) {
			/* A stamped line: no dmesg -t paste, whatever its first
			 * line was (a text cut inside a user's record): indented
			 * lines are further lines again from here on. */
			ps->quote_bare = false;
		} else if (q && q == ps->quote_blanks) {
			t.p += q; /* as dmesg -t printed it: no further line is indented */
		}
		q = 0;
	} else if (!ps->quote_known) {
		struct text s = {line, line + len};
		struct rec scratch;
		if (q || skip_stamp(&s, &scratch) || skip_pri(&s, &scratch)) {
			ps->quote_known = true;
			ps->quote_blanks = (unsigned char)q;
		}
	}
	if (q && q == ps->quote_blanks) {
		t.p += q;
		r->quoted = true;
	}
	for (int i = 0; i < 8 && t.p < t.end && *t.p == '>'; i++) {
		t.p++;
		text_lit(&t, " ");
	}
	int h = skip_pri(&t, r) ? skip_rfc5424(&t) : 0;
	if (!h)
		h = skip_iso_stamp(&t) ? 0 : skip_header(&t);
	int d = skip_decode(&t);
	if (h < 0 || d < 0)
		r->kernel = false;
	bool stamped = skip_stamp(&t, r) || skip_ctime(&t) || skip_human(&t);
	/* The caller id: "[ts][    T1]" as the kernel prints it, "[ts] [    T1]"
	 * as util-linux's dmesg does. */
	struct text c = t;
	if (stamped && text_lit(&c, " ") && skip_caller(&c))
		t = c;
	else
		stamped |= skip_caller(&t);
	if (stamped)
		text_lit(&t, " ");
	if (r->padded)
		text_skip_space(&t); /* "[    0.021415 ]  ... version:" */
	if (r->stamp && mono_header(ps, &t) < 0)
		r->kernel = false;
	r->p = t.p;
	r->end = t.end;
}

/* Does a text line start a record of its own: a timestamp, a priority, a
 * date (journal, syslog), dmesg -T's time, after a quote's blanks? */
bool kmsg_starts_record(const char *line, size_t len)
{
	struct text t = {line, line + len};
	struct rec scratch;
	while (t.p < t.end && t.p - line < 256 && (*t.p == ' ' || *t.p == '\t'))
		t.p++;
	return skip_stamp(&t, &scratch) || skip_pri(&t, &scratch) || skip_date(&t) ||
	       skip_ctime(&t);
}

/* The keys x86_pmu_show_pmu_cap() prints, old and new. */
static const char dots_keys[][24] = {
	"version",
	"bit width",
	"generic registers",
	"generic counters",
	"generic bitmap",
	"fixed-purpose events",
	"fixed-purpose counters",
	"fixed-purpose bitmap",
	"value mask",
	"max period",
	"event mask",
	"global_ctrl mask",
};

static bool dots_key_at(const char *p, const char *end)
{
	for (size_t i = 0; i < sizeof(dots_keys) / sizeof(dots_keys[0]); i++) {
		size_t n = strlen(dots_keys[i]);
		if ((size_t)(end - p) > n && !memcmp(p, dots_keys[i], n) && p[n] == ':')
			return true;
	}
	return false;
}

/* Does a PMU mark ("Performance Events:", "... key:") occur inside the
 * record, past its start?  One pass over the text, two first bytes. */
bool kmsg_mark_inside(const char *p, const char *end)
{
	for (const char *q = p + 1; q < end; q++) {
		if (*q == 'P' && end - q >= 19 && !memcmp(q, "Performance Events:", 19))
			return true;
		if (*q == '.' && end - q > 4 && !memcmp(q, "... ", 4) && dots_key_at(q + 4, end))
			return true;
	}
	return false;
}
