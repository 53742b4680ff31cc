// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the kernel log says about the PMU.  The PMU driver's lines come from
 * init_hw_perf_events() and x86_pmu_show_pmu_cap() (arch/x86/events/core.c)
 * and check_hw_exists() (same file), and for a hybrid part from
 * init_hybrid_pmu() (arch/x86/events/intel/core.c):
 *
 *   Performance Events: Icelake events, Intel PMU driver.
 *   ... version:                2
 *   ... fixed-purpose events:   4            (newer: fixed-purpose counters:)
 *   ... event mask:             0000000f000000ff   (newer: global_ctrl mask:)
 *   Performance Events: unsupported p6 CPU model 183 no PMU driver, software events only.
 *   [Firmware Bug]: the BIOS has corrupted hw-PMU resources (MSR 38d is 330)
 *   core: cpu_core PMU driver:               (hybrid: a block per PMU)
 *
 * The mask is the driver's intel_ctrl: bit 48 is GLOBAL_CTRL_EN_PERF_METRICS
 * (arch/x86/include/asm/perf_event.h), set only when the driver enumerated
 * perf metrics.  The other lines read (the marks[] table below) say what
 * the machine is where CPUID and sysfs are missing: a support engineer
 * often has a customer's kernel log and nothing else.
 *
 * Anyone can put text into the kernel log.  Kernel records quote names that
 * users choose: the x86 segfault report ends with the basename of the file
 * mapped at the faulting address (print_vma_addr(), mm/memory.c, "%s%s[%lx+%lx]"),
 * and starts with the task's comm.  Writes to /dev/kmsg become records of
 * facility LOG_USER unless they name another non-zero one (devkmsg_write(),
 * kernel/printk/printk.c: "we enforce LOG_USER, to be able to reliably
 * distinguish kernel-generated messages from userspace-injected ones").  So a
 * record counts only as the kernel's own lines allow:
 *
 *  1. Facility: where the form carries the priority (/dev/kmsg's
 *     "pri,seq,usec,flags;", syslog(2)'s "<pri>", dmesg -r's "<pri>",
 *     dmesg -x's "kern  :", a journal's JSON SYSLOG_FACILITY), it must be
 *     0, the kernel's.  Another facility's record is ignored.  A text
 *     without one is taken as it is.
 *  2. A mark is evidence only at the start of the record's text, after the
 *     form's prefix (timestamp, host, quote marks), in the kernel's format
 *     of that line; the driver's "... key:  value" lines parse strictly
 *     (nothing after the value).  A mark inside a record is not evidence.
 *  3. The driver's block is the first of the boot: "Performance Events:",
 *     then the driver's own records ("... " lines, check_hw_exists()'s
 *     lines, the end of the first line where one of them broke it, a hybrid
 *     part's "<pmu> PMU driver:"); it ends at the first other record once its
 *     "... " lines began (before them a few others may come: quirks,
 *     pmu_check_apic(); KLOG_HEAD_OTHERS).  A first block without "... "
 *     lines (QEMU's TCG prints a bare "PMU not available due to
 *     virtualization") gives way to a later block that has them (tests/vm's
 *     test PMU module prints one after it; on a real machine whose driver
 *     failed, no counter can fault).
 *     Every later block is ignored: a hybrid part's second PMU, printed when
 *     its first CPU comes up, is one of those.  Inside the block, each
 *     "<pmu> PMU driver:" opens that PMU's section (struct probe_klog_pmu):
 *     the "..." lines up to the next one are its own numbers.
 *  4. /dev/kmsg escapes control characters in a record (msg_add_ext_text():
 *     '\n' is "\x0a"), so each read is one whole record.  syslog(2)
 *     READ_ALL (record_print_text()) and the text forms print a record
 *     holding '\n' as several lines, each with the record's prefix (dmesg
 *     indents them, busybox and syslog(2) do not): there a line can be a
 *     user's.  A block read there proves perf metrics only when the log
 *     holds its boot's start, the banner ("Linux version", printed first of
 *     all by start_kernel(), init/main.c, at time 0) before it: the block is
 *     printed at early_initcall time, before any user process exists, so
 *     the first block after the banner is the driver's.  A banner is one
 *     only in the kernel's format and, where the line carries a timestamp,
 *     at time 0; in the live ring buffer (one boot) only the first is.
 *     RFC 5424 records glued into one stream are cut at each header
 *     (kmsg_feed.c); a record cut out of a line that way is read, but its
 *     banner starts no boot: any program's text may hold such a header.
 *
 * What was ignored is counted (struct probe_klog_ignored) for the report.
 *
 * This file holds the marks and the dispatch (a new parse's state is
 * kmsg_state.c's, a PMU mark inside a record kmsg_text.c's).  Each
 * line becomes a record: a /dev/kmsg read through probe_kmsg_record()
 * (kmsg_live.c, strict), a text line through kmsg_text.c's grammar
 * (liberal, after kmsg_paste.c unwrapped a paste); the two share the
 * record, not the trust.  A record then goes to the driver's open block
 * (kmsg_driver.c) or, outside it, to the boot's lines (kmsg_boot.c,
 * kmsg_msr.c).  kmsg_feed.c feeds the parser a whole log.
 */
#include <string.h>

#include "kmsg_parse.h"
#include "kmsg_paste.h"
#include "probe.h"
#include "text.h"

/* One record of the form; false for a line that is none (a /dev/kmsg read
 * without its header). */
static bool rec_of(struct probe_klog_parse *ps, const char *line, size_t len, struct rec *r)
{
	enum probe_klog_form form = (enum probe_klog_form)ps->form;
	if (form == PROBE_KLOG_KMSG) {
		unsigned pri;
		uint64_t usec;
		const char *text;
		size_t n;
		if (!probe_kmsg_record(line, len, &pri, &usec, &text, &n))
			return false;
		*r = (struct rec){text, text + n, (pri >> 3) == 0, true, usec == 0};
		return true;
	}
	kmsg_rec_text(ps, line, len, r);
	return true;
}

/* The marks, each at the start of a record's text, in the kernel's printk
 * format of its line:
 *   "Performance Events:"             init_hw_perf_events() (arch/x86/events/core.c)
 *   "... "                            x86_pmu_show_pmu_cap() (same file)
 *   "[Firmware Bug]: the BIOS has ..." check_hw_exists() (same file, FW_BUG)
 *   "Failed to access perfctr msr"    check_hw_exists()
 *   "Linux version "                  init/main.c, linux_banner (a boot starts)
 *   "DMI: "                           dmi_setup() (drivers/firmware/dmi_scan.c):
 *                                     "sys_vendor product_name/board_name, BIOS ver date"
 *   "Hardware name: "                 dump_stack_print_info(): the same string, in oopses
 *   "Hypervisor detected: "           init_hypervisor_platform() (arch/x86/kernel/cpu/hypervisor.c)
 *   "Booting paravirtualized kernel on " setup_per_cpu_areas() -> pv_info.name
 *   "smpboot: CPU0: "                 print_cpu_info() (arch/x86/kernel/cpu/common.c):
 *                                     "[vendor ]model_id (family: 0x%x, model: 0x%x, stepping: 0x%x)"
 *   "unchecked MSR access error: "    ex_handler_msr() (arch/x86/mm/extable.c)
 *   "hv_vmbus: ", "Hyper-V: ", "kvm-clock: ", "kvm-guest: " (their pr_fmt), "Xen version",
 *   "(XEN) " (Xen's own console lines, interleaved with dom0's in serial captures),
 *   "CPU MTRRs all blank - virtualized system" (mtrr_bp_init()): printed by guests only.
 *   "CPU topo: Crash kernel detected" (topo_register_apic(), arch/x86/kernel/cpu/topology.c,
 *                                     6.9+) and "Command line: " / "Kernel command line: "
 *                                     (setup_arch(), start_kernel()) with elfcorehdr=, which
 *                                     kexec-tools passes only to a kdump capture kernel.
 *   "DMI not present or invalid"      dmi_setup(): no SMBIOS (Firecracker gives none)
 *   "hw perfevents: enabled with "    the Arm PMU driver's probe (drivers/perf/arm_pmu_platform.c,
 *                                     arm_pmu_acpi.c): "%s PMU driver, %d counters available"
 *   "kexec_core: Starting new kernel" kernel_kexec() (kernel/kexec_core.c) and "reboot: Restarting
 *                                     system" (kernel_restart(), kernel/reboot.c): the boot before
 *                                     the next banner ended in a kexec or a reset. */
/* The text inline, not a pointer: a table of pointers costs the loader a
 * relocation per entry in every process the shim is preloaded into. */
static const struct {
	char mark[64];
	unsigned char len;
	unsigned char what; /* enum mark_what */
} marks[] = {
#define MARK(s, w) {s, sizeof(s) - 1, w}
	MARK("Performance Events:", M_OPENER),
	MARK("... ", M_DOTS),
	MARK("[Firmware Bug]: the BIOS has corrupted hw-PMU resources (MSR", M_FW_CORRUPT),
	MARK("Failed to access perfctr msr (MSR", M_PERFCTR_FAIL),
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
	MARK("(XEN) ", M_XEN),
	MARK("CPU MTRRs all blank - virtualized system", M_VIRTUALIZED),
	MARK("CPU topo: Crash kernel detected", M_CRASH_KERNEL),
	MARK("Command line: ", M_CMDLINE),
	MARK("Kernel command line: ", M_CMDLINE),
	MARK("DMI not present or invalid", M_NO_DMI),
	MARK("kexec_core: Starting new kernel", M_RESTART),
	MARK("reboot: Restarting system", M_RESTART),
	MARK("hw perfevents: enabled with ", M_ARM_PMU),
#undef MARK
};

/* The mark at the start of [p, end), or M_NONE: one compare of the first
 * byte per mark, and most records of a long log match none. */
static enum mark_what mark_at(const char *p, const char *end, size_t *len)
{
	size_t n = (size_t)(end - p);
	if (n == 0)
		return M_NONE;
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (marks[i].mark[0] == p[0] && n >= marks[i].len &&
		    memcmp(p, marks[i].mark, marks[i].len) == 0) {
			*len = marks[i].len;
			return (enum mark_what)marks[i].what;
		}
	return M_NONE;
}

enum probe_klog_kind probe_klog_line(struct probe_klog *k, const char *line, size_t len)
{
	struct probe_klog_parse *ps = &k->parse;
	struct rec r;
	ps->text = NULL;
	ps->text_len = 0;
	ps->starts = ps->opens_pending = ps->commits = false;
	if (ps->form == PROBE_KLOG_TEXT)
		len = kmsg_paste_unwrap(&ps->paste, line, len, ps->clean, sizeof(ps->clean), &line);
	if (!rec_of(ps, line, len, &r))
		return PROBE_KLOG_NONE;
	if (ps->form == PROBE_KLOG_TEXT && ps->paste.foreign)
		r.kernel = false; /* the journal says another program wrote it */
	bool first = !ps->any_record;
	ps->any_record = true;
	ps->text = r.p;
	ps->text_len = (size_t)(r.end - r.p);

	size_t mlen = 0;
	enum mark_what m = mark_at(r.p, r.end, &mlen);
	if (!r.kernel) {
		/* Userspace's (or another program's): invisible, even to a block. */
		if (m == M_OPENER || m == M_DOTS || m == M_BANNER || kmsg_mark_inside(r.p, r.end))
			k->ignored.other_facility++;
		return PROBE_KLOG_NONE;
	}
	if (ps->block != BLOCK_NONE) {
		struct dots d;
		enum drv w = kmsg_driver_line(ps, &r, m, &d);
		if (w != DRV_NONE)
			return kmsg_block_line(k, &r, w, &d, mlen);
		if (ps->block == BLOCK_HEAD && ps->head_left > 0 && m != M_OPENER && m != M_BANNER)
			ps->head_left--; /* a quirk's or pmu_check_apic()'s line: read on */
		else
			kmsg_close_block(k);
	}
	return kmsg_other_record(k, &r, m, mlen, first);
}
