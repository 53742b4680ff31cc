// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The PMU driver's block (kmsg.c, rule 3): its opener, the "... key: value"
 * lines and their numbers (struct probe_klog's, and a hybrid part's per PMU
 * section), check_hw_exists()'s lines, the words that say there is no
 * driver; whether the block is anchored (rule 4), and when a later block
 * replaces a bare first one.
 */
#include <string.h>

#include "kmsg_parse.h"
#include "probe.h"
#include "text.h"

#define GLOBAL_CTRL_EN_PERF_METRICS_BIT 48

/* Records allowed between "Performance Events:" and its first "..." line:
 * the vendor init's and quirks' own (intel_arch_events_quirk()'s "CPUID
 * marked event: '%s' unavailable", up to 7; "CPU erratum AAJ80 worked
 * around"; pmu_check_apic()'s two), printed in the same early_initcall. */
#define KLOG_HEAD_OTHERS 12

/* A later block replaces a bare first one: the boot's other facts stay. */
static void pmu_reset(struct probe_klog *k)
{
	struct probe_boot boot = k->boot;
	struct probe_klog_ignored ignored = k->ignored;
	struct probe_klog_parse p = k->parse;
	probe_klog_begin(k, (enum probe_klog_form)p.form);
	k->boot = boot;
	k->ignored = ignored;
	k->parse = p;
	k->parse.section = 0; /* the sections went with the bare block */
}

bool kmsg_dots_parse(const char *p, const char *end, struct dots *d)
{
	const char *key = p + 4, *colon = memchr(key, ':', (size_t)(end - key));
	if (!colon || colon == key || colon - key > 32)
		return false;
	for (const char *q = key; q < colon; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == ' ' ||
		      *q == '-' || *q == '_'))
			return false;
	struct text t = {colon + 1, end};
	if (t.p >= t.end || (*t.p != ' ' && *t.p != '\t'))
		return false;
	text_skip_space(&t);
	const char *v = t.p;
	while (t.p < t.end && text_hexval(*t.p) >= 0)
		t.p++;
	if (t.p == v)
		return false;
	*d = (struct dots){key, (size_t)(colon - key), {v, t.p}};
	text_skip_space(&t);
	return t.p == t.end;
}

static bool key_is(const struct dots *d, const char *s)
{
	return d->klen == strlen(s) && !memcmp(d->key, s, d->klen);
}

/* The value as a decimal below limit, all of it. */
static bool dots_dec(const struct dots *d, uint64_t *v, uint64_t limit)
{
	struct text t = d->val;
	return text_dec(&t, v, limit) && t.p == t.end;
}

static bool dots_hex(const struct dots *d, uint64_t *v)
{
	struct text t = d->val;
	return text_hex(&t, v, 16) && t.p == t.end;
}

/* A line of a hybrid section: that PMU's own numbers. */
static void section_fields(struct probe_klog_pmu *s, const struct dots *d)
{
	uint64_t v;
	if ((key_is(d, "fixed-purpose events") || key_is(d, "fixed-purpose counters")) &&
	    dots_dec(d, &v, 65)) {
		if (s->fixed_logged < 0)
			s->fixed_logged = (int)v;
		if (v > 3)
			s->fixed3_logged = true;
	}
	if (key_is(d, "fixed-purpose bitmap") && dots_hex(d, &v)) {
		if (!s->fixed_bitmap_seen)
			s->fixed_bitmap = (uint32_t)v;
		s->fixed_bitmap_seen = true;
		if ((v >> 3) & 1)
			s->fixed3_logged = true;
	}
	if ((key_is(d, "event mask") || key_is(d, "global_ctrl mask")) && dots_hex(d, &v)) {
		if (!s->mask_seen)
			s->mask = v;
		s->mask_seen = true;
		if ((v >> GLOBAL_CTRL_EN_PERF_METRICS_BIT) & 1)
			s->perf_metrics_bit = true;
		if ((v >> 35) & 1)
			s->fixed3_logged = true;
	}
}

/* A line of the driver's block: the first block's numbers (a hybrid part
 * prints the boot CPU's PMU first, cpu_core's), counter 3 in any; and the
 * open hybrid section's own. */
static void dots_fields(struct probe_klog *k, const struct dots *d)
{
	uint64_t v;
	if (k->parse.section > 0 && k->parse.section <= k->n_pmus)
		section_fields(&k->pmus[k->parse.section - 1], d);
	if (key_is(d, "version") && dots_dec(d, &v, 256) && k->version_logged < 0)
		k->version_logged = (int)v;
	if ((key_is(d, "generic registers") || key_is(d, "generic counters")) &&
	    dots_dec(d, &v, 65) && k->gp_logged < 0)
		k->gp_logged = (int)v;
	if ((key_is(d, "fixed-purpose events") || key_is(d, "fixed-purpose counters")) &&
	    dots_dec(d, &v, 65)) {
		if (k->fixed_logged < 0)
			k->fixed_logged = (int)v;
		if (v > 3)
			k->fixed3_logged = true;
	}
	if (key_is(d, "fixed-purpose bitmap") && dots_hex(d, &v)) {
		if (!k->fixed_bitmap_seen)
			k->fixed_bitmap = (uint32_t)v;
		k->fixed_bitmap_seen = true;
		if ((v >> 3) & 1)
			k->fixed3_logged = true;
	}
	if ((key_is(d, "event mask") || key_is(d, "global_ctrl mask")) && dots_hex(d, &v)) {
		if (!k->mask_seen)
			k->mask = v;
		k->mask_seen = true;
		if ((v >> GLOBAL_CTRL_EN_PERF_METRICS_BIT) & 1)
			k->perf_metrics_bit = true;
		/* intel_ctrl bits 32+: the fixed counters the driver will use
		 * (INTEL_PMC_IDX_FIXED, arch/x86/include/asm/perf_event.h); an AMD
		 * mask has none. */
		if ((v >> 35) & 1)
			k->fixed3_logged = true;
	}
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

/* The driver's vendor in its first line, or where check_hw_exists() broke
 * that line, in its end ("Intel PMU driver.", pr_cont() in
 * init_hw_perf_events(), x86_pmu.name).  AMD's core init names itself
 * first ("Fam15h core perfctr, ", "Fam17h+ core perfctr, ":
 * amd_core_pmu_init(), arch/x86/events/amd/core.c; Hygon's too, whose
 * driver is "HYGON"), so the vendor is known where the line's end was cut
 * or wrapped. */
static const char *driver_vendor(const char *p, const char *end)
{
	if (text_find(p, end, "Intel PMU driver"))
		return "GenuineIntel";
	if (text_find(p, end, "HYGON PMU driver"))
		return "HygonGenuine";
	if (text_find(p, end, "AMD PMU driver") || text_find(p, end, "core perfctr"))
		return "AuthenticAMD";
	return NULL;
}

/* What the driver's first line (or its end) says: the vendor, or why
 * there is no driver.  Searched inside the record: every word of it is the
 * driver's own (pr_cont() pieces of init_hw_perf_events() and the vendor's
 * init, printed at early_initcall time). */
static void driver_words(struct probe_klog *k, const char *line, const char *end)
{
	struct text t;
	uint64_t v;
	const char *vendor = driver_vendor(line, end);
	if (vendor)
		memcpy(k->driver_vendor, vendor, 13);
	if (text_find(line, end, "no PMU driver, software events only"))
		k->no_pmu_driver = true;
	if (after(line, end, "unsupported p6 CPU model", &t)) {
		k->unsupported_model = true;
		k->unsupported_family = 6;
		if (text_dec(&t, &v, 1u << 16))
			k->unsupported_nr = (int)v;
	} else if (after(line, end, "unsupported CPU family", &t)) {
		k->unsupported_model = true;
		if (text_dec(&t, &v, 1u << 16))
			k->unsupported_family = (int)v;
		text_skip_space(&t);
		if (text_lit(&t, "model") && (text_skip_space(&t), text_dec(&t, &v, 1u << 16)))
			k->unsupported_nr = (int)v;
	}
	/* p6_pmu_init() / intel_pmu_init() print "unsupported ... model N "
	 * and init_hw_perf_events() ends the same line with "no PMU driver,
	 * software events only.": the first part alone means the same (a
	 * capture's line-wrap artifact, "so ftware", must not hide it). */
	if (k->unsupported_model)
		k->no_pmu_driver = true;
	if (text_find(line, end, "PMU not available due to virtualization")) {
		k->virt_unavailable = true;
		k->boot.virtualized = true; /* printed where X86_FEATURE_HYPERVISOR is set */
		k->boot.virt_anchored |= k->pmu_block_anchored;
	}
	if (text_find(line, end, "Broken PMU hardware detected"))
		k->broken_pmu = true;
}

/* The verdicts that end the driver's output (check_hw_exists()'s "software
 * events only", init_hw_perf_events()'s "no PMU driver"). */
static bool terminal(const struct probe_klog *k)
{
	return k->no_pmu_driver || k->virt_unavailable || k->broken_pmu;
}

static bool ends_with(const char *p, const char *end, const char *s)
{
	while (end > p && (end[-1] == ' ' || end[-1] == '\r' || end[-1] == '\t'))
		end--;
	size_t n = strlen(s);
	return (size_t)(end - p) >= n && !memcmp(end - n, s, n);
}

/* A hybrid part's "core: cpu_core PMU driver: " (init_hybrid_pmu(),
 * arch/x86/events/intel/core.c, under its pr_fmt "core: "); name (may be
 * NULL) gets the PMU's name. */
bool kmsg_hybrid_header(const char *p, const char *end, struct text *name)
{
	struct text t = {p, end};
	text_lit(&t, "core: ");
	const char *id = t.p;
	while (t.p < t.end &&
	       ((*t.p >= 'a' && *t.p <= 'z') || (*t.p >= '0' && *t.p <= '9') || *t.p == '_'))
		t.p++;
	if (name)
		*name = (struct text){id, t.p};
	return t.p > id && text_lit(&t, " PMU driver:");
}

/* A hybrid header in the driver's block opens that PMU's section: the
 * "..." lines after it are its own.  A name too long for the facts, or a
 * fifth section, opens none. */
static void hybrid_section(struct probe_klog *k, const char *p, const char *end)
{
	struct text name;
	k->parse.section = 0;
	if (!kmsg_hybrid_header(p, end, &name) || k->n_pmus >= PROBE_MAX_PMUS ||
	    (size_t)(name.end - name.p) >= PROBE_PMU_NAME)
		return;
	struct probe_klog_pmu *s = &k->pmus[k->n_pmus++];
	*s = (struct probe_klog_pmu){.fixed_logged = -1};
	memcpy(s->name, name.p, (size_t)(name.end - name.p));
	k->parse.section = (unsigned char)k->n_pmus;
}

/* Is the driver's block known to be the kernel's?  A /dev/kmsg record is
 * whole; elsewhere the block must follow its boot's banner (rule 4). */
static bool anchored(const struct probe_klog_parse *ps)
{
	if (ps->orphan_lines)
		return false; /* the driver's opener was cut out: a later block may be a user's */
	return ps->form == PROBE_KLOG_KMSG || ps->boot_started;
}

/* "Performance Events:": the boot's first is the driver's; a later one is
 * ignored, unless the first had no "..." lines (rule 3). */
enum probe_klog_kind kmsg_opener(struct probe_klog *k, const struct rec *r)
{
	struct probe_klog_parse *ps = &k->parse;
	if (!k->pmu_driver_seen) {
		k->pmu_driver_seen = true;
		k->pmu_block_anchored = anchored(ps);
		driver_words(k, r->p, r->end);
		ps->block = terminal(k) ? BLOCK_LINES : BLOCK_HEAD;
		ps->head_left = KLOG_HEAD_OTHERS;
		ps->starts = true;
		return PROBE_KLOG_PMU;
	}
	struct probe_klog bare;
	probe_klog_reset(&bare);
	driver_words(&bare, r->p, r->end);
	if (ps->driver_lines || terminal(&bare)) {
		k->ignored.outside_block++;
		return PROBE_KLOG_NONE;
	}
	ps->pending = true;
	ps->opens_pending = true;
	memcpy(ps->pending_vendor, bare.driver_vendor, 13);
	ps->block = BLOCK_HEAD;
	ps->head_left = KLOG_HEAD_OTHERS;
	return PROBE_KLOG_NONE;
}

/* The open block ends; a pending one that got no "..." lines was not the
 * driver's. */
void kmsg_close_block(struct probe_klog *k)
{
	struct probe_klog_parse *ps = &k->parse;
	if (ps->pending)
		k->ignored.outside_block++;
	ps->pending = false;
	ps->block = BLOCK_NONE;
}

/* Is the record one of the driver's own inside the open block? */
enum drv kmsg_driver_line(const struct probe_klog_parse *ps, const struct rec *r, enum mark_what m,
			  struct dots *d)
{
	if (m == M_DOTS)
		return kmsg_dots_parse(r->p, r->end, d) ? DRV_DOTS : DRV_NONE;
	if (m == M_FW_CORRUPT)
		return DRV_FW;
	if (m == M_PERFCTR_FAIL)
		return DRV_PERFCTR;
	if (m == M_NONE && kmsg_hybrid_header(r->p, r->end, NULL))
		return DRV_HYBRID;
	if (m == M_NONE && ps->block == BLOCK_HEAD &&
	    (ends_with(r->p, r->end, " PMU driver.") ||
	     ends_with(r->p, r->end, "software events only.")))
		return DRV_TAIL;
	return DRV_NONE;
}

enum probe_klog_kind kmsg_block_line(struct probe_klog *k, const struct rec *r, enum drv w,
				     const struct dots *d, size_t mlen)
{
	struct probe_klog_parse *ps = &k->parse;
	if (ps->pending) {
		if (w == DRV_TAIL) {
			const char *vendor = driver_vendor(r->p, r->end);
			if (vendor)
				memcpy(ps->pending_vendor, vendor, 13);
		}
		if (w != DRV_DOTS)
			return PROBE_KLOG_NONE; /* quoted only once the block is the driver's */
		/* It has "..." lines: it replaces the bare first block. */
		pmu_reset(k);
		k->pmu_driver_seen = true;
		k->pmu_block_anchored = anchored(ps);
		memcpy(k->driver_vendor, ps->pending_vendor, 13);
		ps->pending = false;
		ps->commits = true;
	}
	struct text t = {r->p + mlen, r->end};
	uint64_t v;
	switch (w) {
	case DRV_DOTS:
		ps->driver_lines = true;
		ps->block = BLOCK_LINES;
		dots_fields(k, d);
		break;
	case DRV_FW:
		k->bios_corrupted = true;
		text_skip_space(&t);
		if (text_hex(&t, &v, 8) && k->n_corrupted_msr < 4)
			k->corrupted_msr[k->n_corrupted_msr++] = (unsigned)v;
		break;
	case DRV_TAIL:
		driver_words(k, r->p, r->end);
		if (terminal(k))
			ps->block = BLOCK_LINES;
		break;
	case DRV_HYBRID: hybrid_section(k, r->p, r->end); break;
	default: break;
	}
	return PROBE_KLOG_PMU;
}
