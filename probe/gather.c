// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Gather the facts, live or from a snapshot directory:
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

struct sources {
	char cpuid[PROBE_PATH_MAX], sysfs[PROBE_PATH_MAX], dmesg[PROBE_PATH_MAX],
		msr[PROBE_PATH_MAX];
	bool live, ok;
};

static void sources(struct sources *s, const char *snapshot)
{
	s->live = !snapshot;
	s->ok = s->live || (probe_join(s->cpuid, sizeof(s->cpuid), snapshot, "cpuid.txt") &&
			    probe_join(s->sysfs, sizeof(s->sysfs), snapshot,
				       "sys/bus/event_source/devices") &&
			    probe_join(s->dmesg, sizeof(s->dmesg), snapshot, "dmesg.txt") &&
			    probe_join(s->msr, sizeof(s->msr), snapshot, "msr.txt"));
}

static void get_cpuid(struct probe_facts *f, const struct sources *s)
{
	if (s->live)
		probe_cpuid_live(f);
	else
		probe_cpuid_snapshot(f, s->cpuid);
}

static void get_sysfs(struct probe_facts *f, const struct sources *s, bool events)
{
	probe_sysfs(f, s->live ? PROBE_SYSFS_DEVICES : s->sysfs, events);
}

static void get_klog(struct probe_facts *f, const struct sources *s, bool whole)
{
	probe_klog_gather(f, s->live ? NULL : s->dmesg, whole);
}

static void get_msr(struct probe_facts *f, const struct sources *s)
{
	if (s->live)
		probe_msr_live(f);
	else
		probe_msr_snapshot(f, s->msr);
}

static bool begin(struct probe_facts *f, struct sources *s, const char *snapshot)
{
	memset(f, 0, sizeof(*f));
	probe_klog_reset(&f->klog);
	sources(s, snapshot);
	if (!s->ok)
		f->cpuid_err = f->sysfs_err = f->klog_err = f->msr_err = -ENAMETOOLONG;
	return s->ok;
}

void probe_gather(struct probe_facts *f, const char *snapshot)
{
	struct sources s;
	if (!begin(f, &s, snapshot))
		return;
	get_cpuid(f, &s);
	get_sysfs(f, &s, true);
	get_klog(f, &s, true);
	get_msr(f, &s);
}

void probe_gather_verdict(struct probe_facts *f, const char *snapshot)
{
	struct sources s;
	if (!begin(f, &s, snapshot))
		return;
	get_cpuid(f, &s);
	struct probe_cpu c;
	probe_decode_cpu(f, &c);
	bool advertised = probe_fixed3_advertised(&c);
	/* Only where counter 3 is advertised can the rest change the verdict;
	 * the MSR is one pread where it exists at all, the log hundreds of
	 * records: cheapest proof first. */
	if (advertised) {
		get_msr(f, &s);
		struct probe_verdict v;
		probe_evaluate(f, &v);
		if (!v.perf_metrics_proven)
			get_klog(f, &s, false);
	}
	/* slots/topdown-* matter only to the bare-metal backstop. */
	get_sysfs(f, &s, advertised && !c.hypervisor);
}
