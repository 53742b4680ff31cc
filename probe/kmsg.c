// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the x86 PMU driver printed at boot.  The lines come from
 * init_hw_perf_events() and x86_pmu_show_pmu_cap() (arch/x86/events/core.c)
 * and check_hw_exists() (same file):
 *
 *   Performance Events: Icelake events, Intel PMU driver.
 *   ... version:                2
 *   ... fixed-purpose events:   4            (newer: fixed-purpose counters:)
 *   ... event mask:             0000000f000000ff   (newer: global_ctrl mask:)
 *   Performance Events: unsupported p6 CPU model 183 no PMU driver, software events only.
 *   [Firmware Bug]: the BIOS has corrupted hw-PMU resources (MSR 38d is 330)
 *
 * The mask is the driver's intel_ctrl: bit 48 is GLOBAL_CTRL_EN_PERF_METRICS
 * (arch/x86/include/asm/perf_event.h), set only when the driver enumerated
 * perf metrics.  A text may hold several boots: the last one wins.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <unistd.h>

#include "probe.h"
#include "text.h"

#define GLOBAL_CTRL_EN_PERF_METRICS_BIT 48

void probe_klog_reset(struct probe_klog *k)
{
	*k = (struct probe_klog){.fixed_logged = -1, .version_logged = -1};
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

/* Every line of the PMU driver's block carries one of these, the lines the
 * parser reads and the ones the report quotes alike (x86_pmu_show_pmu_cap(),
 * init_hw_perf_events(), check_hw_exists() in arch/x86/events/core.c); the
 * rest of the log is skipped with a few memmem() calls. */
static const struct {
	const char *mark;
	size_t len;
} pmu_marks[] = {
#define MARK(s) {s, sizeof(s) - 1}
	MARK("Performance Events:"), MARK("PMU driver"),	   MARK("... version:"),
	MARK("... bit width:"),	     MARK("... generic registers:"), MARK("... fixed-purpose"),
	MARK("... event mask:"),     MARK("... global_ctrl mask:"),  MARK("... max period:"),
	MARK("... value mask:"),     MARK("Broken BIOS detected"),   MARK("hw-PMU resources"),
	MARK("PMU not available"),   MARK("Broken PMU hardware"),    MARK("no PMU driver"),
#undef MARK
};

static bool pmu_line(const char *line, size_t len)
{
	/* Cheap first: every mark holds one of these. */
	if (!memmem(line, len, "... ", 4) && !memmem(line, len, "Performance Events", 18) &&
	    !memmem(line, len, "PMU", 3) && !memmem(line, len, "BIOS", 4))
		return false;
	for (size_t i = 0; i < sizeof(pmu_marks) / sizeof(pmu_marks[0]); i++)
		if (memmem(line, len, pmu_marks[i].mark, pmu_marks[i].len))
			return true;
	return false;
}

bool probe_klog_line(struct probe_klog *k, const char *line, size_t len)
{
	const char *end = line + len;
	struct text t;
	uint64_t v;

	if (!pmu_line(line, len))
		return false;

	if (after(line, end, "Performance Events:", &t)) {
		probe_klog_reset(k); /* a new boot starts here */
		k->pmu_driver_seen = true;
	}
	if (text_find(line, end, "no PMU driver, software events only"))
		k->no_pmu_driver = true;
	if (text_find(line, end, "unsupported p6 CPU model") ||
	    text_find(line, end, "unsupported CPU family"))
		k->unsupported_model = true;
	if (text_find(line, end, "PMU not available due to virtualization"))
		k->virt_unavailable = true;
	if (after(line, end, "corrupted hw-PMU resources (MSR", &t)) {
		k->bios_corrupted = true;
		if (text_hex(&t, &v, 8) && k->n_corrupted_msr < 4)
			k->corrupted_msr[k->n_corrupted_msr++] = (unsigned)v;
	}
	if (after(line, end, "... version:", &t) && text_dec(&t, &v, 256))
		k->version_logged = (int)v;
	if ((after(line, end, "... fixed-purpose events:", &t) ||
	     after(line, end, "... fixed-purpose counters:", &t)) &&
	    text_dec(&t, &v, 65))
		k->fixed_logged = (int)v;
	if ((after(line, end, "... event mask:", &t) ||
	     after(line, end, "... global_ctrl mask:", &t)) &&
	    text_hex(&t, &v, 16)) {
		if (!k->mask_seen)
			k->mask = v;
		k->mask_seen = true;
		if ((v >> GLOBAL_CTRL_EN_PERF_METRICS_BIT) & 1)
			k->perf_metrics_bit = true;
	}
	return true;
}

/* Parse until the driver's block is over: everything the PMU driver prints
 * at boot follows its "Performance Events:" line within a few dozen records
 * (init_hw_perf_events() prints the block in one go; a hybrid part prints
 * two).  Stopping there spares reading the rest of a long log. */
#define KLOG_BLOCK_LINES 48

struct klog_ctx {
	struct probe_klog *k;
	int after_block; /* lines since "Performance Events:", -1 before it */
	bool stop_early;
	const struct probe_klog_sink *sink;
};

static int klog_cb(void *p, const char *line, size_t len)
{
	struct klog_ctx *c = p;
	bool was = c->k->pmu_driver_seen;
	bool ended = c->k->mask_seen || c->k->no_pmu_driver || c->k->virt_unavailable;
	/* The line that resets the parse (a new boot) resets the quote too. */
	if (probe_klog_line(c->k, line, len) && c->sink)
		c->sink->line(c->sink->ctx, line, len,
			      memmem(line, len, "Performance Events:", 19) != NULL);
	if (c->k->pmu_driver_seen && !was)
		c->after_block = 0;
	else if (c->after_block >= 0)
		c->after_block++;
	if (!c->stop_early || c->after_block < 0)
		return 0;
	/* The block is over at the first line after its end (the mask, or the
	 * "software events only" verdict) that is neither a "... " detail nor
	 * the next hybrid PMU's "PMU driver" header. */
	if (ended && c->after_block > 0 && !memmem(line, len, "... ", 4) &&
	    !memmem(line, len, "PMU driver", 10))
		return 1;
	return c->after_block >= KLOG_BLOCK_LINES;
}

/* One record of /dev/kmsg: "6,149,312844,-;text\n" plus " KEY=value"
 * continuation lines; hand on the text. */
static int kmsg_record(const char *rec, size_t n, probe_line_fn fn, void *ctx)
{
	const char *semi = memchr(rec, ';', n);
	if (!semi)
		return 0;
	const char *text = semi + 1;
	const char *nl = memchr(text, '\n', n - (size_t)(text - rec));
	size_t len = nl ? (size_t)(nl - text) : n - (size_t)(text - rec);
	return fn(ctx, text, len);
}

static int read_kmsg(probe_line_fn fn, void *ctx)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char rec[8192]; /* a read must hold a whole record (CONSOLE_EXT_LOG_MAX) */
	int rc = 0;
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec));
		if (n < 0 && (errno == EPIPE || errno == EINTR))
			continue; /* records overwritten under us: go on */
		if (n < 0) {
			if (errno != EAGAIN)
				rc = -errno;
			break;
		}
		if (n == 0 || (rc = kmsg_record(rec, (size_t)n, fn, ctx)) != 0)
			break;
	}
	close(fd);
	return rc;
}

/* The ring buffer in one syslog(2) call, where /dev/kmsg does not exist. */
static int read_syslog(probe_line_fn fn, void *ctx)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	if (size <= 0)
		return size < 0 ? -errno : -ENODATA;
	char *buf = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (buf == MAP_FAILED)
		return -errno;
	int rc = 0;
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0) {
		rc = -errno;
	} else {
		const char *p = buf, *end = buf + n;
		while (p < end && rc == 0) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl)
				nl = end;
			rc = fn(ctx, p, (size_t)(nl - p));
			p = nl + 1;
		}
	}
	munmap(buf, (size_t)size);
	return rc;
}

/* Both need CAP_SYSLOG where kernel.dmesg_restrict=1. */
int probe_klog_each_line(const char *path, probe_line_fn fn, void *ctx)
{
	int rc;
	if (path)
		rc = probe_read_lines(path, fn, ctx);
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
	struct klog_ctx c = {&f->klog, -1, !whole && !path, sink};
	int rc = probe_klog_each_line(path, klog_cb, &c);
	if (rc < 0) {
		f->klog_err = rc;
		return;
	}
	f->known |= PROBE_KNOWN_KLOG;
}
