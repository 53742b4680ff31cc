// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the kernel log says about the PMU.  The PMU driver's lines come from
 * init_hw_perf_events() and x86_pmu_show_pmu_cap() (arch/x86/events/core.c)
 * and check_hw_exists() (same file), and for a hybrid part from
 * init_hybrid_pmu() (arch/x86/events/intel/core.c):
 *
 *   Performance Events: Icelake events, Intel PMU driver.
 *   ... version:                2
 *   ... fixed-purpose events:   4            (newer: fixed-purpose counters:)
 *   ... event mask:             0000000f000000ff   (newer: global_ctrl mask:)
 *   Performance Events: unsupported p6 CPU model 183 no PMU driver, software events only.
 *   [Firmware Bug]: the BIOS has corrupted hw-PMU resources (MSR 38d is 330)
 *   core: cpu_core PMU driver:               (hybrid: a block per PMU)
 *
 * The mask is the driver's intel_ctrl: bit 48 is GLOBAL_CTRL_EN_PERF_METRICS
 * (arch/x86/include/asm/perf_event.h), set only when the driver enumerated
 * perf metrics.  The other lines read (the marks[] table below) say what
 * the machine is where CPUID and sysfs are missing: a support engineer
 * often has a customer's kernel log and nothing else.
 *
 * Anyone can put text into the kernel log.  Kernel records quote names that
 * users choose: the x86 segfault report ends with the basename of the file
 * mapped at the faulting address (print_vma_addr(), mm/memory.c, "%s%s[%lx+%lx]"),
 * and starts with the task's comm.  Writes to /dev/kmsg become records of
 * facility LOG_USER unless they name another non-zero one (devkmsg_write(),
 * kernel/printk/printk.c: "we enforce LOG_USER, to be able to reliably
 * distinguish kernel-generated messages from userspace-injected ones").  So a
 * record counts only as the kernel's own lines allow:
 *
 *  1. Facility: where the form carries the priority (/dev/kmsg's
 *     "pri,seq,usec,flags;", syslog(2)'s "<pri>", dmesg -r's "<pri>",
 *     dmesg -x's "kern  :"), it must be 0, the kernel's.  Another
 *     facility's record is ignored.  A text without one is taken as it is.
 *  2. A mark is evidence only at the start of the record's text, after the
 *     form's prefix (timestamp, host, quote marks), in the kernel's format
 *     of that line; the driver's "... key:  value" lines parse strictly
 *     (nothing after the value).  A mark inside a record is not evidence.
 *  3. The driver's block is the first of the boot: "Performance Events:",
 *     then the driver's own records ("... " lines, check_hw_exists()'s
 *     lines, the end of the first line where one of them broke it, a hybrid
 *     part's "<pmu> PMU driver:"); it ends at the first other record once its
 *     "... " lines began (before them a few others may come: quirks,
 *     pmu_check_apic(); KLOG_HEAD_OTHERS).  A first block without "... "
 *     lines (QEMU's TCG prints a bare "PMU not available due to
 *     virtualization") gives way to a later block that has them (tests/vm's
 *     test PMU module prints one after it; on a real machine whose driver
 *     failed, no counter can fault).
 *     Every later block is ignored: a hybrid part's second PMU, printed when
 *     its first CPU comes up, is one of those.  Inside the block, each
 *     "<pmu> PMU driver:" opens that PMU's section (struct probe_klog_pmu):
 *     the "..." lines up to the next one are its own numbers.
 *  4. /dev/kmsg escapes control characters in a record (msg_add_ext_text():
 *     '\n' is "\x0a"), so each read is one whole record.  syslog(2)
 *     READ_ALL (record_print_text()) and the text forms print a record
 *     holding '\n' as several lines, each with the record's prefix (dmesg
 *     indents them, busybox and syslog(2) do not): there a line can be a
 *     user's.  A block read there proves perf metrics only when the log
 *     holds its boot's start, the banner ("Linux version", printed first of
 *     all by start_kernel(), init/main.c, at time 0) before it: the block is
 *     printed at early_initcall time, before any user process exists, so
 *     the first block after the banner is the driver's.  A banner is one
 *     only in the kernel's format and, where the line carries a timestamp,
 *     at time 0; in the live ring buffer (one boot) only the first is.
 *
 * What was ignored is counted (struct probe_klog_ignored) for the report.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>

#include "kmsg_paste.h"
#include "probe.h"
#include "sys.h"
#include "text.h"

#define GLOBAL_CTRL_EN_PERF_METRICS_BIT 48
/* Records allowed between "Performance Events:" and its first "..." line:
 * the vendor init's and quirks' own (intel_arch_events_quirk()'s "CPUID
 * marked event: '%s' unavailable", up to 7; "CPU erratum AAJ80 worked
 * around"; pmu_check_apic()'s two), printed in the same early_initcall. */
#define KLOG_HEAD_OTHERS 12

enum { BLOCK_NONE = 0, BLOCK_HEAD, BLOCK_LINES };

void probe_klog_begin(struct probe_klog *k, enum probe_klog_form form)
{
	*k = (struct probe_klog){.fixed_logged = -1, .version_logged = -1, .gp_logged = -1,
				 .unsupported_family = -1, .unsupported_nr = -1};
	k->parse.form = (unsigned char)form;
}

void probe_klog_reset(struct probe_klog *k)
{
	probe_klog_begin(k, PROBE_KLOG_TEXT);
}

/* A banner: a boot starts, everything starts over. */
static void boot_reset(struct probe_klog *k)
{
	struct probe_klog_parse p = k->parse;
	probe_klog_begin(k, (enum probe_klog_form)p.form);
	k->parse.any_record = p.any_record;
	k->parse.quote_known = p.quote_known;
	k->parse.quote_blanks = p.quote_blanks;
	k->parse.quote_bare = p.quote_bare;
	k->parse.first_line = p.first_line;
	k->parse.mono_known = p.mono_known;
	k->parse.mono = p.mono;
	k->parse.restart_seen = p.restart_seen;
	k->parse.paste = p.paste;
	memcpy(k->parse.clean, p.clean, sizeof(p.clean)); /* text may point into it */
	k->parse.text = p.text;
	k->parse.text_len = p.text_len;
}

/* A later block replaces a bare first one: the boot's other facts stay. */
static void pmu_reset(struct probe_klog *k)
{
	struct probe_boot boot = k->boot;
	struct probe_klog_ignored ignored = k->ignored;
	struct probe_klog_parse p = k->parse;
	probe_klog_begin(k, (enum probe_klog_form)p.form);
	k->boot = boot;
	k->ignored = ignored;
	k->parse = p;
	k->parse.section = 0; /* the sections went with the bare block */
}

/* One record as the parser sees it: its text after the form's prefix. */
struct rec {
	const char *p, *end;
	bool kernel;     /* facility 0, or the form does not say */
	bool stamp;      /* a monotonic timestamp came with it ... */
	bool stamp_zero; /* ... and it is 0 */
	bool quoted;     /* it came indented, as a quoted log's lines do */
	bool padded;     /* its stamp had blanks before the ']': "[ 0.123 ]" */
};

bool probe_kmsg_record(const char *rec, size_t n, unsigned *pri, uint64_t *usec,
		       const char **text, size_t *text_len)
{
	struct text t = {rec, rec + n};
	uint64_t p, seq;
	if (!text_dec(&t, &p, 1u << 16) || !text_lit(&t, ",") || !text_dec(&t, &seq, UINT64_MAX) ||
	    !text_lit(&t, ",") || !text_dec(&t, usec, UINT64_MAX) || !text_lit(&t, ","))
		return false;
	const char *semi = memchr(t.p, ';', (size_t)(t.end - t.p));
	if (!semi)
		return false;
	const char *nl = memchr(semi + 1, '\n', (size_t)(t.end - semi - 1));
	*pri = (unsigned)p;
	*text = semi + 1;
	*text_len = (size_t)((nl ? nl : t.end) - *text);
	return true;
}

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
		if (t->p >= t->end || !((*t->p >= 'a' && *t->p <= 'z') || (*t->p >= 'A' && *t->p <= 'Z')))
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
		while (s.p < s.end && ((*s.p >= '0' && *s.p <= '9') || *s.p == ':' ||
				       *s.p == '.' || *s.p == ',' || *s.p == '+' || *s.p == '-' ||
				       *s.p == 'Z'))
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
 * (the first with a "[ts]" or "<pri>") is not indented, nothing changes.  A quoted line proves nothing beyond
 * doubt (its banner starts no anchored boot: banner()): a user's text can
 * follow dmesg's blanks too. */
static void rec_text(struct probe_klog_parse *ps, const char *line, size_t len, struct rec *r)
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
	skip_pri(&t, r);
	int h = skip_iso_stamp(&t) ? 0 : skip_header(&t);
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

/* One record of the form; false for a line that is none (a /dev/kmsg read
 * without its header). */
static bool rec_of(struct probe_klog_parse *ps, const char *line, size_t len, struct rec *r)
{
	enum probe_klog_form form = (enum probe_klog_form)ps->form;
	if (form == PROBE_KLOG_KMSG) {
		unsigned pri;
		uint64_t usec;
		const char *text;
		size_t n;
		if (!probe_kmsg_record(line, len, &pri, &usec, &text, &n))
			return false;
		*r = (struct rec){text, text + n, (pri >> 3) == 0, true, usec == 0};
		return true;
	}
	rec_text(ps, line, len, r);
	return true;
}

/* The marks, each at the start of a record's text, in the kernel's printk
 * format of its line:
 *   "Performance Events:"             init_hw_perf_events() (arch/x86/events/core.c)
 *   "... "                            x86_pmu_show_pmu_cap() (same file)
 *   "[Firmware Bug]: the BIOS has ..." check_hw_exists() (same file, FW_BUG)
 *   "Failed to access perfctr msr"    check_hw_exists()
 *   "Linux version "                  init/main.c, linux_banner (a boot starts)
 *   "DMI: "                           dmi_setup() (drivers/firmware/dmi_scan.c):
 *                                     "sys_vendor product_name/board_name, BIOS ver date"
 *   "Hardware name: "                 dump_stack_print_info(): the same string, in oopses
 *   "Hypervisor detected: "           init_hypervisor_platform() (arch/x86/kernel/cpu/hypervisor.c)
 *   "Booting paravirtualized kernel on " setup_per_cpu_areas() -> pv_info.name
 *   "smpboot: CPU0: "                 print_cpu_info() (arch/x86/kernel/cpu/common.c):
 *                                     "[vendor ]model_id (family: 0x%x, model: 0x%x, stepping: 0x%x)"
 *   "unchecked MSR access error: "    ex_handler_msr() (arch/x86/mm/extable.c)
 *   "hv_vmbus: ", "Hyper-V: ", "kvm-clock: ", "kvm-guest: " (their pr_fmt), "Xen version",
 *   "(XEN) " (Xen's own console lines, interleaved with dom0's in serial captures),
 *   "CPU MTRRs all blank - virtualized system" (mtrr_bp_init()): printed by guests only.
 *   "CPU topo: Crash kernel detected" (topo_register_apic(), arch/x86/kernel/cpu/topology.c,
 *                                     6.9+) and "Command line: " / "Kernel command line: "
 *                                     (setup_arch(), start_kernel()) with elfcorehdr=, which
 *                                     kexec-tools passes only to a kdump capture kernel.
 *   "DMI not present or invalid"      dmi_setup(): no SMBIOS (Firecracker gives none)
 *   "hw perfevents: enabled with "    the Arm PMU driver's probe (drivers/perf/arm_pmu_platform.c,
 *                                     arm_pmu_acpi.c): "%s PMU driver, %d counters available"
 *   "kexec_core: Starting new kernel" kernel_kexec() (kernel/kexec_core.c) and "reboot: Restarting
 *                                     system" (kernel_restart(), kernel/reboot.c): the boot before
 *                                     the next banner ended in a kexec or a reset. */
enum mark_what {
	M_OPENER,
	M_DOTS,
	M_FW_CORRUPT,
	M_PERFCTR_FAIL,
	M_BANNER,
	M_DMI,
	M_HWNAME,
	M_HV_DETECTED,
	M_PARAVIRT,
	M_SMPBOOT,
	M_MSR_ERROR,
	M_HYPERV,
	M_KVM,
	M_XEN,
	M_VIRTUALIZED,
	M_CRASH_KERNEL,
	M_CMDLINE,
	M_NO_DMI,
	M_RESTART,
	M_ARM_PMU,
	M_NONE,
};

/* The text inline, not a pointer: a table of pointers costs the loader a
 * relocation per entry in every process the shim is preloaded into. */
static const struct {
	char mark[64];
	unsigned char len;
	unsigned char what; /* enum mark_what */
} marks[] = {
#define MARK(s, w) {s, sizeof(s) - 1, w}
	MARK("Performance Events:", M_OPENER),
	MARK("... ", M_DOTS),
	MARK("[Firmware Bug]: the BIOS has corrupted hw-PMU resources (MSR", M_FW_CORRUPT),
	MARK("Failed to access perfctr msr (MSR", M_PERFCTR_FAIL),
	MARK("Linux version ", M_BANNER),
	MARK("DMI: ", M_DMI),
	MARK("Hardware name: ", M_HWNAME),
	MARK("Hypervisor detected: ", M_HV_DETECTED),
	MARK("Booting paravirtualized kernel on ", M_PARAVIRT),
	MARK("smpboot: CPU0: ", M_SMPBOOT),
	MARK("unchecked MSR access error: ", M_MSR_ERROR),
	MARK("hv_vmbus: ", M_HYPERV),
	MARK("Hyper-V: ", M_HYPERV),
	MARK("kvm-clock: ", M_KVM),
	MARK("kvm-guest: ", M_KVM),
	MARK("Xen version", M_XEN),
	MARK("(XEN) ", M_XEN),
	MARK("CPU MTRRs all blank - virtualized system", M_VIRTUALIZED),
	MARK("CPU topo: Crash kernel detected", M_CRASH_KERNEL),
	MARK("Command line: ", M_CMDLINE),
	MARK("Kernel command line: ", M_CMDLINE),
	MARK("DMI not present or invalid", M_NO_DMI),
	MARK("kexec_core: Starting new kernel", M_RESTART),
	MARK("reboot: Restarting system", M_RESTART),
	MARK("hw perfevents: enabled with ", M_ARM_PMU),
#undef MARK
};

/* The mark at the start of [p, end), or M_NONE: one compare of the first
 * byte per mark, and most records of a long log match none. */
static enum mark_what mark_at(const char *p, const char *end, size_t *len)
{
	size_t n = (size_t)(end - p);
	if (n == 0)
		return M_NONE;
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (marks[i].mark[0] == p[0] && n >= marks[i].len &&
		    memcmp(p, marks[i].mark, marks[i].len) == 0) {
			*len = marks[i].len;
			return (enum mark_what)marks[i].what;
		}
	return M_NONE;
}

/* The keys x86_pmu_show_pmu_cap() prints, old and new. */
static const char dots_keys[][24] = {
	"version",	      "bit width",	      "generic registers", "generic counters",
	"generic bitmap",     "fixed-purpose events", "fixed-purpose counters",
	"fixed-purpose bitmap", "value mask",	      "max period",	   "event mask",
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
static bool mark_inside(const char *p, const char *end)
{
	for (const char *q = p + 1; q < end; q++) {
		if (*q == 'P' && end - q >= 19 && !memcmp(q, "Performance Events:", 19))
			return true;
		if (*q == '.' && end - q > 4 && !memcmp(q, "... ", 4) && dots_key_at(q + 4, end))
			return true;
	}
	return false;
}

/* "... key:   value" in the driver's format: the key, a colon, blanks, one
 * number (decimal or hex digits), nothing after it but blanks.
 * "... event mask: 0001000f000000ff[7f00+1000]" is not one. */
struct dots {
	const char *key;
	size_t klen;
	struct text val;
};

static bool dots_parse(const char *p, const char *end, struct dots *d)
{
	const char *key = p + 4, *colon = memchr(key, ':', (size_t)(end - key));
	if (!colon || colon == key || colon - key > 32)
		return false;
	for (const char *q = key; q < colon; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == ' ' || *q == '-' ||
		      *q == '_'))
			return false;
	struct text t = {colon + 1, end};
	if (t.p >= t.end || (*t.p != ' ' && *t.p != '\t'))
		return false;
	text_skip_space(&t);
	const char *v = t.p;
	while (t.p < t.end && text_hexval(*t.p) >= 0)
		t.p++;
	if (t.p == v)
		return false;
	*d = (struct dots){key, (size_t)(colon - key), {v, t.p}};
	text_skip_space(&t);
	return t.p == t.end;
}

static bool key_is(const struct dots *d, const char *s)
{
	return d->klen == strlen(s) && !memcmp(d->key, s, d->klen);
}

/* The value as a decimal below limit, all of it. */
static bool dots_dec(const struct dots *d, uint64_t *v, uint64_t limit)
{
	struct text t = d->val;
	return text_dec(&t, v, limit) && t.p == t.end;
}

static bool dots_hex(const struct dots *d, uint64_t *v)
{
	struct text t = d->val;
	return text_hex(&t, v, 16) && t.p == t.end;
}

/* A line of a hybrid section: that PMU's own numbers. */
static void section_fields(struct probe_klog_pmu *s, const struct dots *d)
{
	uint64_t v;
	if ((key_is(d, "fixed-purpose events") || key_is(d, "fixed-purpose counters")) &&
	    dots_dec(d, &v, 65)) {
		if (s->fixed_logged < 0)
			s->fixed_logged = (int)v;
		if (v > 3)
			s->fixed3_logged = true;
	}
	if (key_is(d, "fixed-purpose bitmap") && dots_hex(d, &v)) {
		if (!s->fixed_bitmap_seen)
			s->fixed_bitmap = (uint32_t)v;
		s->fixed_bitmap_seen = true;
		if ((v >> 3) & 1)
			s->fixed3_logged = true;
	}
	if ((key_is(d, "event mask") || key_is(d, "global_ctrl mask")) && dots_hex(d, &v)) {
		if (!s->mask_seen)
			s->mask = v;
		s->mask_seen = true;
		if ((v >> GLOBAL_CTRL_EN_PERF_METRICS_BIT) & 1)
			s->perf_metrics_bit = true;
		if ((v >> 35) & 1)
			s->fixed3_logged = true;
	}
}

/* A line of the driver's block: the first block's numbers (a hybrid part
 * prints the boot CPU's PMU first, cpu_core's), counter 3 in any; and the
 * open hybrid section's own. */
static void dots_fields(struct probe_klog *k, const struct dots *d)
{
	uint64_t v;
	if (k->parse.section > 0 && k->parse.section <= k->n_pmus)
		section_fields(&k->pmus[k->parse.section - 1], d);
	if (key_is(d, "version") && dots_dec(d, &v, 256) && k->version_logged < 0)
		k->version_logged = (int)v;
	if ((key_is(d, "generic registers") || key_is(d, "generic counters")) &&
	    dots_dec(d, &v, 65) && k->gp_logged < 0)
		k->gp_logged = (int)v;
	if ((key_is(d, "fixed-purpose events") || key_is(d, "fixed-purpose counters")) &&
	    dots_dec(d, &v, 65)) {
		if (k->fixed_logged < 0)
			k->fixed_logged = (int)v;
		if (v > 3)
			k->fixed3_logged = true;
	}
	if (key_is(d, "fixed-purpose bitmap") && dots_hex(d, &v)) {
		if (!k->fixed_bitmap_seen)
			k->fixed_bitmap = (uint32_t)v;
		k->fixed_bitmap_seen = true;
		if ((v >> 3) & 1)
			k->fixed3_logged = true;
	}
	if ((key_is(d, "event mask") || key_is(d, "global_ctrl mask")) && dots_hex(d, &v)) {
		if (!k->mask_seen)
			k->mask = v;
		k->mask_seen = true;
		if ((v >> GLOBAL_CTRL_EN_PERF_METRICS_BIT) & 1)
			k->perf_metrics_bit = true;
		/* intel_ctrl bits 32+: the fixed counters the driver will use
		 * (INTEL_PMC_IDX_FIXED, arch/x86/include/asm/perf_event.h); an AMD
		 * mask has none. */
		if ((v >> 35) & 1)
			k->fixed3_logged = true;
	}
}

/* The vendor words print_cpu_info() puts in the CPU0 line (cpu_dev.c_vendor,
 * printed unless the model string holds it already) and the PMU drivers'
 * banners, to the CPUID vendor strings. */
static const struct {
	const char *word, *vendor;
} vendor_words[] = {
	{"Intel", "GenuineIntel"}, {"AMD", "AuthenticAMD"},   {"Hygon", "HygonGenuine"},
	{"Zhaoxin", "  Shanghai  "}, {"Centaur", "CentaurHauls"},
};

/* The PMU's MSRs (Intel SDM vol. 4; arch/x86/include/asm/msr-index.h). */
static const struct {
	uint32_t lo, hi;
	const char *name;
} pmu_msrs[] = {
	{0xc1, 0xc8, "IA32_PMCx (general counter)"},
	{0x186, 0x18d, "IA32_PERFEVTSELx (event select)"},
	{0x309, 0x309, "IA32_FIXED_CTR0 (instructions)"},
	{0x30a, 0x30a, "IA32_FIXED_CTR1 (cycles)"},
	{0x30b, 0x30b, "IA32_FIXED_CTR2 (ref-cycles)"},
	{0x30c, 0x30c, "IA32_FIXED_CTR3 (TOPDOWN.SLOTS)"},
	{0x30d, 0x30f, "IA32_FIXED_CTRx (fixed counters 4-6)"},
	{0x329, 0x329, "MSR_PERF_METRICS"},
	{0x345, 0x345, "IA32_PERF_CAPABILITIES"},
	{0x38d, 0x38d, "IA32_FIXED_CTR_CTRL"},
	{0x38e, 0x38e, "IA32_PERF_GLOBAL_STATUS"},
	{0x38f, 0x38f, "IA32_PERF_GLOBAL_CTRL"},
	{0x390, 0x390, "IA32_PERF_GLOBAL_STATUS_RESET"},
	{0x3f1, 0x3f1, "IA32_PEBS_ENABLE"},
	{0x4c1, 0x4c8, "IA32_A_PMCx (full-width general counter)"},
	{0xc0000300, 0xc0000303, "AMD PerfMonV2 global control/status"},
	{0xc0010000, 0xc0010007, "AMD PERF_CTL/PERF_CTR (legacy)"},
	{0xc0010200, 0xc001020b, "AMD PERF_CTL/PERF_CTR (core extension)"},
};

const char *probe_pmu_msr_name(uint32_t msr)
{
	for (size_t i = 0; i < sizeof(pmu_msrs) / sizeof(pmu_msrs[0]); i++)
		if (msr >= pmu_msrs[i].lo && msr <= pmu_msrs[i].hi)
			return pmu_msrs[i].name;
	return NULL;
}

/* Copy [p, end) into dst (size > 0), cut, printable ASCII only. */
static void copy_text(char *dst, size_t size, const char *p, const char *end)
{
	size_t n = 0;
	for (; p < end && n + 1 < size; p++)
		dst[n++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
	while (n > 0 && dst[n - 1] == ' ')
		n--;
	dst[n] = '\0';
}

static void set_vendor(char dst[13], const char *start, const char *end)
{
	for (size_t i = 0; i < sizeof(vendor_words) / sizeof(vendor_words[0]); i++)
		if (text_find(start, end, vendor_words[i].word)) {
			memcpy(dst, vendor_words[i].vendor, 13);
			return;
		}
}

static bool after(const char *line, const char *end, const char *needle, struct text *t)
{
	const char *p = text_find(line, end, needle);
	if (!p)
		return false;
	*t = (struct text){p, end};
	text_skip_space(t);
	return true;
}

/* The driver's vendor in its first line, or where check_hw_exists() broke
 * that line, in its end ("Intel PMU driver.", pr_cont() in
 * init_hw_perf_events(), x86_pmu.name).  AMD's core init names itself
 * first ("Fam15h core perfctr, ", "Fam17h+ core perfctr, ":
 * amd_core_pmu_init(), arch/x86/events/amd/core.c; Hygon's too, whose
 * driver is "HYGON"), so the vendor is known where the line's end was cut
 * or wrapped. */
static const char *driver_vendor(const char *p, const char *end)
{
	if (text_find(p, end, "Intel PMU driver"))
		return "GenuineIntel";
	if (text_find(p, end, "HYGON PMU driver"))
		return "HygonGenuine";
	if (text_find(p, end, "AMD PMU driver") || text_find(p, end, "core perfctr"))
		return "AuthenticAMD";
	return NULL;
}

/* What the driver's first line (or its end) says: the vendor, or why
 * there is no driver.  Searched inside the record: every word of it is the
 * driver's own (pr_cont() pieces of init_hw_perf_events() and the vendor's
 * init, printed at early_initcall time). */
static void driver_words(struct probe_klog *k, const char *line, const char *end)
{
	struct text t;
	uint64_t v;
	const char *vendor = driver_vendor(line, end);
	if (vendor)
		memcpy(k->driver_vendor, vendor, 13);
	if (text_find(line, end, "no PMU driver, software events only"))
		k->no_pmu_driver = true;
	if (after(line, end, "unsupported p6 CPU model", &t)) {
		k->unsupported_model = true;
		k->unsupported_family = 6;
		if (text_dec(&t, &v, 1u << 16))
			k->unsupported_nr = (int)v;
	} else if (after(line, end, "unsupported CPU family", &t)) {
		k->unsupported_model = true;
		if (text_dec(&t, &v, 1u << 16))
			k->unsupported_family = (int)v;
		text_skip_space(&t);
		if (text_lit(&t, "model") && (text_skip_space(&t), text_dec(&t, &v, 1u << 16)))
			k->unsupported_nr = (int)v;
	}
	/* p6_pmu_init() / intel_pmu_init() print "unsupported ... model N "
	 * and init_hw_perf_events() ends the same line with "no PMU driver,
	 * software events only.": the first part alone means the same (a
	 * capture's line-wrap artifact, "so ftware", must not hide it). */
	if (k->unsupported_model)
		k->no_pmu_driver = true;
	if (text_find(line, end, "PMU not available due to virtualization")) {
		k->virt_unavailable = true;
		k->boot.virtualized = true; /* printed where X86_FEATURE_HYPERVISOR is set */
		k->boot.virt_anchored |= k->pmu_block_anchored;
	}
	if (text_find(line, end, "Broken PMU hardware detected"))
		k->broken_pmu = true;
}

/* The verdicts that end the driver's output (check_hw_exists()'s "software
 * events only", init_hw_perf_events()'s "no PMU driver"). */
static bool terminal(const struct probe_klog *k)
{
	return k->no_pmu_driver || k->virt_unavailable || k->broken_pmu;
}

static bool ends_with(const char *p, const char *end, const char *s)
{
	while (end > p && (end[-1] == ' ' || end[-1] == '\r' || end[-1] == '\t'))
		end--;
	size_t n = strlen(s);
	return (size_t)(end - p) >= n && !memcmp(end - n, s, n);
}

/* A hybrid part's "core: cpu_core PMU driver: " (init_hybrid_pmu(),
 * arch/x86/events/intel/core.c, under its pr_fmt "core: "); name (may be
 * NULL) gets the PMU's name. */
static bool hybrid_header(const char *p, const char *end, struct text *name)
{
	struct text t = {p, end};
	text_lit(&t, "core: ");
	const char *id = t.p;
	while (t.p < t.end && ((*t.p >= 'a' && *t.p <= 'z') || (*t.p >= '0' && *t.p <= '9') ||
			       *t.p == '_'))
		t.p++;
	if (name)
		*name = (struct text){id, t.p};
	return t.p > id && text_lit(&t, " PMU driver:");
}

/* A hybrid header in the driver's block opens that PMU's section: the
 * "..." lines after it are its own.  A name too long for the facts, or a
 * fifth section, opens none. */
static void hybrid_section(struct probe_klog *k, const char *p, const char *end)
{
	struct text name;
	k->parse.section = 0;
	if (!hybrid_header(p, end, &name) || k->n_pmus >= PROBE_MAX_PMUS ||
	    (size_t)(name.end - name.p) >= PROBE_PMU_NAME)
		return;
	struct probe_klog_pmu *s = &k->pmus[k->n_pmus++];
	*s = (struct probe_klog_pmu){.fixed_logged = -1};
	memcpy(s->name, name.p, (size_t)(name.end - name.p));
	k->parse.section = (unsigned char)k->n_pmus;
}

/* Did the kernel write this record, whatever its text?  A /dev/kmsg read
 * is one whole record of the kernel's facility; elsewhere a record before
 * the driver's block, in a boot whose banner the log holds, was printed
 * before any user process existed (rule 4).  The lines that say "guest"
 * count against a CPUID that says bare metal only where this holds: a
 * user's record split into lines must not turn a healthy machine's
 * counter into a blocked one. */
static bool kernel_beyond_doubt(const struct probe_klog *k)
{
	return k->parse.form == PROBE_KLOG_KMSG || (k->parse.boot_started && !k->pmu_driver_seen);
}

/* "Hypervisor detected:" names it best; the other lines name it where it
 * has not been named. */
static void set_hypervisor(struct probe_klog *k, const char *p, const char *end, bool strong)
{
	struct probe_boot *b = &k->boot;
	b->virtualized = true;
	b->virt_anchored |= kernel_beyond_doubt(k);
	if (!strong && b->hypervisor[0])
		return;
	copy_text(b->hypervisor, sizeof(b->hypervisor), p, end);
}

static void name_hypervisor(struct probe_klog *k, const char *name)
{
	set_hypervisor(k, name, name + strlen(name), false);
}

/* "Amazon EC2 m6i.16xlarge/, BIOS 1.0 10/16/2017": keep what is before the
 * board ("/") or, without a board, before ", BIOS ". */
static void set_dmi(struct probe_klog *kl, const char *p, const char *end, bool dmi_line)
{
	struct probe_boot *k = &kl->boot;
	const char *bios = text_find(p, end, ", BIOS ");
	if (!bios)
		return; /* "DMI: Memory slots populated: 2/2", "DMI not present" */
	bios -= 7;
	const char *slash = memchr(p, '/', (size_t)(bios - p));
	if (!dmi_line && k->dmi_from_dmi_line)
		return;
	copy_text(k->dmi, sizeof(k->dmi), p, slash ? slash : bios);
	k->dmi_from_dmi_line = dmi_line;
	k->dmi_anchored = kernel_beyond_doubt(kl);
}

static void msr_error(struct probe_boot *k, struct text t)
{
	struct probe_msr_error e = {0};
	uint64_t v;
	if (text_lit(&t, "WRMSR to "))
		e.write = true;
	else if (!text_lit(&t, "RDMSR from "))
		return;
	if (!text_hex(&t, &v, 8))
		return;
	e.msr = (uint32_t)v;
	if (!probe_pmu_msr_name(e.msr))
		return; /* not the PMU's */
	text_skip_space(&t);
	if (e.write && text_lit(&t, "(tried to write ") && text_hex(&t, &v, 16)) {
		e.value_seen = true;
		e.value = v;
	}
	for (unsigned i = 0; i < k->n_msr_errors; i++)
		if (k->msr_errors[i].msr == e.msr && k->msr_errors[i].write == e.write)
			return; /* pr_warn_once: said once per site, not per MSR */
	if (k->n_msr_errors < PROBE_MAX_MSR_ERRORS)
		k->msr_errors[k->n_msr_errors++] = e;
}

/* Is the driver's block known to be the kernel's?  A /dev/kmsg record is
 * whole; elsewhere the block must follow its boot's banner (rule 4). */
static bool anchored(const struct probe_klog_parse *ps)
{
	if (ps->orphan_lines)
		return false; /* the driver's opener was cut out: a later block may be a user's */
	return ps->form == PROBE_KLOG_KMSG || ps->boot_started;
}

/* "Linux version 6.1.0-18-cloud-amd64 (debian-kernel@...) (gcc ...) #1 SMP"
 * (linux_banner: "Linux version " UTS_RELEASE " (" LINUX_COMPILE_BY "@" ...). */
static enum probe_klog_kind banner(struct probe_klog *k, const struct rec *r, const char *p,
				   bool first)
{
	struct probe_klog_parse *ps = &k->parse;
	const char *rel = p;
	while (p < r->end && *p != ' ')
		p++;
	bool ok = p > rel && *rel >= '0' && *rel <= '9' && r->end - p >= 2 && p[1] == '(';
	if (r->stamp && !r->stamp_zero)
		ok = false; /* printed before any clock runs */
	if (ps->form != PROBE_KLOG_TEXT) {
		/* The ring buffer holds one boot, whose banner is its first record. */
		if (ps->boot_started || k->pmu_driver_seen || ps->pending)
			ok = false;
		if (ps->form == PROBE_KLOG_SYSLOG && !r->stamp && !first)
			ok = false;
	}
	if (!ok) {
		k->ignored.banner++;
		return PROBE_KLOG_NONE;
	}
	bool restart = ps->restart_seen;
	boot_reset(k);
	ps->restart_seen = false;
	k->boot.after_restart = restart;
	ps->boot_started = !r->quoted;
	k->boot.start_banner = true;
	ps->starts = true;
	copy_text(k->boot.kernel_release, sizeof(k->boot.kernel_release), rel, p);
	return PROBE_KLOG_BOOT;
}

/* "Performance Events:": the boot's first is the driver's; a later one is
 * ignored, unless the first had no "..." lines (rule 3). */
static enum probe_klog_kind opener(struct probe_klog *k, const struct rec *r)
{
	struct probe_klog_parse *ps = &k->parse;
	if (!k->pmu_driver_seen) {
		k->pmu_driver_seen = true;
		k->pmu_block_anchored = anchored(ps);
		driver_words(k, r->p, r->end);
		ps->block = terminal(k) ? BLOCK_LINES : BLOCK_HEAD;
		ps->head_left = KLOG_HEAD_OTHERS;
		ps->starts = true;
		return PROBE_KLOG_PMU;
	}
	struct probe_klog bare;
	probe_klog_reset(&bare);
	driver_words(&bare, r->p, r->end);
	if (ps->driver_lines || terminal(&bare)) {
		k->ignored.outside_block++;
		return PROBE_KLOG_NONE;
	}
	ps->pending = true;
	ps->opens_pending = true;
	memcpy(ps->pending_vendor, bare.driver_vendor, 13);
	ps->block = BLOCK_HEAD;
	ps->head_left = KLOG_HEAD_OTHERS;
	return PROBE_KLOG_NONE;
}

/* The open block ends; a pending one that got no "..." lines was not the
 * driver's. */
static void close_block(struct probe_klog *k)
{
	struct probe_klog_parse *ps = &k->parse;
	if (ps->pending)
		k->ignored.outside_block++;
	ps->pending = false;
	ps->block = BLOCK_NONE;
}

enum drv { DRV_NONE, DRV_DOTS, DRV_FW, DRV_PERFCTR, DRV_HYBRID, DRV_TAIL };

/* Is the record one of the driver's own inside the open block? */
static enum drv driver_line(const struct probe_klog_parse *ps, const struct rec *r,
			    enum mark_what m, struct dots *d)
{
	if (m == M_DOTS)
		return dots_parse(r->p, r->end, d) ? DRV_DOTS : DRV_NONE;
	if (m == M_FW_CORRUPT)
		return DRV_FW;
	if (m == M_PERFCTR_FAIL)
		return DRV_PERFCTR;
	if (m == M_NONE && hybrid_header(r->p, r->end, NULL))
		return DRV_HYBRID;
	if (m == M_NONE && ps->block == BLOCK_HEAD &&
	    (ends_with(r->p, r->end, " PMU driver.") ||
	     ends_with(r->p, r->end, "software events only.")))
		return DRV_TAIL;
	return DRV_NONE;
}

static enum probe_klog_kind block_line(struct probe_klog *k, const struct rec *r, enum drv w,
				       const struct dots *d, size_t mlen)
{
	struct probe_klog_parse *ps = &k->parse;
	if (ps->pending) {
		if (w == DRV_TAIL) {
			const char *vendor = driver_vendor(r->p, r->end);
			if (vendor)
				memcpy(ps->pending_vendor, vendor, 13);
		}
		if (w != DRV_DOTS)
			return PROBE_KLOG_NONE; /* quoted only once the block is the driver's */
		/* It has "..." lines: it replaces the bare first block. */
		pmu_reset(k);
		k->pmu_driver_seen = true;
		k->pmu_block_anchored = anchored(ps);
		memcpy(k->driver_vendor, ps->pending_vendor, 13);
		ps->pending = false;
		ps->commits = true;
	}
	struct text t = {r->p + mlen, r->end};
	uint64_t v;
	switch (w) {
	case DRV_DOTS:
		ps->driver_lines = true;
		ps->block = BLOCK_LINES;
		dots_fields(k, d);
		break;
	case DRV_FW:
		k->bios_corrupted = true;
		text_skip_space(&t);
		if (text_hex(&t, &v, 8) && k->n_corrupted_msr < 4)
			k->corrupted_msr[k->n_corrupted_msr++] = (unsigned)v;
		break;
	case DRV_TAIL:
		driver_words(k, r->p, r->end);
		if (terminal(k))
			ps->block = BLOCK_LINES;
		break;
	case DRV_HYBRID:
		hybrid_section(k, r->p, r->end);
		break;
	default:
		break;
	}
	return PROBE_KLOG_PMU;
}

/* The boot's start, step by step (struct probe_boot): setup_arch()
 * (arch/x86/kernel/setup.c) prints "Command line:" first, then the e820
 * map, then dmi_setup()'s "DMI:" line, and calls init_hypervisor_platform()
 * right after it ("Hypervisor detected: %s", arch/x86/kernel/cpu/
 * hypervisor.c).  Each step counts only after the one before it, in a boot
 * whose banner the log holds, and before the PMU driver's block (an
 * early_initcall, long after setup_arch()). */
static void start_step(struct probe_klog *k, enum mark_what m)
{
	struct probe_boot *b = &k->boot;
	if (k->pmu_driver_seen || !b->start_banner)
		return;
	if (m == M_CMDLINE && !b->start_dmi)
		b->start_cmdline = true;
	else if (m == M_DMI && b->start_cmdline)
		b->start_dmi = true;
}

/* A record outside the driver's block. */
static enum probe_klog_kind other_record(struct probe_klog *k, const struct rec *r,
					 enum mark_what m, size_t mlen, bool first)
{
	struct text t = {r->p + mlen, r->end};
	text_skip_space(&t);
	struct probe_boot *bt = &k->boot;
	struct dots d;
	switch (m) {
	case M_OPENER:
		return opener(k, r);
	case M_DOTS:
		if (dots_parse(r->p, r->end, &d)) {
			k->ignored.outside_block++; /* no block is open */
			if (!k->pmu_driver_seen)
				k->parse.orphan_lines = true; /* an excerpt lost the opener */
		} else {
			k->ignored.malformed++;
		}
		return PROBE_KLOG_NONE;
	case M_FW_CORRUPT:
		/* A kdump capture kernel is often booted with a quiet console
		 * (its log is what the serial console kept): the driver's
		 * pr_info opener is gone and check_hw_exists()'s pr_err stands
		 * alone.  Taken there: it can only add a finding, never prove
		 * anything safe (counters-in-use names the crashed kernel). */
		if (bt->crash_kernel) {
			k->bios_corrupted = true;
			uint64_t v;
			if (text_hex(&t, &v, 8) && k->n_corrupted_msr < 4)
				k->corrupted_msr[k->n_corrupted_msr++] = (unsigned)v;
			return PROBE_KLOG_PMU;
		}
		k->ignored.outside_block++;
		return PROBE_KLOG_NONE;
	case M_PERFCTR_FAIL:
		k->ignored.outside_block++;
		return PROBE_KLOG_NONE;
	case M_BANNER:
		return banner(k, r, t.p, first);
	case M_DMI:
	case M_HWNAME:
		if (m == M_DMI)
			start_step(k, M_DMI);
		set_dmi(k, t.p, r->end, m == M_DMI);
		break;
	case M_HV_DETECTED:
		set_hypervisor(k, t.p, r->end, true);
		break;
	case M_PARAVIRT:
		if (text_lit(&t, "bare hardware"))
			bt->bare_hardware = true;
		else
			set_hypervisor(k, t.p, r->end, false);
		break;
	case M_SMPBOOT: {
		const char *fam = text_find(t.p, r->end, "(family: ");
		struct text x = {fam, r->end};
		uint64_t f, mo, st;
		bt->cpu_seen = true;
		set_vendor(bt->cpu_vendor, t.p, fam ? fam : r->end);
		if (fam && text_hex(&x, &f, 8) && text_lit(&x, ", model: ") &&
		    text_hex(&x, &mo, 8) && text_lit(&x, ", stepping: ") && text_hex(&x, &st, 8)) {
			bt->fms_seen = true;
			bt->family = (uint32_t)f;
			bt->model = (uint32_t)mo;
			bt->stepping = (uint32_t)st;
		}
		break;
	}
	case M_MSR_ERROR: {
		unsigned before = bt->n_msr_errors;
		msr_error(bt, t);
		if (bt->n_msr_errors == before)
			return PROBE_KLOG_NONE; /* not a PMU register, or said already */
		return PROBE_KLOG_MSR;
	}
	case M_HYPERV:
		name_hypervisor(k, "Microsoft Hyper-V");
		break;
	case M_KVM:
		name_hypervisor(k, "KVM");
		break;
	case M_XEN:
		name_hypervisor(k, "Xen");
		break;
	case M_VIRTUALIZED:
		bt->virtualized = true;
		bt->virt_anchored |= kernel_beyond_doubt(k);
		break;
	case M_NO_DMI:
		start_step(k, M_DMI);
		bt->no_dmi = true;
		break;
	case M_RESTART:
		k->parse.restart_seen = true; /* the next banner's boot follows it */
		break;
	case M_ARM_PMU:
		bt->arm_pmu = true; /* an Arm CPU: no Intel fixed counter anywhere */
		break;
	case M_CRASH_KERNEL:
		bt->crash_kernel = true;
		bt->crash_kernel_why = "\"Crash kernel detected\"";
		break;
	case M_CMDLINE:
		if (mlen == sizeof("Command line: ") - 1)
			start_step(k, M_CMDLINE); /* setup_arch()'s, not start_kernel()'s later one */
		/* A parameter of its own: at the start, or after a blank.  Any
		 * other command line is no fact of ours, and is not quoted. */
		for (const char *q = t.p, *e; (e = text_find(q, r->end, "virtio_mmio.device=")); q = e)
			if (e - 19 == t.p || e[-20] == ' ')
				bt->virtio_mmio = true; /* Firecracker's devices (no PCI) */
		for (const char *q = t.p, *e; (e = text_find(q, r->end, "elfcorehdr=")); q = e)
			if (e - 11 == t.p || e[-12] == ' ') {
				bt->crash_kernel = true;
				if (!bt->crash_kernel_why)
					bt->crash_kernel_why = "elfcorehdr= on its command line";
				return PROBE_KLOG_BOOT;
			}
		if (mark_inside(r->p, r->end))
			k->ignored.not_at_start++;
		return PROBE_KLOG_NONE;
	case M_NONE:
		if (hybrid_header(r->p, r->end, NULL))
			k->ignored.outside_block++; /* a later PMU's block (its "..." lines follow) */
		else if (mark_inside(r->p, r->end))
			k->ignored.not_at_start++;
		return PROBE_KLOG_NONE;
	}
	return PROBE_KLOG_BOOT;
}

enum probe_klog_kind probe_klog_line(struct probe_klog *k, const char *line, size_t len)
{
	struct probe_klog_parse *ps = &k->parse;
	struct rec r;
	ps->text = NULL;
	ps->text_len = 0;
	ps->starts = ps->opens_pending = ps->commits = false;
	if (ps->form == PROBE_KLOG_TEXT)
		len = kmsg_paste_unwrap(&ps->paste, line, len, ps->clean, sizeof(ps->clean), &line);
	if (!rec_of(ps, line, len, &r))
		return PROBE_KLOG_NONE;
	if (ps->form == PROBE_KLOG_TEXT && ps->paste.foreign)
		r.kernel = false; /* the journal says another program wrote it */
	bool first = !ps->any_record;
	ps->any_record = true;
	ps->text = r.p;
	ps->text_len = (size_t)(r.end - r.p);

	size_t mlen = 0;
	enum mark_what m = mark_at(r.p, r.end, &mlen);
	if (!r.kernel) {
		/* Userspace's (or another program's): invisible, even to a block. */
		if (m == M_OPENER || m == M_DOTS || m == M_BANNER || mark_inside(r.p, r.end))
			k->ignored.other_facility++;
		return PROBE_KLOG_NONE;
	}
	if (ps->block != BLOCK_NONE) {
		struct dots d;
		enum drv w = driver_line(ps, &r, m, &d);
		if (w != DRV_NONE)
			return block_line(k, &r, w, &d, mlen);
		if (ps->block == BLOCK_HEAD && ps->head_left > 0 && m != M_OPENER && m != M_BANNER)
			ps->head_left--; /* a quirk's or pmu_check_apic()'s line: read on */
		else
			close_block(k);
	}
	return other_record(k, &r, m, mlen, first);
}

/* Parse until the driver's block is over: everything the PMU driver prints
 * at boot follows its "Performance Events:" line within a few dozen records
 * (init_hw_perf_events() prints the block in one go), and a hypervisor's
 * refusal of the first enable (an "unchecked MSR access error" on
 * IA32_PERF_GLOBAL_CTRL, the evidence against a counter: fixed.c) comes
 * as the CPUs come up, a few records later.  So read KLOG_BLOCK_LINES
 * records past the block's start, then stop: that spares the rest of a
 * long log. */
#define KLOG_BLOCK_LINES 48
#define KLOG_QUOTE 200

/* A text pasted folded at 80 columns (a terminal's copy, a mail) splits a
 * record's line into pieces of exactly 80 bytes and a shorter last one;
 * the pieces after the first start no record.  Joined again up to
 * KLOG_FOLD_MAX bytes. */
#define KLOG_FOLD 80
#define KLOG_FOLD_MAX 1024

struct klog_ctx {
	struct probe_klog *k;
	int after_block; /* records since the driver's "Performance Events:", -1 before it */
	bool stop_early, begun;
	const struct probe_klog_sink *sink;
	char pending[KLOG_QUOTE]; /* a pending block's opener, quoted once it is the driver's */
	size_t pending_len;
	char fold[KLOG_FOLD_MAX]; /* a folded line's pieces so far */
	size_t fold_len;
};

/* Does a text line start a record of its own: a timestamp, a priority, a
 * date (journal, syslog), dmesg -T's time, after a quote's blanks? */
static bool starts_record(const char *line, size_t len)
{
	struct text t = {line, line + len};
	struct rec scratch;
	while (t.p < t.end && t.p - line < 256 && (*t.p == ' ' || *t.p == '\t'))
		t.p++;
	return skip_stamp(&t, &scratch) || skip_pri(&t, &scratch) || skip_date(&t) ||
	       skip_ctime(&t);
}

static size_t unterminated_len(const char *line, size_t len)
{
	return len && line[len - 1] == '\r' ? len - 1 : len;
}

static int klog_feed(struct klog_ctx *c, enum probe_klog_form form, const char *line, size_t len);

/* Text lines, the pieces of a folded one joined first (KLOG_FOLD). */
static int klog_cb(void *p, enum probe_klog_form form, const char *line, size_t len)
{
	struct klog_ctx *c = p;
	int rc;
	if (form != PROBE_KLOG_TEXT)
		return klog_feed(c, form, line, len);
	if (c->fold_len) {
		if (!starts_record(line, len) && c->fold_len + len <= sizeof(c->fold)) {
			bool more = unterminated_len(line, len) == KLOG_FOLD;
			memcpy(c->fold + c->fold_len, line, more ? KLOG_FOLD : len);
			c->fold_len += more ? KLOG_FOLD : len;
			if (more)
				return 0; /* more pieces may follow */
			len = c->fold_len;
			c->fold_len = 0;
			return klog_feed(c, form, c->fold, len);
		}
		size_t n = c->fold_len;
		c->fold_len = 0;
		if ((rc = klog_feed(c, form, c->fold, n)) != 0)
			return rc;
	}
	if (unterminated_len(line, len) == KLOG_FOLD && starts_record(line, len)) {
		memcpy(c->fold, line, KLOG_FOLD); /* a '\r' ends the piece, not the line */
		c->fold_len = KLOG_FOLD;
		return 0;
	}
	return klog_feed(c, form, line, len);
}

static int klog_feed(struct klog_ctx *c, enum probe_klog_form form, const char *line, size_t len)
{
	if (!c->begun) {
		probe_klog_begin(c->k, form);
		c->begun = true;
	}
	bool was = c->k->pmu_driver_seen;
	enum probe_klog_kind kind = probe_klog_line(c->k, line, len);
	const struct probe_klog_parse *ps = &c->k->parse;
	if (c->sink) {
		if (ps->opens_pending) {
			c->pending_len = ps->text_len < KLOG_QUOTE ? ps->text_len : KLOG_QUOTE;
			memcpy(c->pending, ps->text, c->pending_len);
		}
		if (ps->commits)
			c->sink->line(c->sink->ctx, c->pending, c->pending_len, PROBE_KLOG_PMU, true);
		if (kind != PROBE_KLOG_NONE)
			c->sink->line(c->sink->ctx, ps->text, ps->text_len, kind, ps->starts);
	}
	if (c->k->pmu_driver_seen && !was)
		c->after_block = 0;
	else if (c->after_block >= 0)
		c->after_block++;
	if (!c->stop_early || c->after_block <= 0)
		return 0;
	return c->after_block >= KLOG_BLOCK_LINES;
}

static int read_kmsg(probe_klog_fn fn, void *ctx)
{
	long fd = pmug_open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return (int)fd;
	char rec[8192]; /* a read must hold a whole record (CONSOLE_EXT_LOG_MAX) */
	int rc = 0;
	for (;;) {
		long n = pmug_sys3(SYS_read, fd, rec, sizeof(rec));
		if (n == -EPIPE || n == -EINTR)
			continue; /* records overwritten under us: go on */
		if (n < 0) {
			if (n != -EAGAIN)
				rc = (int)n;
			break;
		}
		/* "6,149,312844,-;text\n" plus " KEY=value" continuation lines. */
		if (n == 0 || (rc = fn(ctx, PROBE_KLOG_KMSG, rec, (size_t)n)) != 0)
			break;
	}
	pmug_close(fd);
	return rc;
}

/* The ring buffer in one syslog(2) call, where /dev/kmsg does not exist. */
static int read_syslog(probe_klog_fn fn, void *ctx)
{
	long size = pmug_sys3(SYS_syslog, 10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	if (size <= 0)
		return size < 0 ? (int)size : -ENODATA;
	long m = pmug_sys6(SYS_mmap, 0, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if ((unsigned long)m > -4096UL)
		return (int)m;
	char *buf = (char *)m;
	int rc = 0;
	long n = pmug_sys3(SYS_syslog, 3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0) {
		rc = (int)n;
	} else {
		const char *p = buf, *end = buf + n;
		while (p < end && rc == 0) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl)
				nl = end;
			rc = fn(ctx, PROBE_KLOG_SYSLOG, p, (size_t)(nl - p));
			p = nl + 1;
		}
	}
	pmug_sys2(SYS_munmap, buf, size);
	return rc;
}

struct text_ctx {
	probe_klog_fn fn;
	void *ctx;
};

static int text_line(void *p, const char *line, size_t len)
{
	struct text_ctx *t = p;
	return t->fn(t->ctx, PROBE_KLOG_TEXT, line, len);
}

/* Both need CAP_SYSLOG where kernel.dmesg_restrict=1. */
int probe_klog_each_line(const char *path, probe_klog_fn fn, void *ctx)
{
	int rc;
	struct text_ctx t = {fn, ctx};
	if (path)
		rc = probe_read_lines(path, text_line, &t);
	else if ((rc = read_kmsg(fn, ctx)) == -ENOENT)
		rc = read_syslog(fn, ctx);
	return rc < 0 ? rc : 0;
}

/* path NULL: the live kernel log. */
void probe_klog_gather(struct probe_facts *f, const char *path, bool whole,
		       const struct probe_klog_sink *sink)
{
	probe_klog_reset(&f->klog);
	f->tried |= PROBE_KNOWN_KLOG;
	/* A file may hold several boots: read it whole. */
	struct klog_ctx c = {.k = &f->klog, .after_block = -1, .stop_early = !whole && !path,
			     .sink = sink};
	int rc = probe_klog_each_line(path, klog_cb, &c);
	if (rc == 0 && c.fold_len)
		klog_feed(&c, PROBE_KLOG_TEXT, c.fold, c.fold_len); /* the text ended folded */
	f->klog.parse.text = NULL; /* pointed into the reader's buffer */
	f->klog.parse.text_len = 0;
	if (rc < 0) {
		f->klog_err = rc;
		return;
	}
	f->known |= PROBE_KNOWN_KLOG;
}
