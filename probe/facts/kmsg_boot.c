// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel log's records outside the driver's block: the boot's own lines
 * (the banner, the command line, DMI, the hypervisor's name, the boot CPU,
 * a crash kernel's signs, a restart), struct probe_boot; and where each
 * record outside the block goes (the driver's opener to kmsg_driver.c, an
 * MSR error to kmsg_msr.c).
 */
#include <string.h>

#include "kmsg_parse.h"
#include "probe.h"
#include "text.h"

/* The vendor words print_cpu_info() puts in the CPU0 line (cpu_dev.c_vendor,
 * printed unless the model string holds it already) and the PMU drivers'
 * banners, to the CPUID vendor strings. */
static const struct {
	char word[8], vendor[13]; /* arrays: no relocation at load */
} vendor_words[] = {
	{"Intel", "GenuineIntel"},   {"AMD", "AuthenticAMD"},     {"Hygon", "HygonGenuine"},
	{"Zhaoxin", "  Shanghai  "}, {"Centaur", "CentaurHauls"},
};

/* Copy [p, end) into dst (size > 0), cut, printable ASCII only. */
static void copy_text(char *dst, size_t size, const char *p, const char *end)
{
	size_t n = 0;
	for (; p < end && n + 1 < size; p++)
		dst[n++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
	while (n > 0 && dst[n - 1] == ' ')
		n--;
	dst[n] = '\0';
}

static void set_vendor(char dst[13], const char *start, const char *end)
{
	for (size_t i = 0; i < sizeof(vendor_words) / sizeof(vendor_words[0]); i++)
		if (text_find(start, end, vendor_words[i].word)) {
			memcpy(dst, vendor_words[i].vendor, 13);
			return;
		}
}

/* Did the kernel write this record, whatever its text?  A /dev/kmsg read
 * is one whole record of the kernel's facility; elsewhere a record before
 * the driver's block, in a boot whose banner the log holds, was printed
 * before any user process existed (rule 4).  The lines that say "guest"
 * count against a CPUID that says bare metal only where this holds: a
 * user's record split into lines must not turn a healthy machine's
 * counter into a blocked one. */
static bool kernel_beyond_doubt(const struct probe_klog *k)
{
	return k->parse.form == PROBE_KLOG_KMSG || (k->parse.boot_started && !k->pmu_driver_seen);
}

/* "Hypervisor detected:" names it best; the other lines name it where it
 * has not been named. */
static void set_hypervisor(struct probe_klog *k, const char *p, const char *end, bool strong)
{
	struct probe_boot *b = &k->boot;
	b->virtualized = true;
	b->virt_anchored |= kernel_beyond_doubt(k);
	if (!strong && b->hypervisor[0])
		return;
	copy_text(b->hypervisor, sizeof(b->hypervisor), p, end);
}

static void name_hypervisor(struct probe_klog *k, const char *name)
{
	set_hypervisor(k, name, name + strlen(name), false);
}

/* "Amazon EC2 m6i.16xlarge/, BIOS 1.0 10/16/2017": keep what is before the
 * board ("/") or, without a board, before ", BIOS ". */
static void set_dmi(struct probe_klog *kl, const char *p, const char *end, bool dmi_line)
{
	struct probe_boot *k = &kl->boot;
	const char *bios = text_find(p, end, ", BIOS ");
	if (!bios)
		return; /* "DMI: Memory slots populated: 2/2", "DMI not present" */
	bios -= 7;
	const char *slash = memchr(p, '/', (size_t)(bios - p));
	if (!dmi_line && k->dmi_from_dmi_line)
		return;
	copy_text(k->dmi, sizeof(k->dmi), p, slash ? slash : bios);
	k->dmi_from_dmi_line = dmi_line;
	k->dmi_anchored = kernel_beyond_doubt(kl);
}

/* A banner: a boot starts, everything starts over. */
static void boot_reset(struct probe_klog *k)
{
	struct probe_klog_parse p = k->parse;
	probe_klog_begin(k, (enum probe_klog_form)p.form);
	k->parse.any_record = p.any_record;
	k->parse.quote_known = p.quote_known;
	k->parse.quote_blanks = p.quote_blanks;
	k->parse.quote_bare = p.quote_bare;
	k->parse.first_line = p.first_line;
	k->parse.mono_known = p.mono_known;
	k->parse.mono = p.mono;
	k->parse.restart_seen = p.restart_seen;
	k->parse.paste = p.paste;
	memcpy(k->parse.clean, p.clean, sizeof(p.clean)); /* text may point into it */
	k->parse.text = p.text;
	k->parse.text_len = p.text_len;
}

/* "Linux version 6.1.0-18-cloud-amd64 (debian-kernel@...) (gcc ...) #1 SMP"
 * (linux_banner: "Linux version " UTS_RELEASE " (" LINUX_COMPILE_BY "@" ...). */
static enum probe_klog_kind banner(struct probe_klog *k, const struct rec *r, const char *p,
				   bool first)
{
	struct probe_klog_parse *ps = &k->parse;
	const char *rel = p;
	while (p < r->end && *p != ' ')
		p++;
	bool ok = p > rel && *rel >= '0' && *rel <= '9' && r->end - p >= 2 && p[1] == '(';
	if (r->stamp && !r->stamp_zero)
		ok = false; /* printed before any clock runs */
	/* A record cut out of a glued stream at a header inside a line
	 * (kmsg_feed.c): anyone's text may hold that header, so it starts no
	 * boot, and a block it brings is a later one of the boot before. */
	if (ps->form == PROBE_KLOG_TEXT && ps->paste.cut)
		ok = false;
	if (ps->form != PROBE_KLOG_TEXT) {
		/* The ring buffer holds one boot, whose banner is its first record. */
		if (ps->boot_started || k->pmu_driver_seen || ps->pending)
			ok = false;
		if (ps->form == PROBE_KLOG_SYSLOG && !r->stamp && !first)
			ok = false;
	}
	if (!ok) {
		k->ignored.banner++;
		return PROBE_KLOG_NONE;
	}
	bool restart = ps->restart_seen;
	boot_reset(k);
	ps->restart_seen = false;
	k->boot.after_restart = restart;
	ps->boot_started = !r->quoted;
	k->boot.start_banner = true;
	ps->starts = true;
	copy_text(k->boot.kernel_release, sizeof(k->boot.kernel_release), rel, p);
	return PROBE_KLOG_BOOT;
}

/* The boot's start, step by step (struct probe_boot): setup_arch()
 * (arch/x86/kernel/setup.c) prints "Command line:" first, then the e820
 * map, then dmi_setup()'s "DMI:" line, and calls init_hypervisor_platform()
 * right after it ("Hypervisor detected: %s", arch/x86/kernel/cpu/
 * hypervisor.c).  Each step counts only after the one before it, in a boot
 * whose banner the log holds, and before the PMU driver's block (an
 * early_initcall, long after setup_arch()). */
static void start_step(struct probe_klog *k, enum mark_what m)
{
	struct probe_boot *b = &k->boot;
	if (k->pmu_driver_seen || !b->start_banner)
		return;
	if (m == M_CMDLINE && !b->start_dmi)
		b->start_cmdline = true;
	else if (m == M_DMI && b->start_cmdline)
		b->start_dmi = true;
}

/* A record outside the driver's block. */
enum probe_klog_kind kmsg_other_record(struct probe_klog *k, const struct rec *r, enum mark_what m,
				       size_t mlen, bool first)
{
	struct text t = {r->p + mlen, r->end};
	text_skip_space(&t);
	struct probe_boot *bt = &k->boot;
	struct dots d;
	switch (m) {
	case M_OPENER: return kmsg_opener(k, r);
	case M_DOTS:
		if (kmsg_dots_parse(r->p, r->end, &d)) {
			k->ignored.outside_block++; /* no block is open */
			if (!k->pmu_driver_seen)
				k->parse.orphan_lines = true; /* an excerpt lost the opener */
		} else {
			k->ignored.malformed++;
		}
		return PROBE_KLOG_NONE;
	case M_FW_CORRUPT:
		/* A kdump capture kernel is often booted with a quiet console
		 * (its log is what the serial console kept): the driver's
		 * pr_info opener is gone and check_hw_exists()'s pr_err stands
		 * alone.  Taken there: it can only add a finding, never prove
		 * anything safe (counters-in-use names the crashed kernel). */
		if (bt->crash_kernel) {
			k->bios_corrupted = true;
			uint64_t v;
			if (text_hex(&t, &v, 8) && k->n_corrupted_msr < 4)
				k->corrupted_msr[k->n_corrupted_msr++] = (unsigned)v;
			return PROBE_KLOG_PMU;
		}
		k->ignored.outside_block++;
		return PROBE_KLOG_NONE;
	case M_PERFCTR_FAIL: k->ignored.outside_block++; return PROBE_KLOG_NONE;
	case M_BANNER: return banner(k, r, t.p, first);
	case M_DMI:
	case M_HWNAME:
		if (m == M_DMI)
			start_step(k, M_DMI);
		set_dmi(k, t.p, r->end, m == M_DMI);
		break;
	case M_HV_DETECTED: set_hypervisor(k, t.p, r->end, true); break;
	case M_PARAVIRT:
		if (text_lit(&t, "bare hardware"))
			bt->bare_hardware = true;
		else
			set_hypervisor(k, t.p, r->end, false);
		break;
	case M_SMPBOOT: {
		const char *fam = text_find(t.p, r->end, "(family: ");
		struct text x = {fam, r->end};
		uint64_t f, mo, st;
		bt->cpu_seen = true;
		set_vendor(bt->cpu_vendor, t.p, fam ? fam : r->end);
		if (fam && text_hex(&x, &f, 8) && text_lit(&x, ", model: ") &&
		    text_hex(&x, &mo, 8) && text_lit(&x, ", stepping: ") && text_hex(&x, &st, 8)) {
			bt->fms_seen = true;
			bt->family = (uint32_t)f;
			bt->model = (uint32_t)mo;
			bt->stepping = (uint32_t)st;
		}
		break;
	}
	case M_MSR_ERROR: {
		unsigned before = bt->n_msr_errors;
		kmsg_msr_error(bt, t);
		if (bt->n_msr_errors == before)
			return PROBE_KLOG_NONE; /* not a PMU register, or said already */
		return PROBE_KLOG_MSR;
	}
	case M_HYPERV: name_hypervisor(k, "Microsoft Hyper-V"); break;
	case M_KVM: name_hypervisor(k, "KVM"); break;
	case M_XEN: name_hypervisor(k, "Xen"); break;
	case M_VIRTUALIZED:
		bt->virtualized = true;
		bt->virt_anchored |= kernel_beyond_doubt(k);
		break;
	case M_NO_DMI:
		start_step(k, M_DMI);
		bt->no_dmi = true;
		break;
	case M_RESTART:
		k->parse.restart_seen = true; /* the next banner's boot follows it */
		break;
	case M_ARM_PMU:
		bt->arm_pmu = true; /* an Arm CPU: no Intel fixed counter anywhere */
		break;
	case M_CRASH_KERNEL:
		bt->crash_kernel = true;
		bt->crash_kernel_why = "\"Crash kernel detected\"";
		break;
	case M_CMDLINE:
		/* setup_arch()'s, not start_kernel()'s later one */
		if (mlen == sizeof("Command line: ") - 1)
			start_step(k, M_CMDLINE);
		/* A parameter of its own: at the start, or after a blank.  Any
		 * other command line is no fact of ours, and is not quoted. */
		for (const char *q = t.p, *e; (e = text_find(q, r->end, "virtio_mmio.device="));
		     q = e)
			if (e - 19 == t.p || e[-20] == ' ')
				bt->virtio_mmio = true; /* Firecracker's devices (no PCI) */
		for (const char *q = t.p, *e; (e = text_find(q, r->end, "elfcorehdr=")); q = e)
			if (e - 11 == t.p || e[-12] == ' ') {
				bt->crash_kernel = true;
				if (!bt->crash_kernel_why)
					bt->crash_kernel_why = "elfcorehdr= on its command line";
				return PROBE_KLOG_BOOT;
			}
		if (kmsg_mark_inside(r->p, r->end))
			k->ignored.not_at_start++;
		return PROBE_KLOG_NONE;
	case M_NONE:
		/* A hybrid header: a later PMU's block (its "..." lines follow). */
		if (kmsg_hybrid_header(r->p, r->end, NULL))
			k->ignored.outside_block++;
		else if (kmsg_mark_inside(r->p, r->end))
			k->ignored.not_at_start++;
		return PROBE_KLOG_NONE;
	}
	return PROBE_KLOG_BOOT;
}
