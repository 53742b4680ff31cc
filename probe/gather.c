// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Gather every fact, live or from a snapshot directory:
 *
 *   DIR/cpuid.txt                          `cpuid -r` output
 *   DIR/dmesg.txt                          kernel log text (optional)
 *   DIR/msr.txt                            "0x345 0x..." (optional)
 *   DIR/sys/bus/event_source/devices/...   mirror of that sysfs folder
 *
 * With a snapshot nothing live is read.  A missing file is an unknown fact.
 */
#include <errno.h>
#include <string.h>

#include "probe.h"

void probe_gather(struct probe_facts *f, const char *snapshot)
{
	memset(f, 0, sizeof(*f));
	probe_klog_reset(&f->klog);
	if (!snapshot) {
		probe_cpuid_live(f);
		probe_sysfs(f, PROBE_SYSFS_DEVICES);
		probe_klog_gather(f, NULL);
		probe_msr_live(f);
		return;
	}
	char path[PROBE_PATH_MAX];
	if (probe_join(path, sizeof(path), snapshot, "cpuid.txt"))
		probe_cpuid_snapshot(f, path);
	else
		f->cpuid_err = -ENAMETOOLONG;
	if (probe_join(path, sizeof(path), snapshot, "sys/bus/event_source/devices"))
		probe_sysfs(f, path);
	else
		f->sysfs_err = -ENAMETOOLONG;
	if (probe_join(path, sizeof(path), snapshot, "dmesg.txt"))
		probe_klog_gather(f, path);
	else
		f->klog_err = -ENAMETOOLONG;
	if (probe_join(path, sizeof(path), snapshot, "msr.txt"))
		probe_msr_snapshot(f, path);
	else
		f->msr_err = -ENAMETOOLONG;
}
