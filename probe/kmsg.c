// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the kernel log says about the PMU.  The PMU driver's lines come from
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
 *
 * The other lines read (the marks[] table below) say what the machine is
 * where CPUID and sysfs are missing: a support engineer often has a
 * customer's kernel log and nothing else.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>

#include "probe.h"
#include "sys.h"
#include "text.h"

#define GLOBAL_CTRL_EN_PERF_METRICS_BIT 48

void probe_klog_reset(struct probe_klog *k)
{
	*k = (struct probe_klog){.fixed_logged = -1, .version_logged = -1, .gp_logged = -1,
				 .unsupported_family = -1, .unsupported_nr = -1};
}

/* A new boot's PMU block: its other facts were printed before it. */
static void probe_klog_pmu_reset(struct probe_klog *k)
{
	struct probe_boot boot = k->boot;
	probe_klog_reset(k);
	k->boot = boot;
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

/* Every line the parser reads carries one of these marks: the PMU driver's
 * block (x86_pmu_show_pmu_cap(), init_hw_perf_events(), check_hw_exists()
 * in arch/x86/events/core.c), and the lines of the boot that say what the
 * machine is.  One table; the rest of the log is skipped with a memmem()
 * per mark.  The boot's marks and where they are printed:
 *   "Linux version "                  init/main.c, linux_banner (a boot starts)
 *   "DMI: "                           dmi_setup() (drivers/firmware/dmi_scan.c):
 *                                     "sys_vendor product_name/board_name, BIOS ver date"
 *   "Hardware name: "                 dump_stack_print_info(): the same string, in oopses
 *   "Hypervisor detected: "           init_hypervisor_platform() (arch/x86/kernel/cpu/hypervisor.c)
 *   "Booting paravirtualized kernel on " setup_per_cpu_areas() -> pv_info.name
 *   "smpboot: CPU0: "                 print_cpu_info() (arch/x86/kernel/cpu/common.c):
 *                                     "[vendor ]model_id (family: 0x%x, model: 0x%x, stepping: 0x%x)"
 *   "unchecked MSR access error: "    ex_handler_msr() (arch/x86/mm/extable.c)
 *   "hv_vmbus: ", "Hyper-V: ", "kvm-clock: ", "kvm-guest: ", "Xen version",
 *   "CPU MTRRs all blank - virtualized system" (mtrr_bp_init()): printed by guests only. */
enum mark_what {
	M_PMU,
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
};

/* The text inline, not a pointer: a table of pointers costs the loader a
 * relocation per entry in every process the shim is preloaded into. */
static const struct {
	char mark[44];
	unsigned char len;
	unsigned char what; /* enum mark_what */
} marks[] = {
#define MARK(s, w) {s, sizeof(s) - 1, w}
	MARK("Performance Events:", M_PMU),
	MARK("PMU driver", M_PMU),
	MARK("... version:", M_PMU),
	MARK("... bit width:", M_PMU),
	MARK("... generic registers:", M_PMU),
	MARK("... generic counters:", M_PMU),
	MARK("... generic bitmap:", M_PMU),
	MARK("... fixed-purpose", M_PMU),
	MARK("... event mask:", M_PMU),
	MARK("... global_ctrl mask:", M_PMU),
	MARK("... max period:", M_PMU),
	MARK("... value mask:", M_PMU),
	MARK("Broken BIOS detected", M_PMU),
	MARK("hw-PMU resources", M_PMU),
	MARK("PMU not available", M_PMU),
	MARK("Broken PMU hardware", M_PMU),
	MARK("no PMU driver", M_PMU),
	MARK("Failed to access perfctr msr", M_PMU),
	MARK("Linux version ", M_BANNER),
	MARK("DMI: ", M_DMI),
	MARK("Hardware name: ", M_HWNAME),
	MARK("Hypervisor detected: ", M_HV_DETECTED),
	MARK("Booting paravirtualized kernel on ", M_PARAVIRT),
	MARK("smpboot: CPU0: ", M_SMPBOOT),
	MARK("unchecked MSR access error: ", M_MSR_ERROR),
	MARK("hv_vmbus: ", M_HYPERV),
	MARK("Hyper-V: ", M_HYPERV),
	MARK("kvm-clock: ", M_KVM),
	MARK("kvm-guest: ", M_KVM),
	MARK("Xen version", M_XEN),
	MARK("CPU MTRRs all blank - virtualized system", M_VIRTUALIZED),
#undef MARK
};

/* The vendor words print_cpu_info() puts in the CPU0 line (cpu_dev.c_vendor,
 * printed unless the model string holds it already) and the PMU drivers'
 * banners, to the CPUID vendor strings. */
static const struct {
	const char *word, *vendor;
} vendor_words[] = {
	{"Intel", "GenuineIntel"}, {"AMD", "AuthenticAMD"},   {"Hygon", "HygonGenuine"},
	{"Zhaoxin", "  Shanghai  "}, {"Centaur", "CentaurHauls"},
};

/* The PMU's MSRs (Intel SDM vol. 4; arch/x86/include/asm/msr-index.h). */
static const struct {
	uint32_t lo, hi;
	const char *name;
} pmu_msrs[] = {
	{0xc1, 0xc8, "IA32_PMCx (general counter)"},
	{0x186, 0x18d, "IA32_PERFEVTSELx (event select)"},
	{0x309, 0x309, "IA32_FIXED_CTR0 (instructions)"},
	{0x30a, 0x30a, "IA32_FIXED_CTR1 (cycles)"},
	{0x30b, 0x30b, "IA32_FIXED_CTR2 (ref-cycles)"},
	{0x30c, 0x30c, "IA32_FIXED_CTR3 (TOPDOWN.SLOTS)"},
	{0x30d, 0x30f, "IA32_FIXED_CTRx (fixed counters 4-6)"},
	{0x329, 0x329, "MSR_PERF_METRICS"},
	{0x345, 0x345, "IA32_PERF_CAPABILITIES"},
	{0x38d, 0x38d, "IA32_FIXED_CTR_CTRL"},
	{0x38e, 0x38e, "IA32_PERF_GLOBAL_STATUS"},
	{0x38f, 0x38f, "IA32_PERF_GLOBAL_CTRL"},
	{0x390, 0x390, "IA32_PERF_GLOBAL_STATUS_RESET"},
	{0x3f1, 0x3f1, "IA32_PEBS_ENABLE"},
	{0x4c1, 0x4c8, "IA32_A_PMCx (full-width general counter)"},
	{0xc0000300, 0xc0000303, "AMD PerfMonV2 global control/status"},
	{0xc0010000, 0xc0010007, "AMD PERF_CTL/PERF_CTR (legacy)"},
	{0xc0010200, 0xc001020b, "AMD PERF_CTL/PERF_CTR (core extension)"},
};

const char *probe_pmu_msr_name(uint32_t msr)
{
	for (size_t i = 0; i < sizeof(pmu_msrs) / sizeof(pmu_msrs[0]); i++)
		if (msr >= pmu_msrs[i].lo && msr <= pmu_msrs[i].hi)
			return pmu_msrs[i].name;
	return NULL;
}

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

/* The first word of [p, end). */
static void copy_word(char *dst, size_t size, const char *p, const char *end)
{
	const char *sp = memchr(p, ' ', (size_t)(end - p));
	copy_text(dst, size, p, sp ? sp : end);
}

static void set_vendor(char dst[13], const char *start, const char *end)
{
	for (size_t i = 0; i < sizeof(vendor_words) / sizeof(vendor_words[0]); i++)
		if (text_find(start, end, vendor_words[i].word)) {
			memcpy(dst, vendor_words[i].vendor, 13);
			return;
		}
}

static void pmu_fields(struct probe_klog *k, const char *line, const char *end)
{
	struct text t;
	uint64_t v;
	if (text_find(line, end, "Intel PMU driver"))
		memcpy(k->driver_vendor, "GenuineIntel", 13);
	else if (text_find(line, end, "AMD PMU driver"))
		memcpy(k->driver_vendor, "AuthenticAMD", 13);
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
	}
	if (text_find(line, end, "Broken PMU hardware detected"))
		k->broken_pmu = true;
	if (after(line, end, "corrupted hw-PMU resources (MSR", &t)) {
		k->bios_corrupted = true;
		if (text_hex(&t, &v, 8) && k->n_corrupted_msr < 4)
			k->corrupted_msr[k->n_corrupted_msr++] = (unsigned)v;
	}
	/* The first block's numbers: a hybrid part prints cpu_core's first. */
	if (after(line, end, "... version:", &t) && text_dec(&t, &v, 256) && k->version_logged < 0)
		k->version_logged = (int)v;
	if ((after(line, end, "... generic registers:", &t) ||
	     after(line, end, "... generic counters:", &t)) &&
	    text_dec(&t, &v, 65) && k->gp_logged < 0)
		k->gp_logged = (int)v;
	if ((after(line, end, "... fixed-purpose events:", &t) ||
	     after(line, end, "... fixed-purpose counters:", &t)) &&
	    text_dec(&t, &v, 65)) {
		if (k->fixed_logged < 0)
			k->fixed_logged = (int)v;
		if (v > 3)
			k->fixed3_logged = true;
	}
	if (after(line, end, "... fixed-purpose bitmap:", &t) && text_hex(&t, &v, 16)) {
		if (!k->fixed_bitmap_seen)
			k->fixed_bitmap = (uint32_t)v;
		k->fixed_bitmap_seen = true;
		if ((v >> 3) & 1)
			k->fixed3_logged = true;
	}
	if ((after(line, end, "... event mask:", &t) ||
	     after(line, end, "... global_ctrl mask:", &t)) &&
	    text_hex(&t, &v, 16)) {
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

/* "Hypervisor detected:" names it best; the other lines name it where it
 * has not been named. */
static void set_hypervisor(struct probe_boot *b, const char *p, const char *end, bool strong)
{
	b->virtualized = true;
	if (!strong && b->hypervisor[0])
		return;
	copy_text(b->hypervisor, sizeof(b->hypervisor), p, end);
}

static void name_hypervisor(struct probe_boot *b, const char *name)
{
	set_hypervisor(b, name, name + strlen(name), false);
}

/* "Amazon EC2 m6i.16xlarge/, BIOS 1.0 10/16/2017": keep what is before the
 * board ("/") or, without a board, before ", BIOS ". */
static void set_dmi(struct probe_boot *k, const char *p, const char *end, bool dmi_line)
{
	const char *bios = text_find(p, end, ", BIOS ");
	if (!bios)
		return; /* "DMI: Memory slots populated: 2/2", "DMI not present" */
	bios -= 7;
	const char *slash = memchr(p, '/', (size_t)(bios - p));
	if (!dmi_line && k->dmi_from_dmi_line)
		return;
	copy_text(k->dmi, sizeof(k->dmi), p, slash ? slash : bios);
	k->dmi_from_dmi_line = dmi_line;
}

static void msr_error(struct probe_boot *k, struct text t)
{
	struct probe_msr_error e = {0};
	uint64_t v;
	if (text_lit(&t, "WRMSR to "))
		e.write = true;
	else if (!text_lit(&t, "RDMSR from "))
		return;
	if (!text_hex(&t, &v, 8))
		return;
	e.msr = (uint32_t)v;
	if (!probe_pmu_msr_name(e.msr))
		return; /* not the PMU's */
	text_skip_space(&t);
	if (e.write && text_lit(&t, "(tried to write ") && text_hex(&t, &v, 16)) {
		e.value_seen = true;
		e.value = v;
	}
	for (unsigned i = 0; i < k->n_msr_errors; i++)
		if (k->msr_errors[i].msr == e.msr && k->msr_errors[i].write == e.write)
			return; /* pr_warn_once: said once per site, not per MSR */
	if (k->n_msr_errors < PROBE_MAX_MSR_ERRORS)
		k->msr_errors[k->n_msr_errors++] = e;
}

/* Does any mark occur in the line?  One pass over the line with a table of
 * the marks' first bytes, instead of a memmem() per mark: most lines of a
 * long log hold none, and this is all they cost. */
static bool any_mark(const char *line, size_t len)
{
	unsigned char first[256] = {0};
	for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++)
		first[(unsigned char)marks[m].mark[0]] = 1;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];
		if (!first[c])
			continue;
		for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++)
			if ((unsigned char)marks[m].mark[0] == c && len - i >= marks[m].len &&
			    memcmp(line + i, marks[m].mark, marks[m].len) == 0)
				return true;
	}
	return false;
}

enum probe_klog_kind probe_klog_line(struct probe_klog *k, const char *line, size_t len)
{
	const char *end = line + len;
	enum probe_klog_kind kind = PROBE_KLOG_NONE;
	struct text t;

	if (!any_mark(line, len))
		return kind;

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		const char *hit = memmem(line, len, marks[i].mark, marks[i].len);
		if (!hit)
			continue;
		const char *p = hit + marks[i].len;
		t = (struct text){p, end};
		text_skip_space(&t);
		struct probe_boot *bt = &k->boot;
		enum probe_klog_kind is = PROBE_KLOG_BOOT;
		switch (marks[i].what) {
		case M_PMU:
			if (kind == PROBE_KLOG_PMU)
				continue; /* the fields are parsed once per line */
			if (memmem(line, len, "Performance Events:", 19))
				probe_klog_pmu_reset(k); /* a new boot's PMU block */
			k->pmu_driver_seen = true;
			pmu_fields(k, line, end);
			is = PROBE_KLOG_PMU;
			break;
		case M_BANNER: /* a boot starts: everything starts over */
			probe_klog_reset(k);
			copy_word(bt->kernel_release, sizeof(bt->kernel_release), t.p, end);
			break;
		case M_DMI:
		case M_HWNAME:
			set_dmi(bt, t.p, end, marks[i].what == M_DMI);
			break;
		case M_HV_DETECTED:
			set_hypervisor(bt, t.p, end, true);
			break;
		case M_PARAVIRT:
			if (text_lit(&t, "bare hardware"))
				bt->bare_hardware = true;
			else
				set_hypervisor(bt, t.p, end, false);
			break;
		case M_SMPBOOT: {
			const char *fam = text_find(t.p, end, "(family: ");
			struct text x = {fam, end};
			uint64_t f, m, st;
			bt->cpu_seen = true;
			set_vendor(bt->cpu_vendor, t.p, fam ? fam : end);
			if (fam && text_hex(&x, &f, 8) && text_lit(&x, ", model: ") &&
			    text_hex(&x, &m, 8) && text_lit(&x, ", stepping: ") && text_hex(&x, &st, 8)) {
				bt->fms_seen = true;
				bt->family = (uint32_t)f;
				bt->model = (uint32_t)m;
				bt->stepping = (uint32_t)st;
			}
			break;
		}
		case M_MSR_ERROR: {
			unsigned before = bt->n_msr_errors;
			msr_error(bt, t);
			if (bt->n_msr_errors == before)
				continue; /* not a PMU register, or said already */
			is = PROBE_KLOG_MSR;
			break;
		}
		case M_HYPERV:
			name_hypervisor(bt, "Microsoft Hyper-V");
			break;
		case M_KVM:
			name_hypervisor(bt, "KVM");
			break;
		case M_XEN:
			name_hypervisor(bt, "Xen");
			break;
		case M_VIRTUALIZED:
			bt->virtualized = true;
			break;
		}
		if (kind == PROBE_KLOG_NONE || is == PROBE_KLOG_PMU)
			kind = is;
	}
	return kind;
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
	enum probe_klog_kind kind = probe_klog_line(c->k, line, len);
	if (kind != PROBE_KLOG_NONE && c->sink)
		c->sink->line(c->sink->ctx, line, len, kind,
			      kind == PROBE_KLOG_PMU
				      ? memmem(line, len, "Performance Events:", 19) != NULL
				      : memmem(line, len, "Linux version ", 14) != NULL);
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
	long fd = pmug_open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return (int)fd;
	char rec[8192]; /* a read must hold a whole record (CONSOLE_EXT_LOG_MAX) */
	int rc = 0;
	for (;;) {
		long n = pmug_sys3(SYS_read, fd, rec, sizeof(rec));
		if (n == -EPIPE || n == -EINTR)
			continue; /* records overwritten under us: go on */
		if (n < 0) {
			if (n != -EAGAIN)
				rc = (int)n;
			break;
		}
		if (n == 0 || (rc = kmsg_record(rec, (size_t)n, fn, ctx)) != 0)
			break;
	}
	pmug_close(fd);
	return rc;
}

/* The ring buffer in one syslog(2) call, where /dev/kmsg does not exist. */
static int read_syslog(probe_line_fn fn, void *ctx)
{
	long size = pmug_sys3(SYS_syslog, 10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	if (size <= 0)
		return size < 0 ? (int)size : -ENODATA;
	long m = pmug_sys6(SYS_mmap, 0, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if ((unsigned long)m > -4096UL)
		return (int)m;
	char *buf = (char *)m;
	int rc = 0;
	long n = pmug_sys3(SYS_syslog, 3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0) {
		rc = (int)n;
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
	pmug_sys2(SYS_munmap, buf, size);
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
