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
#include <sys/klog.h>
#include <sys/mman.h>

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

void probe_klog_line(struct probe_klog *k, const char *line, size_t len)
{
	const char *end = line + len;
	struct text t;
	uint64_t v;

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
}

static int klog_cb(void *ctx, const char *line, size_t len)
{
	probe_klog_line(ctx, line, len);
	return 0;
}

int probe_klog_each_line(const char *path, probe_line_fn fn, void *ctx)
{
	if (path)
		return probe_read_lines(path, fn, ctx);

	/* The kernel's ring buffer through syslog(2): one call, no per-record
	 * reads.  Needs CAP_SYSLOG where kernel.dmesg_restrict=1. */
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
			const char *nl = p;
			while (nl < end && *nl != '\n')
				nl++;
			rc = fn(ctx, p, (size_t)(nl - p));
			p = nl + 1;
		}
	}
	munmap(buf, (size_t)size);
	return rc < 0 ? rc : 0;
}

/* path NULL: the live kernel log. */
void probe_klog_gather(struct probe_facts *f, const char *path)
{
	probe_klog_reset(&f->klog);
	int rc = probe_klog_each_line(path, klog_cb, &f->klog);
	if (rc < 0) {
		f->klog_err = rc;
		return;
	}
	f->known |= PROBE_KNOWN_KLOG;
}
