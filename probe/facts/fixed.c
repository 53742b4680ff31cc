// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Each fixed counter on its own: is it advertised, is there evidence that
 * it is not implemented, and is it a hazard (counters 3-6).  Pure.
 *
 * Advertised.  CPUID.0AH EDX[4:0] counts the fixed counters, ECX is their
 * bitmap on version 5 and later, 23H.1 EBX another (cpuid_decode.c).  The
 * kernel takes its mask from there and only &= its constraint tables with
 * it (intel_pmu_check_event_constraints(), arch/x86/events/intel/core.c):
 * nothing probes the MSRs.  The driver's logged mask ("... event mask",
 * "... global_ctrl mask": intel_ctrl, bit 32+n for fixed counter n) is what
 * it really schedules onto, so its bits count as advertised too: the 6.1
 * hybrid init built cpu_core's mask from the model's static layout, not
 * from CPUID, and put counter 3 there on a guest whose CPUID had 3.
 *
 * Refuted: evidence against, which beats any evidence for (bit 48,
 * PERF_CAPABILITIES, bare metal).
 *  - the driver's mask claims more fixed counters than its own block
 *    counts ("fixed-purpose events: 3" over "event mask: 0001000f..."): the
 *    counters beyond the count, highest first; or counters its bitmap
 *    lacks;
 *  - on a non-hybrid block, a mask bit that CPUID does not advertise;
 *  - a rejected write of IA32_PERF_GLOBAL_CTRL with bit 32+n (or bit 48,
 *    perf metrics: counter 3) or of IA32_FIXED_CTR_CTRL with field n set:
 *    the hypervisor refused to enable that counter.
 * The log counts only where it speaks for this machine
 * (probe_fixed_log_counts()).
 *
 * Hazard.  Counter 3 is judged in verdict.c (perf metrics, guest or bare
 * metal).  Counters 4-6 (the E-cores' TOPDOWN_BAD_SPECULATION.ALL,
 * TOPDOWN_FE_BOUND.ALL, TOPDOWN_RETIRING.ALL) have no in-guest proof:
 * upstream KVM, its 2026 mediated vPMU included, gives a guest at most 3
 * fixed counters (KVM_MAX_NR_INTEL_FIXED_COUNTERS) and no leaf 0x23, so a
 * guest that advertises them has a hypervisor that copied the host's
 * CPUID.  In a guest they are a hazard whenever advertised; on bare metal
 * they exist.  A refuted counter is a hazard everywhere.
 */
#include <string.h>

#include "probe.h"

#define FIXED_BITS(mask) ((uint32_t)(((mask) >> 32) & 0xffffu)) /* intel_ctrl bits 32-47 */
#define GLOBAL_CTRL_PERF_METRICS 48

static uint32_t count_mask(int n)
{
	return n <= 0 ? 0 : n >= 32 ? ~0u : (1u << n) - 1;
}

static unsigned popcount(uint32_t v)
{
	unsigned n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

/* The k highest set bits of v. */
static uint32_t highest(uint32_t v, unsigned k)
{
	uint32_t out = 0;
	for (int b = 31; b >= 0 && k; b--)
		if ((v >> b) & 1) {
			out |= 1u << b;
			k--;
		}
	return out;
}

/* A block of the driver, or one hybrid section of it. */
struct block {
	bool mask_seen, bitmap_seen;
	uint64_t mask;
	uint32_t bitmap;
	int fixed_logged;
};

/* The count is the mask's weight, not its extent (0x77 counts 6), so it
 * stands for counters 0..n-1 only where neither mask nor bitmap is logged. */
static uint32_t block_advertised(const struct block *b)
{
	if (!b->mask_seen && !b->bitmap_seen)
		return count_mask(b->fixed_logged);
	return (b->mask_seen ? FIXED_BITS(b->mask) : 0) | (b->bitmap_seen ? b->bitmap : 0);
}

/* The block against itself, and (non-hybrid) against CPUID. */
static uint32_t block_refuted(const struct block *b, bool cpuid_known, uint32_t cpuid_mask)
{
	if (!b->mask_seen)
		return 0;
	uint32_t m = FIXED_BITS(b->mask), r = 0;
	if (b->bitmap_seen)
		r |= m & ~b->bitmap;
	else if (b->fixed_logged >= 0 && popcount(m) > (unsigned)b->fixed_logged)
		r |= highest(m, popcount(m) - (unsigned)b->fixed_logged);
	if (cpuid_known)
		r |= m & ~cpuid_mask;
	return r;
}

uint32_t probe_msr_error_fixed(const struct probe_msr_error *e)
{
	uint32_t r = 0;
	if (!e->write || !e->value_seen)
		return 0;
	if (e->msr == 0x38f) { /* IA32_PERF_GLOBAL_CTRL */
		r = (uint32_t)((e->value >> 32) & 0x7f);
		if ((e->value >> GLOBAL_CTRL_PERF_METRICS) & 1)
			r |= 1u << 3;
	} else if (e->msr == 0x38d) { /* IA32_FIXED_CTR_CTRL: 4 bits per counter */
		for (unsigned n = PROBE_FIXED_FIRST; n <= PROBE_FIXED_LAST; n++)
			if ((e->value >> (4 * n)) & 0xf)
				r |= 1u << n;
	}
	return r & PROBE_FIXED_GUARDED;
}

void probe_fixed_words(uint32_t set, char *out, size_t size)
{
	/* No stdio here: the shim links this file. */
	size_t len = 0;
	unsigned total = popcount(set), i = 0;
	if (!size)
		return;
	out[0] = '\0';
	for (unsigned n = 0; n < 32; n++) {
		if (!((set >> n) & 1))
			continue;
		i++;
		const char *sep = i == 1 ? "" : i == total ? " and " : ", ";
		char num[24];
		size_t sl = strlen(sep), nl = probe_utoa(num, n);
		if (len + sl + nl + 1 > size)
			return;
		memcpy(out + len, sep, sl);
		memcpy(out + len + sl, num, nl);
		len += sl + nl;
		out[len] = '\0';
	}
}

static struct block merged_block(const struct probe_klog *k)
{
	return (struct block){k->mask_seen, k->fixed_bitmap_seen, k->mask, k->fixed_bitmap,
			      k->fixed_logged};
}

static struct block section_block(const struct probe_klog_pmu *s)
{
	return (struct block){s->mask_seen, s->fixed_bitmap_seen, s->mask, s->fixed_bitmap,
			      s->fixed_logged};
}

/* Does the log speak for this machine's fixed counters?  Without CPUID it
 * is the only source: its block stands for it (the verdict is then the
 * report's, verdict.c).  With CPUID, only a block that is the driver's
 * beyond doubt (kmsg.c: anchored) and that describes this CPUID: the same
 * version and general-purpose count, and no more fixed counters than CPUID
 * gave the kernel (it prints the count of its mask within the counters
 * CPUID gave it, x86_pmu_show_pmu_cap()).  A log of another machine, given
 * with --dmesg, neither adds nor refutes. */
bool probe_fixed_log_counts(const struct probe_facts *f, const struct probe_cpu *c)
{
	const struct probe_klog *k = &f->klog;
	if (!(f->known & PROBE_KNOWN_KLOG) || !k->pmu_driver_seen)
		return false;
	if (c->perfmon_basis != PROBE_BASIS_CPUID)
		return true;
	if (!k->pmu_block_anchored)
		return false;
	if (k->version_logged >= 0 && (uint32_t)k->version_logged != c->pmu_version)
		return false;
	if (k->gp_logged >= 0 && (uint32_t)k->gp_logged != c->gp_counters)
		return false;
	return k->fixed_logged < 0 ||
	       (unsigned)k->fixed_logged <= popcount(probe_cpuid_fixed_mask(c));
}

void probe_fixed_sets(const struct probe_facts *f, struct probe_verdict *v)
{
	const struct probe_cpu *c = &v->cpu;
	const struct probe_klog *k = &f->klog;
	bool cpuid = c->perfmon_basis == PROBE_BASIS_CPUID;
	uint32_t cpuid_mask = cpuid ? probe_cpuid_fixed_mask(c) : 0;
	bool counts = probe_fixed_log_counts(f, c);

	uint32_t adv = cpuid_mask, ref = 0;
	const char *by = NULL;
	if (counts) {
		struct block m = merged_block(k);
		adv |= block_advertised(&m);
		for (unsigned i = 0; i < k->n_pmus && i < PROBE_MAX_PMUS; i++) {
			struct block s = section_block(&k->pmus[i]);
			adv |= block_advertised(&s);
			ref |= block_refuted(&s, false, 0);
		}
		/* CPUID is one CPU's: only a non-hybrid block is held to it. */
		ref |= block_refuted(&m, cpuid && k->n_pmus == 0, cpuid_mask);
		if (ref)
			by = "the PMU mask the kernel logged claims more fixed counters than the "
			     "kernel's own count or CPUID advertise";
	}
	v->fixed_mask_beyond = ref & PROBE_FIXED_GUARDED;
	uint32_t ctrl;
	if (c->perfmon_basis == PROBE_BASIS_KLOG && !k->pmu_driver_seen &&
	    probe_klog_rejected_ctrl(k, &ctrl)) {
		/* A log whose only PMU trace is the rejected write of the
		 * driver's intel_ctrl (klog_cpu.c): its fixed bits are what the
		 * kernel uses, and the hypervisor refused them. */
		adv |= ctrl;
		ref |= ctrl & PROBE_FIXED_GUARDED;
		by = "the hypervisor rejected the kernel's write enabling them (unchecked MSR "
		     "access error on IA32_PERF_GLOBAL_CTRL, the driver's own mask)";
	}
	uint32_t msr = 0;
	if (counts && k->pmu_block_anchored)
		for (unsigned i = 0; i < k->boot.n_msr_errors && i < PROBE_MAX_MSR_ERRORS; i++)
			msr |= probe_msr_error_fixed(&k->boot.msr_errors[i]);
	if (msr & ~ref)
		by = by ? "the PMU mask the kernel logged claims more fixed counters than advertised, "
			  "and the hypervisor rejected the kernel's write enabling them"
			: "the hypervisor rejected the kernel's write enabling them (unchecked MSR "
			  "access error)";
	ref = (ref | msr) & PROBE_FIXED_GUARDED;
	adv |= ref;

	v->fixed_advertised = adv;
	v->fixed_refuted = ref;
	v->refuted_by = ref ? by : NULL;
	uint32_t hazard = ref;
	if (c->hypervisor)
		hazard |= adv & PROBE_FIXED_GUARDED & ~(1u << 3); /* 4-6: no in-guest proof */
	v->fixed_hazard = hazard; /* counter 3 unrefuted: verdict.c adds it */
}

/* Each core PMU's set: a hybrid section of its own narrows the machine's
 * to what that PMU advertises. */
void probe_fixed_per_pmu(const struct probe_facts *f, struct probe_verdict *v)
{
	const struct probe_klog *k = &f->klog;
	bool log = probe_fixed_log_counts(f, &v->cpu);
	for (unsigned i = 0; i < f->n_pmus && i < PROBE_MAX_PMUS; i++) {
		uint32_t set = v->fixed_hazard;
		for (unsigned j = 0; log && j < k->n_pmus && j < PROBE_MAX_PMUS; j++) {
			struct block s = section_block(&k->pmus[j]);
			if (strcmp(k->pmus[j].name, f->pmus[i].name) == 0 && block_advertised(&s))
				set &= block_advertised(&s);
		}
		v->pmu_hazard[i] = set;
	}
}
