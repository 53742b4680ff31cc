// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Gather the facts, live or from a snapshot directory:
 *
 *   DIR/cpuid.txt                          `cpuid -r` output
 *   DIR/dmesg.txt                          kernel log text (optional)
 *   DIR/msr.txt                            "0x345 0x..." (optional)
 *   DIR/sys/bus/event_source/devices/...   mirror of that sysfs folder
 *   DIR/dmi/{sys_vendor,product_name,product_version}   (optional; the report's)
 *
 * With a snapshot nothing live is read.  A missing file is an unknown fact.
 * probe --dmesg FILE reads a kernel log alone: nothing else, live or not.
 *
 * The shim and the supervisor gather lazily (probe_gather_verdict()): CPUID
 * first, the kernel log where CPUID says too little, then only the facts
 * the verdict names as still able to change it.
 */
#include <errno.h>
#include <string.h>

#include "probe.h"

/* Where each fact lives: live (snapshot NULL), or a file or folder of the
 * snapshot, its path built in out.  False when the path does not fit. */
static bool where(char *out, size_t size, const char *snapshot, const char *rel,
		  const char **path)
{
	if (!snapshot) {
		*path = NULL;
		return true;
	}
	*path = out;
	return probe_join(out, size, snapshot, rel);
}

/* IA32_PERF_CAPABILITIES exists only where CPUID.1:ECX.PDCM says so:
 * elsewhere the msr device is not even opened. */
static void msr_live(struct probe_facts *f)
{
	struct probe_cpu cpu;
	probe_decode_cpu(f, &cpu);
	if (!cpu.known || !cpu.pdcm) {
		f->msr_err = -ENODEV;
		return;
	}
	probe_msr_live(f);
}

static void get(struct probe_facts *f, const char *snapshot, enum probe_known what,
		const struct probe_klog_sink *sink, bool whole)
{
	static const struct {
		enum probe_known what;
		char rel[32]; /* an array: no relocation at load */
	} files[] = {
		{PROBE_KNOWN_CPUID, "cpuid.txt"},
		{PROBE_KNOWN_SYSFS, "sys/bus/event_source/devices"},
		{PROBE_KNOWN_SYSFS_EVENTS, "sys/bus/event_source/devices"},
		{PROBE_KNOWN_KLOG, "dmesg.txt"},
		{PROBE_KNOWN_MSR, "msr.txt"},
		{PROBE_KNOWN_DMI, "dmi"},
	};
	char buf[PROBE_PATH_MAX];
	const char *path = NULL;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (files[i].what == what && !where(buf, sizeof(buf), snapshot, files[i].rel, &path)) {
			/* The path does not fit: unknown, and said so. */
			f->tried |= what;
			int *err = what == PROBE_KNOWN_CPUID ? &f->cpuid_err
				   : what == PROBE_KNOWN_KLOG ? &f->klog_err
				   : what == PROBE_KNOWN_MSR  ? &f->msr_err
				   : what == PROBE_KNOWN_DMI  ? &f->dmi_err
							      : &f->sysfs_err;
			*err = -ENAMETOOLONG;
			return;
		}
	switch (what) {
	case PROBE_KNOWN_CPUID:
		f->tried |= what;
		if (path)
			probe_cpuid_snapshot(f, path);
		else
			probe_cpuid_live(f);
		break;
	case PROBE_KNOWN_SYSFS:
	case PROBE_KNOWN_SYSFS_EVENTS:
		probe_sysfs(f, path ? path : PROBE_SYSFS_DEVICES, what == PROBE_KNOWN_SYSFS_EVENTS);
		break;
	case PROBE_KNOWN_KLOG:
		probe_klog_gather(f, path, whole, sink);
		break;
	case PROBE_KNOWN_MSR:
		f->tried |= what;
		if (path)
			probe_msr_snapshot(f, path);
		else
			msr_live(f);
		break;
	case PROBE_KNOWN_DMI:
		probe_dmi(f, path);
		break;
	}
}

static void begin(struct probe_facts *f)
{
	memset(f, 0, sizeof(*f));
	probe_klog_reset(&f->klog);
}

void probe_gather(struct probe_facts *f, const char *snapshot, const struct probe_klog_sink *sink)
{
	begin(f);
	get(f, snapshot, PROBE_KNOWN_CPUID, NULL, true);
	get(f, snapshot, PROBE_KNOWN_SYSFS_EVENTS, NULL, true);
	get(f, snapshot, PROBE_KNOWN_KLOG, sink, true);
	get(f, snapshot, PROBE_KNOWN_MSR, NULL, true);
	get(f, snapshot, PROBE_KNOWN_DMI, NULL, true);
}

void probe_gather_with_log(struct probe_facts *f, const char *snapshot, const char *klog_path,
			   const struct probe_klog_sink *sink)
{
	begin(f);
	if (snapshot) {
		get(f, snapshot, PROBE_KNOWN_CPUID, NULL, true);
		get(f, snapshot, PROBE_KNOWN_SYSFS_EVENTS, NULL, true);
		get(f, snapshot, PROBE_KNOWN_MSR, NULL, true);
		get(f, snapshot, PROBE_KNOWN_DMI, NULL, true);
	} else {
		/* The log may be a customer's: this machine's facts are not its. */
		f->log_only = true;
		f->tried = PROBE_KNOWN_CPUID | PROBE_KNOWN_SYSFS | PROBE_KNOWN_SYSFS_EVENTS |
			   PROBE_KNOWN_MSR | PROBE_KNOWN_DMI;
		f->cpuid_err = f->sysfs_err = f->msr_err = f->dmi_err = -ENODATA;
	}
	probe_klog_gather(f, klog_path, true, sink);
}

void probe_gather_verdict(struct probe_facts *f, const char *snapshot)
{
	begin(f);
	/* CPUID decides most machines; the core PMU types are the policy's. */
	get(f, snapshot, PROBE_KNOWN_CPUID, NULL, false);
	get(f, snapshot, PROBE_KNOWN_SYSFS, NULL, false);
	struct probe_verdict v;
	probe_evaluate(f, &v);
	/* Without CPUID (or its leaf 0xA) the log may state the facts: the
	 * report's verdict then rests on it, the guard's stays unknown.  What
	 * it states is a new basis for the verdict: judge once more. */
	if (!v.cpu.known || !v.cpu.leaf_a_known) {
		get(f, snapshot, PROBE_KNOWN_KLOG, NULL, false);
		probe_evaluate(f, &v);
	}
	/* Then only the facts the verdict names as able to change it: the
	 * MSR and the log can prove perf metrics, the log can refute a
	 * counter (fixed.c) or add one the driver uses, DMI and the log can
	 * show a hypervisor that hid CPUID's bit.  Cheapest first (one pread,
	 * three small files, then the log, which stops soon after the PMU
	 * block), judging again after each: every fact is read at most once. */
	static const enum probe_known cheapest_first[] = {PROBE_KNOWN_MSR, PROBE_KNOWN_DMI,
							  PROBE_KNOWN_KLOG};
	for (;;) {
		unsigned open = probe_open_facts(f, &v);
		size_t i = 0;
		while (i < sizeof(cheapest_first) / sizeof(cheapest_first[0]) &&
		       !(open & cheapest_first[i]))
			i++;
		if (i == sizeof(cheapest_first) / sizeof(cheapest_first[0]))
			break;
		get(f, snapshot, cheapest_first[i], NULL, false);
		f->tried |= cheapest_first[i];
		probe_evaluate(f, &v);
	}
}

bool probe_errno_transient(int neg_errno)
{
	switch (-neg_errno) {
	case EMFILE:
	case ENFILE:
	case ENOMEM:
	case EINTR:
	case EAGAIN:
	case ENOBUFS:
		return true;
	}
	return false;
}

bool probe_facts_transient(const struct probe_facts *f)
{
	return probe_errno_transient(f->cpuid_err) || probe_errno_transient(f->sysfs_err) ||
	       probe_errno_transient(f->klog_err) || probe_errno_transient(f->msr_err);
}
