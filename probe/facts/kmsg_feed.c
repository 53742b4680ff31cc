// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A whole log into the parser (probe_klog_gather()): a text's lines folded
 * at 80 columns joined again, the live read stopped a few records past the
 * driver's block, and each line that counted handed to the sink to quote
 * (a pending block's opener once the block is the driver's).
 */
#include <string.h>

#include "kmsg_parse.h"
#include "probe.h"

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

/* path NULL: the live kernel log. */
void probe_klog_gather(struct probe_facts *f, const char *path, bool whole,
		       const struct probe_klog_sink *sink)
{
	probe_klog_reset(&f->klog);
	f->tried |= PROBE_KNOWN_KLOG;
	/* A file may hold several boots: read it whole. */
	struct klog_ctx c = {
		.k = &f->klog, .after_block = -1, .stop_early = !whole && !path, .sink = sink};
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
