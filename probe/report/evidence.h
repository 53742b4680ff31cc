/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the report quotes besides the facts: the PMU driver's own lines,
 * what events/slots encodes, and IA32_FIXED_CTR3.  Gathered in the same
 * pass as the facts (the kernel log is read once); the renderers only
 * print.  The command's, never the shim's (it uses stdio).
 */
#ifndef PMUGUARD_EVIDENCE_H
#define PMUGUARD_EVIDENCE_H

#include "probe.h"

#define PROBE_QUOTE_LINES 24
#define PROBE_QUOTE_LEN 200

struct probe_evidence {
	char klog_lines[PROBE_QUOTE_LINES][PROBE_QUOTE_LEN]; /* the last boot's PMU block */
	unsigned n_klog_lines;
	/* The boot's other lines the facts came from (kernel, DMI, CPU0,
	 * hypervisor) and its PMU MSR errors. */
	char boot_lines[PROBE_QUOTE_LINES][PROBE_QUOTE_LEN];
	unsigned n_boot_lines;
	bool live;
	int ctr3_err; /* IA32_FIXED_CTR3 (0x30c), live only: -errno or 0 */
	uint64_t ctr3;
	char slots[PROBE_MAX_PMUS][320]; /* "event=0x00,umask=0x4 -> config 0x400", "" */
};

/* Every fact and every piece of evidence, live (snapshot NULL) or from a
 * snapshot directory; with dmesg (probe --dmesg FILE), the kernel log is
 * that file, and with snapshot NULL nothing else is read. */
void probe_gather_report(struct probe_facts *f, struct probe_evidence *e, const char *snapshot,
			 const char *dmesg);

#endif
