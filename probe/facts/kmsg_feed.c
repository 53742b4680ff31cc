// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A whole log into the parser (probe_klog_gather()): a text's lines folded
 * at 80 columns joined again, the live read stopped a few records past the
 * driver's block, and each line that counted handed to the sink to quote
 * (a pending block's opener once the block is the driver's).
 */
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "kmsg_parse.h"
#include "kmsg_paste.h"
#include "probe.h"
#include "sys.h"

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
		if (!kmsg_starts_record(line, len) && c->fold_len + len <= sizeof(c->fold)) {
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
	if (unterminated_len(line, len) == KLOG_FOLD && kmsg_starts_record(line, len)) {
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
			c->sink->line(c->sink->ctx, c->pending, c->pending_len, PROBE_KLOG_PMU,
				      true);
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

/* A pasted text, held whole before it is read (only text: the live log is
 * read as the kernel hands it over; issue 49):
 *
 *   `journalctl -r` prints the newest record first: where the stamps run
 *     backwards more often than forwards, the text is read from its last
 *     record to its first, each record's further lines after it, as they
 *     were printed.  The stamps are the kernel's own "[ts]" of each line
 *     once unwrapped (kmsg_paste.c), a journal's JSON one included; lines
 *     before the first stamped one stay first.
 *   RFC 5424 syslog pasted as one stream ("<6>1 2026-...T... host kernel -
 *     - - [ts] ...<6>1 2026-..."): a line that starts with such a header
 *     is cut before each header inside it.
 *
 * A line is read up to KLOG_LINE bytes, as fileio.c reads lines. */
#define KLOG_TEXT_MAX (16u << 20) /* fileio.c's cap */
#define KLOG_LINE 512

struct klog_text {
	const char *buf;
	size_t len;
	/* The physical line read now ends at line_end (its newline, or len),
	 * found once for all the records cut out of it; valid while
	 * line_known and the reading has not passed it. */
	size_t line_end;
	bool line_known;
	struct probe_klog_paste ps; /* the text's own decisions, for its stamps alone */
	char clean[PROBE_KLOG_CLEAN];
	uint64_t last;
};

static bool digits_at(const char *p, const char *end, int n)
{
	for (int i = 0; i < n; i++)
		if (p + i >= end || p[i] < '0' || p[i] > '9')
			return false;
	return true;
}

/* RFC 5424's header at p: "<PRI>1 YYYY-MM-DDT" (the version, 1, and a
 * full date: RFC 5424 section 6), all of it before end: 14 bytes after
 * the priority's digits. */
static bool rfc5424_at(const char *p, const char *end)
{
	const char *q = p + 1;
	if (p >= end || *p != '<')
		return false;
	while (q < end && q - p <= 3 && *q >= '0' && *q <= '9')
		q++;
	if (q == p + 1 || end - q < 14 || memcmp(q, ">1 ", 3))
		return false;
	q += 3;
	return digits_at(q, end, 4) && q[4] == '-' && digits_at(q + 5, end, 2) && q[7] == '-' &&
	       digits_at(q + 8, end, 2) && q[10] == 'T';
}

/* The next line from *at: its start and length (at most KLOG_LINE); *at
 * past it; *cut where it starts inside a physical line (a record cut out
 * of a glued stream at its header, which anyone's text may hold).  False
 * at the text's end. */
static bool text_line(struct klog_text *t, size_t *at, const char **line, size_t *len, bool *cut)
{
	if (*at >= t->len)
		return false;
	const char *p = t->buf + *at, *end = t->buf + t->len;
	if (!t->line_known || *at > t->line_end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		t->line_end = (size_t)((nl ? nl : end) - t->buf);
		t->line_known = true;
	}
	const char *stop = t->buf + t->line_end, *next = stop < end ? stop + 1 : end;
	if (rfc5424_at(p, stop)) {
		for (const char *q = p + 1; q < stop; q++) {
			if (*q == '<' && rfc5424_at(q, stop)) {
				stop = next = q;
				break;
			}
		}
	}
	*cut = *at > 0 && t->buf[*at - 1] != '\n';
	*line = p;
	*len = (size_t)(stop - p) < KLOG_LINE ? (size_t)(stop - p) : KLOG_LINE;
	*at = (size_t)(next - t->buf);
	return true;
}

static bool text_stamp(struct klog_text *t, const char *line, size_t len)
{
	const char *p;
	uint64_t us;
	size_t n = kmsg_paste_unwrap(&t->ps, line, len, t->clean, sizeof(t->clean), &p);
	return kmsg_paste_stamp_us(p, p + n, &us) ? (t->last = us, true) : false;
}

/* Newest first?  Also where the first stamped line starts (*head). */
static bool text_reversed(struct klog_text *t, size_t *head)
{
	unsigned forwards = 0, backwards = 0;
	bool any = false;
	size_t at = 0, start = 0, len;
	const char *line;
	bool cut;
	*head = 0;
	t->line_known = false;
	for (; text_line(t, &at, &line, &len, &cut); start = at) {
		uint64_t before = t->last;
		if (!text_stamp(t, line, len))
			continue;
		if (!any)
			*head = start;
		else if (t->last > before)
			forwards++;
		else if (t->last < before)
			backwards++;
		any = true;
	}
	return backwards > forwards;
}

/* A record cut out of a glued stream, to the parser as one (a folded
 * line before it first, as it was), marked so that it starts no boot
 * (kmsg_boot.c): the header it was cut at may be anyone's text. */
static int feed_cut(struct klog_ctx *c, const char *line, size_t len)
{
	int rc = 0;
	if (c->fold_len) {
		size_t n = c->fold_len;
		c->fold_len = 0;
		rc = klog_feed(c, PROBE_KLOG_TEXT, c->fold, n);
	}
	c->k->parse.paste.cut = true;
	if (rc == 0)
		rc = klog_feed(c, PROBE_KLOG_TEXT, line, len);
	c->k->parse.paste.cut = false;
	return rc;
}

/* The lines of the text's [from, to) in order, to the parser. */
static int feed_span(struct klog_ctx *c, const struct klog_text *t, size_t from, size_t to)
{
	struct klog_text span = *t;
	const char *line;
	size_t len;
	bool cut;
	int rc = 0;
	span.len = to;
	span.line_known = false;
	while (rc == 0 && text_line(&span, &from, &line, &len, &cut))
		rc = cut ? feed_cut(c, line, len) : klog_cb(c, PROBE_KLOG_TEXT, line, len);
	return rc;
}

/* Newest first: the head, then each record (a stamped line and the lines
 * after it) from the last to the first. */
static int feed_reversed(struct klog_ctx *c, struct klog_text *t, size_t head)
{
	int rc = feed_span(c, t, 0, head);
	size_t group_end = t->len, at = t->len;
	if (at > head && t->buf[at - 1] != '\n')
		at++; /* the last line has no newline */
	while (rc == 0 && at > head) {
		size_t start = at - 1; /* at the line's newline */
		while (start > head && t->buf[start - 1] != '\n')
			start--;
		size_t len = at - 1 - start;
		if (text_stamp(t, t->buf + start, len < KLOG_LINE ? len : KLOG_LINE)) {
			rc = feed_span(c, t, start, group_end);
			group_end = start;
		}
		at = start;
	}
	return rc;
}

static int feed_text(struct klog_ctx *c, const char *path)
{
	long m = pmug_sys6(SYS_mmap, 0, KLOG_TEXT_MAX, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if ((unsigned long)m > -4096UL)
		return probe_klog_each_line(path, klog_cb, c); /* read as it comes */
	long n = probe_read_upto(path, (char *)m, KLOG_TEXT_MAX);
	int rc = n < 0 ? (int)n : 0;
	if (rc == 0) {
		struct klog_text t = {.buf = (const char *)m, .len = (size_t)n};
		size_t head;
		rc = text_reversed(&t, &head) ? feed_reversed(c, &t, head)
					      : feed_span(c, &t, 0, t.len);
	}
	pmug_sys2(SYS_munmap, m, KLOG_TEXT_MAX);
	return rc < 0 ? rc : 0;
}

/* path NULL: the live kernel log. */
void probe_klog_gather(struct probe_facts *f, const char *path, bool whole,
		       const struct probe_klog_sink *sink)
{
	probe_klog_reset(&f->klog);
	f->tried |= PROBE_KNOWN_KLOG;
	/* A file may hold several boots: read it whole. */
	struct klog_ctx c = {
		.k = &f->klog, .after_block = -1, .stop_early = !whole && !path, .sink = sink};
	int rc = path ? feed_text(&c, path) : probe_klog_each_line(NULL, klog_cb, &c);
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
