/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel log parser's parts, to each other (probe/facts/kmsg*.c only;
 * probe.h is the parser's face): the record, the marks, the driver's block
 * and its lines, and the functions one part calls in another.
 */
#ifndef PMUGUARD_KMSG_PARSE_H
#define PMUGUARD_KMSG_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "probe.h"
#include "text.h"

/* probe_klog_parse.block: no block open; the driver's opener read, its
 * "..." lines not yet (a few other records may come between); its "..."
 * lines begun, or its first line said there is no driver. */
enum { BLOCK_NONE = 0, BLOCK_HEAD, BLOCK_LINES };

/* One record as the parser sees it: its text after the form's prefix. */
struct rec {
	const char *p, *end;
	bool kernel;     /* facility 0, or the form does not say */
	bool stamp;      /* a monotonic timestamp came with it ... */
	bool stamp_zero; /* ... and it is 0 */
	bool quoted;     /* it came indented, as a quoted log's lines do */
	bool padded;     /* its stamp had blanks before the ']': "[ 0.123 ]" */
};

/* What a record's text starts with (kmsg.c: marks[], where the kernel
 * prints each). */
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

/* "... key:   value" in the driver's format: the key, a colon, blanks, one
 * number (decimal or hex digits), nothing after it but blanks.
 * "... event mask: 0001000f000000ff[7f00+1000]" is not one. */
struct dots {
	const char *key;
	size_t klen;
	struct text val;
};

/* What a record inside the open block is to the block (kmsg_driver_line()). */
enum drv { DRV_NONE, DRV_DOTS, DRV_FW, DRV_PERFCTR, DRV_HYBRID, DRV_TAIL };

/* kmsg.c: does a PMU mark occur inside the record, past its start? */
bool kmsg_mark_inside(const char *p, const char *end);

/* kmsg_text.c: a text line's record; does a text line start a record? */
void kmsg_rec_text(struct probe_klog_parse *ps, const char *line, size_t len, struct rec *r);
bool kmsg_starts_record(const char *line, size_t len);

/* kmsg_driver.c: the driver's block. */
bool kmsg_dots_parse(const char *p, const char *end, struct dots *d);
bool kmsg_hybrid_header(const char *p, const char *end, struct text *name);
enum probe_klog_kind kmsg_opener(struct probe_klog *k, const struct rec *r);
void kmsg_close_block(struct probe_klog *k);
enum drv kmsg_driver_line(const struct probe_klog_parse *ps, const struct rec *r, enum mark_what m,
			  struct dots *d);
enum probe_klog_kind kmsg_block_line(struct probe_klog *k, const struct rec *r, enum drv w,
				     const struct dots *d, size_t mlen);

/* kmsg_boot.c: a record outside the driver's block. */
enum probe_klog_kind kmsg_other_record(struct probe_klog *k, const struct rec *r, enum mark_what m,
				       size_t mlen, bool first);

/* kmsg_msr.c: an "unchecked MSR access error" on a PMU MSR, t past its mark. */
void kmsg_msr_error(struct probe_boot *k, struct text t);

#endif
