// SPDX-License-Identifier: GPL-2.0-or-later
/* The text parsers: cpuid -r lines and kernel log lines, good and bad. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"

static int parse(const char *s, struct probe_cpuid_leaf *l)
{
	return probe_cpuid_parse_line(s, strlen(s), l);
}

Test(cpuid_text, parses_the_issue_example)
{
	struct probe_cpuid_leaf l;
	cr_assert_eq(parse("   0x0000000a 0x00: eax=0x07300802 ebx=0x00000000 ecx=0x00000000 "
			   "edx=0x00008604",
			   &l),
		     0);
	cr_assert_eq(l.leaf, 0xau);
	cr_assert_eq(l.subleaf, 0u);
	cr_assert_eq(l.eax, 0x07300802u);
	cr_assert_eq(l.edx, 0x00008604u);
}

Test(cpuid_text, rejects_junk)
{
	struct probe_cpuid_leaf l;
	static const char *const bad[] = {
		"",
		"CPU 0:",
		"0x0000000a 0x00 eax=0x1 ebx=0x2 ecx=0x3 edx=0x4",
		"0x0000000a 0x00: eax=0x1 ebx=0x2 ecx=0x3",
		"0x0000000a 0x00: eax=0x123456789 ebx=0x2 ecx=0x3 edx=0x4",
		"0x0000000a 0x00: eax=zz ebx=0x2 ecx=0x3 edx=0x4",
		"   vendor_id = \"GenuineIntel\"",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(parse(bad[i], &l), -EINVAL, "'%s'", bad[i]);
}

Test(cpuid_text, never_reads_past_len)
{
	/* The valid line is cut before edx: must fail, not read on. */
	const char *s = "0xa 0x0: eax=0x1 ebx=0x2 ecx=0x3 edx=0x4";
	struct probe_cpuid_leaf l;
	cr_assert_eq(probe_cpuid_parse_line(s, strlen(s) - 9, &l), -EINVAL);
	cr_assert_eq(probe_cpuid_parse_line(s, strlen(s), &l), 0);
}

static void klog(struct probe_klog *k, const char *lines[], size_t n)
{
	probe_klog_reset(k);
	for (size_t i = 0; i < n; i++)
		probe_klog_line(k, lines[i], strlen(lines[i]));
}

Test(klog_text, old_and_new_formats)
{
	struct probe_klog k;
	const char *old[] = {"[    0.3] Performance Events: Icelake events, Intel PMU driver.",
			     "[    0.3] ... fixed-purpose events:   4",
			     "[    0.3] ... event mask:             0001000f000000ff"};
	klog(&k, old, 3);
	cr_assert(k.pmu_driver_seen);
	cr_assert_eq(k.fixed_logged, 4);
	cr_assert(k.perf_metrics_bit);
	const char *newer[] = {"<6>[    0.3] Performance Events: Sapphire events, Intel PMU driver.",
			       "<6>[    0.3] ... fixed-purpose counters:    4",
			       "<6>[    0.3] ... fixed-purpose bitmap: 000000000000000f",
			       "<6>[    0.3] ... global_ctrl mask: 0000000f000000ff"};
	klog(&k, newer, 4);
	cr_assert_eq(k.fixed_logged, 4);
	cr_assert(k.mask_seen);
	cr_assert_eq(k.mask, 0x0000000f000000ffull);
	cr_assert_not(k.perf_metrics_bit);
}

Test(klog_text, last_boot_wins)
{
	struct probe_klog k;
	const char *two[] = {"[    0.000000] Linux version 6.1.0 (a@b) (gcc) #1 SMP",
			     "[    0.3] Performance Events: Icelake events, Intel PMU driver.",
			     "[    0.3] ... event mask:             0001000f000000ff",
			     "[    0.000000] Linux version 6.8.0 (a@b) (gcc) #1 SMP",
			     "[    0.3] Performance Events: Icelake events, Intel PMU driver.",
			     "[    0.3] ... event mask:             0000000f000000ff"};
	klog(&k, two, 6);
	cr_assert_str_eq(k.boot.kernel_release, "6.8.0");
	cr_assert(k.mask_seen);
	cr_assert_not(k.perf_metrics_bit);
	cr_assert(k.pmu_block_anchored);
}

Test(klog_text, no_vpmu_and_bios_messages)
{
	struct probe_klog k;
	const char *l[] = {
		"Performance Events: unsupported CPU family 6 model 183 no PMU driver, software "
		"events only.",
		"[Firmware Bug]: the BIOS has corrupted hw-PMU resources (MSR 186 is 43003c)",
		"[Firmware Bug]: the BIOS has corrupted hw-PMU resources (MSR 38d is 330)",
	};
	klog(&k, l, 3);
	cr_assert(k.unsupported_model);
	cr_assert(k.no_pmu_driver);
	cr_assert_eq(k.n_corrupted_msr, 2u);
	cr_assert_eq(k.corrupted_msr[0], 0x186u);
	cr_assert_eq(k.corrupted_msr[1], 0x38du);
}

Test(klog_text, junk_is_harmless)
{
	struct probe_klog k;
	const char *l[] = {"... event mask:", "... event mask: zz", "... fixed-purpose events: 99999",
			   "... event mask:             0001000f000000ff0000", ""};
	klog(&k, l, 5);
	cr_assert_not(k.mask_seen);
	cr_assert_eq(k.fixed_logged, -1);
}

Test(snapshot_files, first_cpu_block_only)
{
	struct world w;
	world_load(&w, "m6i-16xlarge");
	cr_assert_str_eq(w.v.cpu.vendor, "GenuineIntel", "CPU 1 in the file is AMD");
}

Test(sysfs_values, formats)
{
	struct probe_format f;
	const char *s = "config:0-7,32-35";
	cr_assert_eq(probe_format_parse(s, strlen(s), &f), 0);
	cr_assert_eq(f.word, 0u);
	cr_assert_eq(f.mask, 0xf000000ffull);
	s = "config1:0-63\n";
	cr_assert_eq(probe_format_parse(s, strlen(s), &f), 0);
	cr_assert_eq(f.word, 1u);
	cr_assert_eq(f.mask, ~0ull);
	s = "config:18";
	cr_assert_eq(probe_format_parse(s, strlen(s), &f), 0);
	cr_assert_eq(f.mask, 1ull << 18);
	static const char *const bad[] = {"", "config", "config:", "config:7-0", "config:64",
					  "config:0-64", "conf:1", "config:1,", "config:1x",
					  "config:99999999999999999999999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(probe_format_parse(bad[i], strlen(bad[i]), &f), -EINVAL, "'%s'", bad[i]);
}

Test(sysfs_values, events_encode_through_formats)
{
	struct probe_event ev;
	const char *s = "event=0x00,umask=0x4";
	cr_assert_eq(probe_event_parse(s, strlen(s), &ev), 0);
	cr_assert_eq(ev.n_terms, 2u);
	struct probe_named_format fmts[] = {
		{"event", {0, 0xff}}, {"umask", {0, 0xff00}}, {"edge", {0, 1u << 18}},
		{"ldlat", {1, 0xffff}},
	};
	uint64_t cfg[4];
	cr_assert_eq(probe_event_config(&ev, fmts, 4, cfg), 0);
	cr_assert_eq(cfg[0], 0x400ull);
	s = "event=0xcd,umask=0x1,ldlat=3,edge\n";
	cr_assert_eq(probe_event_parse(s, strlen(s), &ev), 0);
	cr_assert_eq(probe_event_config(&ev, fmts, 4, cfg), 0);
	cr_assert_eq(cfg[0], 0x1cdull | (1ull << 18));
	cr_assert_eq(cfg[1], 3ull);
	s = "event=0x1ff";
	cr_assert_eq(probe_event_parse(s, strlen(s), &ev), 0);
	cr_assert_eq(probe_event_config(&ev, fmts, 4, cfg), -ERANGE, "0x1ff does not fit 8 bits");
	s = "frob=1";
	cr_assert_eq(probe_event_parse(s, strlen(s), &ev), 0);
	cr_assert_eq(probe_event_config(&ev, fmts, 4, cfg), -ENOENT);
	static const char *const bad[] = {"", "=1", "event=", "event=0x", "event=zz", "a,b,c,d,e,f,g,h,i",
					  "event=0x00,", "EVENT=1",
					  "event=0x10000000000000000"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_neq(probe_event_parse(bad[i], strlen(bad[i]), &ev), 0, "'%s'", bad[i]);
}

/* Lines of the boot besides the PMU block: one test per line. */
static const struct probe_boot *boot(struct probe_klog *k, const char *line)
{
	probe_klog_reset(k);
	cr_assert_neq(probe_klog_line(k, line, strlen(line)), PROBE_KLOG_NONE, "'%s'", line);
	return &k->boot;
}

Test(klog_boot, linux_version_banner)
{
	struct probe_klog k;
	const struct probe_boot *b =
		boot(&k, "[    0.000000] Linux version 6.1.0-18-cloud-amd64 (debian-kernel@lists."
			 "debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0) #1 SMP");
	cr_assert_str_eq(b->kernel_release, "6.1.0-18-cloud-amd64");
}

Test(klog_boot, dmi_line_keeps_vendor_and_product)
{
	struct probe_klog k;
	cr_assert_str_eq(boot(&k, "[    0.000000] DMI: Amazon EC2 m6i.16xlarge/, BIOS 1.0 10/16/2017")->dmi,
			 "Amazon EC2 m6i.16xlarge");
	/* No board: cut at ", BIOS". */
	cr_assert_str_eq(boot(&k, "DMI: HP ProLiant MicroServer Gen8, BIOS J06 11/02/2015")->dmi,
			 "HP ProLiant MicroServer Gen8");
	/* The 6.x "DMI: Memory slots populated" line is not the identity. */
	probe_klog_reset(&k);
	const char *mem = "[    0.000000] DMI: Memory slots populated: 58/58";
	probe_klog_line(&k, mem, strlen(mem));
	cr_assert_str_eq(k.boot.dmi, "");
}

Test(klog_boot, oops_hardware_name_only_without_dmi_line)
{
	struct probe_klog k;
	const char *hw = "[    2.290610][    T1] Hardware name: Google Google Compute Engine/Google "
			 "Compute Engine, BIOS Google 01/12/2023";
	cr_assert_str_eq(boot(&k, hw)->dmi, "Google Google Compute Engine");
	const char *dmi = "DMI: QEMU Standard PC (Q35 + ICH9, 2009), BIOS 1.16.3 04/01/2014";
	probe_klog_line(&k, dmi, strlen(dmi));
	probe_klog_line(&k, hw, strlen(hw));
	cr_assert_str_eq(k.boot.dmi, "QEMU Standard PC (Q35 + ICH9, 2009)", "the DMI line wins");
}

Test(klog_boot, hypervisor_lines)
{
	struct probe_klog k;
	const struct probe_boot *b = boot(&k, "Jun 11 20:15:39 hyperv kernel: Hypervisor detected: "
					      "Microsoft Hyper-V");
	cr_assert_str_eq(b->hypervisor, "Microsoft Hyper-V");
	cr_assert(b->virtualized);
	cr_assert_str_eq(boot(&k, "> [    0.032237] Booting paravirtualized kernel on KVM")->hypervisor,
			 "KVM");
	b = boot(&k, "Booting paravirtualized kernel on bare hardware");
	cr_assert(b->bare_hardware);
	cr_assert_not(b->virtualized, "bhyve and TCG print it too: not proof either way");
	cr_assert_str_eq(boot(&k, "[    0.097621] hv_vmbus: Vmbus version:5.3")->hypervisor,
			 "Microsoft Hyper-V");
	cr_assert_str_eq(boot(&k, "kvm-clock: Using msrs 4b564d01 and 4b564d00")->hypervisor, "KVM");
	cr_assert(boot(&k, "[    0.001497] CPU MTRRs all blank - virtualized system.")->virtualized);
	/* "Hypervisor detected" names it over a weaker line. */
	const char *l[] = {"kvm-clock: cpu 0", "Hypervisor detected: VMware"};
	probe_klog_reset(&k);
	for (int i = 0; i < 2; i++)
		probe_klog_line(&k, l[i], strlen(l[i]));
	cr_assert_str_eq(k.boot.hypervisor, "VMware");
}

Test(klog_boot, cpu0_line)
{
	struct probe_klog k;
	const struct probe_boot *b = boot(&k, "[    0.523017] smpboot: CPU0: AMD EPYC 7763 64-Core "
					      "Processor (family: 0x19, model: 0x1, stepping: 0x1)");
	cr_assert_str_eq(b->cpu_vendor, "AuthenticAMD");
	cr_assert(b->fms_seen);
	cr_assert_eq(b->family, 0x19u);
	cr_assert_eq(b->model, 0x1u);
	/* The kernel prefixes its vendor word where the brand lacks it. */
	b = boot(&k, "smpboot: CPU0: Intel INTEL(R) XEON(R) PLATINUM 8575C (family: 0x6, model: "
		     "0xcf, stepping: 0x2)");
	cr_assert_str_eq(b->cpu_vendor, "GenuineIntel");
	cr_assert_eq(b->model, 0xcfu);
	cr_assert_eq(b->stepping, 2u);
	/* A mail client wrapped it: the vendor is there, the model is not. */
	b = boot(&k, "[    3.803714] smpboot: CPU0: Intel(R) Xeon(R) Platinum 8480C (family:");
	cr_assert_str_eq(b->cpu_vendor, "GenuineIntel");
	cr_assert_not(b->fms_seen);
}

Test(klog_boot, msr_errors_on_pmu_registers)
{
	struct probe_klog k;
	const struct probe_boot *b =
		boot(&k, "[    1.9] unchecked MSR access error: WRMSR to 0x38f (tried to write "
			 "0x000000070000000f) at rIP: 0xffffffff8107a1e4 (native_write_msr+0x4/0x20)");
	cr_assert_eq(b->n_msr_errors, 1u);
	cr_assert_eq(b->msr_errors[0].msr, 0x38fu);
	cr_assert(b->msr_errors[0].write);
	cr_assert(b->msr_errors[0].value_seen);
	cr_assert_eq(b->msr_errors[0].value, 0x000000070000000full);
	const char *rd = "unchecked MSR access error: RDMSR from 0x329 at rIP: 0xffffffff81 (x)";
	cr_assert_eq(probe_klog_line(&k, rd, strlen(rd)), PROBE_KLOG_MSR);
	cr_assert_eq(k.boot.n_msr_errors, 2u);
	cr_assert_not(k.boot.msr_errors[1].write);
	/* Said again (another call site): kept once.  Not the PMU's: ignored. */
	const char *again = "unchecked MSR access error: WRMSR to 0x38f (tried to write 0x1)";
	const char *tsc = "unchecked MSR access error: WRMSR to 0x10 (tried to write 0x1)";
	cr_assert_eq(probe_klog_line(&k, again, strlen(again)), PROBE_KLOG_NONE);
	cr_assert_eq(probe_klog_line(&k, tsc, strlen(tsc)), PROBE_KLOG_NONE);
	cr_assert_eq(k.boot.n_msr_errors, 2u);
	/* AMD's and the fixed counters', up to the table's end. */
	const char *more[] = {"unchecked MSR access error: WRMSR to 0xc0010200 (tried to write 0x0)",
			      "unchecked MSR access error: RDMSR from 0x30c at rIP: 0x0",
			      "unchecked MSR access error: WRMSR to 0x38d (tried to write 0xb000)"};
	for (int i = 0; i < 3; i++)
		probe_klog_line(&k, more[i], strlen(more[i]));
	cr_assert_eq(k.boot.n_msr_errors, PROBE_MAX_MSR_ERRORS, "bounded");
	cr_assert_str_eq(probe_pmu_msr_name(0x30c), "IA32_FIXED_CTR3 (TOPDOWN.SLOTS)");
	cr_assert_null(probe_pmu_msr_name(0x10));
}

Test(klog_boot, a_new_banner_starts_the_boot_over)
{
	struct probe_klog k;
	const char *l[] = {"Linux version 5.10.0 (x)", "Hypervisor detected: KVM",
			   "unchecked MSR access error: WRMSR to 0x38f (tried to write 0x1)",
			   "Linux version 6.8.0 (x)", "Performance Events: Icelake events, Intel PMU driver."};
	probe_klog_reset(&k);
	for (int i = 0; i < 5; i++)
		probe_klog_line(&k, l[i], strlen(l[i]));
	cr_assert_str_eq(k.boot.kernel_release, "6.8.0");
	cr_assert_str_eq(k.boot.hypervisor, "");
	cr_assert_eq(k.boot.n_msr_errors, 0u);
	/* The PMU block's own reset keeps the boot's lines printed before it. */
	const char *m[] = {"Hypervisor detected: KVM", "Performance Events: Icelake events, Intel PMU driver."};
	probe_klog_reset(&k);
	for (int i = 0; i < 2; i++)
		probe_klog_line(&k, m[i], strlen(m[i]));
	cr_assert_str_eq(k.boot.hypervisor, "KVM");
}

Test(klog_text, bitmap_generic_counters_and_bit35)
{
	struct probe_klog k;
	const char *l[] = {"[    0.1] Performance Events: Icelake events, full-width counters, Intel PMU driver.",
			   "[    0.1] ... version:                   2",
			   "[    0.1] ... generic counters:          8",
			   "[    0.1] ... generic bitmap:            00000000000000ff",
			   "[    0.1] ... fixed-purpose counters:    3",
			   "[    0.1] ... fixed-purpose bitmap:      0000000000000007",
			   "[    0.1] ... global_ctrl mask:          00000007000000ff"};
	klog(&k, l, 7);
	cr_assert_str_eq(k.driver_vendor, "GenuineIntel");
	cr_assert_eq(k.version_logged, 2);
	cr_assert_eq(k.gp_logged, 8);
	cr_assert(k.fixed_bitmap_seen);
	cr_assert_eq(k.fixed_bitmap, 7u);
	cr_assert_not(k.fixed3_logged);
	const char *b[] = {"Performance Events: x, Intel PMU driver.", "... fixed-purpose bitmap: 000000000000000f"};
	klog(&k, b, 2);
	cr_assert(k.fixed3_logged, "bitmap bit 3");
	const char *m[] = {"Performance Events: x, Intel PMU driver.", "... event mask: 0000000f000000ff"};
	klog(&k, m, 2);
	cr_assert(k.fixed3_logged, "mask bit 35");
}

/* A hybrid part prints cpu_core's block, then cpu_atom's: the first block's
 * numbers are the machine's, counter 3 is in any block. */
Test(klog_text, hybrid_first_block_counts)
{
	struct probe_klog k;
	const char *l[] = {"> May 04 12:22:28 host kernel: Performance Events: XSAVE Architectural LBR, Alderlake Hybrid events, Intel PMU driver.",
			   "> May 04 12:22:28 host kernel: core: cpu_core PMU driver:",
			   "> May 04 12:22:28 host kernel: ... version: 5",
			   "> May 04 12:22:28 host kernel: ... fixed-purpose counters: 4",
			   "> May 04 12:22:28 host kernel: ... global_ctrl mask: 0001000f000000ff",
			   "> May 04 12:22:28 host kernel: core: cpu_atom PMU driver:",
			   "> May 04 12:22:28 host kernel: ... version: 5",
			   "> May 04 12:22:28 host kernel: ... fixed-purpose counters: 3",
			   "> May 04 12:22:28 host kernel: ... global_ctrl mask: 000000070000003f"};
	klog(&k, l, 9);
	cr_assert_eq(k.fixed_logged, 4);
	cr_assert(k.fixed3_logged);
	cr_assert(k.perf_metrics_bit);
	cr_assert_eq(k.mask, 0x0001000f000000ffull);
}

/* A capture's wrapped line ("so ftware") still says there is no driver;
 * the newer wording gives family and model. */
Test(klog_text, unsupported_model_means_no_driver)
{
	struct probe_klog k;
	const char *l[] = {"[    0.143596] Performance Events: unsupported p6 CPU model 183 no PMU "
			   "driver, so ftware events only."};
	klog(&k, l, 1);
	cr_assert(k.no_pmu_driver);
	cr_assert_eq(k.unsupported_nr, 183);
	cr_assert_eq(k.unsupported_family, 6);
	const char *n[] = {"Performance Events: unsupported CPU family 6 model 198 no PMU driver, "
			   "software events only."};
	klog(&k, n, 1);
	cr_assert_eq(k.unsupported_family, 6);
	cr_assert_eq(k.unsupported_nr, 198);
	const char *b[] = {"[    0.24] Performance Events: Broken PMU hardware detected, using software events only.",
			   "[    0.24] Failed to access perfctr msr (MSR c0010007 is 0)"};
	klog(&k, b, 2);
	cr_assert(k.broken_pmu);
}

/* The lazy path reads sysfs again with events; a failure then (the fd
 * limit, a directory gone) keeps what the first read found. */
Test(sysfs, a_failed_reread_keeps_the_core_pmus)
{
	static struct probe_facts f;
	char dir[1024];
	cr_assert(probe_join(dir, sizeof(dir), PMUGUARD_FIXTURES, "m6i-16xlarge/sys/bus/event_source/devices"));
	probe_sysfs(&f, dir, false);
	cr_assert_gt(f.n_pmus, 0, "the fixture's core PMU was not found");
	unsigned n = f.n_pmus;
	probe_sysfs(&f, "/nonexistent/pmuguard/devices", true);
	cr_assert_eq(f.sysfs_err, -ENOENT);
	cr_assert_eq(f.n_pmus, n, "a failed re-read dropped the core PMUs");
	cr_assert(f.known & PROBE_KNOWN_SYSFS);
}

/* Issue: "a kernel-log line written by any user flips the verdict".  x86's
 * segfault report quotes the basename of the file mapped at the faulting
 * address (print_vma_addr(), mm/memory.c), so any user can put "... event
 * mask: 0001000f000000ff" (bit 48) into a kernel record.  Only the PMU
 * driver's own block counts: marks at the start of a record, the first
 * block of the boot. */
static const char *const m6i_block[] = {
	"[    0.000000] Linux version 6.8.0-1021-aws (buildd@lcy02-amd64-049) #23-Ubuntu SMP",
	"[    0.312844] Performance Events: Icelake events, Intel PMU driver.",
	"[    0.312844] ... version:                2",
	"[    0.312844] ... fixed-purpose events:   4",
	"[    0.312844] ... event mask:             0000000f000000ff",
	"[    0.313502] signal: max sigframe size: 3632",
};
#define SEGV "evil[23190]: segfault at 0 ip 00007f5c3e2a1002 sp 00007ffd9b1b4c68 error 4 in "

static void klog_more(struct probe_klog *k, const char *const lines[], size_t n)
{
	for (size_t i = 0; i < n; i++)
		probe_klog_line(k, lines[i], strlen(lines[i]));
}

Test(klog_trust, a_mask_quoted_in_a_segfault_report_is_not_the_drivers)
{
	struct probe_klog k;
	static const char *const user[] = {
		"[ 4211.338207] " SEGV "... event mask: 0001000f000000ff[7f5c3e2a1000+1000] likely on CPU 3 (core 1, socket 0)",
		"[ 4211.338231] Code: Unable to access opcode bytes at 0x7f5c3e2a0fd8."};
	probe_klog_reset(&k);
	klog_more(&k, m6i_block, 6);
	klog_more(&k, user, 2);
	cr_assert(k.mask_seen);
	cr_assert_eq(k.mask, 0x0000000f000000ffull, "the driver's mask, not the user's");
	cr_assert_not(k.perf_metrics_bit);
	cr_assert_eq(k.fixed_logged, 4);
	/* The ring buffer rotated past the boot: the user's line alone is no block. */
	probe_klog_reset(&k);
	klog_more(&k, user, 2);
	cr_assert_not(k.pmu_driver_seen);
	cr_assert_not(k.mask_seen);
	cr_assert_not(k.perf_metrics_bit);
}

/* syslog(2) and busybox print a record holding '\n' as several lines, each
 * with the record's prefix (record_print_text(), kernel/printk/printk.c):
 * a file name with newlines fakes lines, a banner and a whole block. */
Test(klog_trust, lines_split_from_a_users_record_do_not_replace_the_drivers_block)
{
	struct probe_klog k;
	static const char *const split[] = {
		"<6>[ 4211.338207] " SEGV "x",
		"<6>[ 4211.338207] ... event mask:             0001000f000000ff",
		"<6>[ 4211.338207] Linux version 6.8.0-1021-aws (buildd@lcy02-amd64-049) #23-Ubuntu SMP",
		"<6>[ 4211.338207] Performance Events: Icelake events, Intel PMU driver.",
		"<6>[ 4211.338207] ... version:                5",
		"<6>[ 4211.338207] ... event mask:             0001000f000000ff",
		"<6>[ 4211.338207] z[7f5c3e2a1000+1000] likely on CPU 3 (core 1, socket 0)"};
	probe_klog_reset(&k);
	klog_more(&k, m6i_block, 6);
	klog_more(&k, split, 7);
	cr_assert_eq(k.mask, 0x0000000f000000ffull);
	cr_assert_not(k.perf_metrics_bit, "a later block, after a banner at 4211 s, is not the driver's");
	cr_assert_eq(k.version_logged, 2);
	cr_assert_str_eq(k.boot.kernel_release, "6.8.0-1021-aws");
}

/* The first block of the boot is the driver's; QEMU's TCG prints a bare
 * verdict first, and tests/vm's test PMU module its block later. */
Test(klog_trust, a_bare_first_block_gives_way_to_a_block_with_lines)
{
	struct probe_klog k;
	static const char *const vm[] = {
		"[    0.000000] Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) (gcc-12) #1 SMP",
		"[    0.270121] Performance Events: PMU not available due to virtualization, using software events only.",
		"[    0.271000] signal: max sigframe size: 1776",
		"[    1.412300] Performance Events: Icelake events, Intel PMU driver.",
		"[    1.412301] ... version:                2",
		"[    1.412302] ... fixed-purpose events:   4",
		"[    1.412303] ... event mask:             0000000f000000ff",
		"[    1.412400] Performance Events: Icelake events, Intel PMU driver.",
		"[    1.412401] ... event mask:             0001000f000000ff"};
	probe_klog_reset(&k);
	klog_more(&k, vm, 9);
	cr_assert(k.pmu_driver_seen);
	cr_assert_not(k.virt_unavailable, "the block with lines replaced the bare verdict");
	cr_assert_str_eq(k.driver_vendor, "GenuineIntel");
	cr_assert_eq(k.fixed_logged, 4);
	cr_assert_eq(k.mask, 0x0000000f000000ffull);
	cr_assert_not(k.perf_metrics_bit, "the third block is not the driver's");
}

Test(klog_trust, block_lines_parse_strictly)
{
	struct probe_klog k;
	static const char *const l[] = {
		"Performance Events: Icelake events, Intel PMU driver.",
		"... version:                2",
		"... event mask:             0001000f000000ff[7f5c3e2a1000+1000]",
	};
	probe_klog_reset(&k);
	klog_more(&k, l, 3);
	cr_assert_not(k.mask_seen, "junk after the value: not the driver's format");
	cr_assert_eq(k.version_logged, 2);
	static const char *const ok[] = {
		"Performance Events: Icelake events, Intel PMU driver.",
		"... fixed-purpose events:   4\r",
		"... event mask:             0000000f000000ff  ",
	};
	probe_klog_reset(&k);
	klog_more(&k, ok, 3);
	cr_assert(k.mask_seen, "trailing blanks and CR are fine");
	cr_assert_eq(k.fixed_logged, 4);
}

/* dmesg indents the further lines of a record: they start no record. */
Test(klog_trust, indented_continuation_lines_start_no_record)
{
	struct probe_klog k;
	static const char *const l[] = {
		"[ 4211.338207] " SEGV "x",
		"               ... event mask:             0001000f000000ff",
		"               Performance Events: Icelake events, Intel PMU driver.",
		"               ... event mask:             0001000f000000ff",
		"               z[7f5c3e2a1000+1000] likely on CPU 3 (core 1, socket 0)"};
	probe_klog_reset(&k);
	klog_more(&k, l, 5);
	cr_assert_not(k.pmu_driver_seen);
	cr_assert_not(k.mask_seen);
}

/* Records of another facility, or another program's syslog lines, are
 * not the kernel's (devkmsg_write() forces LOG_USER on userspace's). */
Test(klog_trust, other_facilities_and_programs_are_not_the_kernel)
{
	struct probe_klog k;
	static const char *const l[] = {
		"<14>[   10.1] Performance Events: Icelake events, Intel PMU driver.",
		"<14>[   10.1] ... event mask:             0001000f000000ff",
		"user  :info  : [   10.1] Performance Events: Icelake events, Intel PMU driver.",
		"May 04 12:22:28 host evil[1]: Performance Events: Icelake events, Intel PMU driver.",
		"May 04 12:22:28 host evil[1]: ... event mask: 0001000f000000ff"};
	probe_klog_reset(&k);
	klog_more(&k, l, 5);
	cr_assert_not(k.pmu_driver_seen);
	cr_assert_not(k.mask_seen);
	static const char *const kern[] = {
		"<6>[    0.1] Performance Events: Icelake events, Intel PMU driver.",
		"kern  :info  : [    0.1] ... fixed-purpose events:   4",
		"May 04 12:22:28 host kernel: ... event mask: 0000000f000000ff"};
	probe_klog_reset(&k);
	klog_more(&k, kern, 3);
	cr_assert(k.pmu_driver_seen);
	cr_assert_eq(k.fixed_logged, 4);
	cr_assert(k.mask_seen);
}

/* A banner is one only at time 0 and in the kernel's format. */
Test(klog_trust, a_banner_is_the_kernels_at_time_zero)
{
	struct probe_klog k;
	static const char *const l[] = {
		"[    0.000000] Linux version 6.1.0 (a@b) (gcc) #1 SMP",
		"[    0.3] Performance Events: Icelake events, Intel PMU driver.",
		"[    0.3] ... event mask:             0000000f000000ff",
		"[  572.4] Linux version 9.9.9 (a@b) (gcc) #1 SMP",
		"[  572.4] Performance Events: Icelake events, Intel PMU driver.",
		"[  572.4] ... event mask:             0001000f000000ff",
		"Linux version 1[123]: segfault at 0 ip 0 sp 0 error 4 in x[0+1000]"};
	probe_klog_reset(&k);
	klog_more(&k, l, 7);
	cr_assert_str_eq(k.boot.kernel_release, "6.1.0");
	cr_assert_not(k.perf_metrics_bit);
}

/* --- Below: the parser's own interface (forms, anchoring, what was ignored). */

Test(klog_forms, kmsg_records_are_whole_and_carry_their_facility)
{
	struct probe_klog k;
	static const char *const recs[] = {
		"5,0,0,-;Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) (gcc-12) #1 SMP\n",
		"6,412,312844,-;Performance Events: Icelake events, Intel PMU driver.\n",
		"6,413,312844,-;... version:                2\n",
		"6,414,312844,-;... fixed-purpose events:   4\n",
		"6,415,312844,-;... event mask:             0000000f000000ff\n SUBSYSTEM=cpu\n",
		"6,416,313502,-;signal: max sigframe size: 3632\n",
		/* A name with newlines stays one record: /dev/kmsg escapes them. */
		"6,900,4211338207,-;" SEGV "x\\x0a... event mask:             0001000f000000ff\\x0aPerformance Events: x\\x0az[7f5c3e2a1000+1000]\n",
		/* Written to /dev/kmsg: LOG_USER, whatever the text says. */
		"14,901,4211338300,-;Performance Events: Icelake events, Intel PMU driver.\n",
		"14,902,4211338301,-;... event mask:             0001000f000000ff\n",
		/* comm at the start of a record: 15 characters, then "[pid]: ". */
		"6,903,4211338302,-;... event mask:[23190]: segfault at 0 ip 0 sp 0 error 4\n",
		"6,904,4211338303,-;Linux version 9[23191]: segfault at 0 ip 0 sp 0 error 4\n",
	};
	probe_klog_begin(&k, PROBE_KLOG_KMSG);
	klog_more(&k, recs, sizeof(recs) / sizeof(recs[0]));
	cr_assert(k.pmu_driver_seen);
	cr_assert(k.pmu_block_anchored);
	cr_assert_eq(k.mask, 0x0000000f000000ffull);
	cr_assert_not(k.perf_metrics_bit);
	cr_assert_str_eq(k.boot.kernel_release, "6.1.0-18-amd64");
	cr_assert_eq(k.ignored.not_at_start, 1u);
	cr_assert_eq(k.ignored.other_facility, 2u);
	cr_assert_eq(k.ignored.malformed, 1u);
	cr_assert_eq(k.ignored.banner, 1u);
	/* /dev/kmsg needs no banner: a record is whole. */
	probe_klog_begin(&k, PROBE_KLOG_KMSG);
	klog_more(&k, recs + 1, 4);
	cr_assert(k.pmu_block_anchored);
	unsigned pri;
	uint64_t usec;
	const char *text;
	size_t n;
	cr_assert(probe_kmsg_record(recs[4], strlen(recs[4]), &pri, &usec, &text, &n));
	cr_assert_eq(pri, 6u);
	cr_assert_eq(usec, 312844u);
	cr_assert_eq(n, strlen("... event mask:             0000000f000000ff"));
	cr_assert_not(probe_kmsg_record("junk;x", 6, &pri, &usec, &text, &n));
}

/* Where a record can be split into lines, a block proves perf metrics
 * only after its boot's banner: without it the block may be a user's. */
Test(klog_forms, a_block_without_its_boots_start_is_not_anchored)
{
	struct probe_klog k;
	static const char *const rotated[] = {
		"<6>[1209552.338207] " SEGV "x",
		"<6>[1209552.338207] ... event mask:             0001000f000000ff",
		"<6>[1209552.338207] Linux version 6.8.0-1021-aws (buildd@lcy02-amd64-049) #23-Ubuntu SMP",
		"<6>[1209552.338207] Performance Events: Icelake events, Intel PMU driver.",
		"<6>[1209552.338207] ... version:                5",
		"<6>[1209552.338207] ... event mask:             0001000f000000ff"};
	probe_klog_begin(&k, PROBE_KLOG_SYSLOG);
	klog_more(&k, rotated, 6);
	cr_assert(k.pmu_driver_seen, "the only block: its facts describe the machine");
	cr_assert(k.perf_metrics_bit);
	cr_assert_not(k.pmu_block_anchored, "but it proves nothing");
	cr_assert_eq(k.ignored.banner, 1u);
	cr_assert_eq(k.ignored.outside_block, 1u);
	/* syslog(2) holds one boot: its banner is its first record. */
	static const char *const live[] = {
		"<5>Linux version 6.1.0 (a@b) (gcc) #1 SMP",
		"<6>Performance Events: Icelake events, Intel PMU driver.",
		"<6>... event mask:             0001000f000000ff",
		"<5>Linux version 6.1.0 (a@b) (gcc) #1 SMP"};
	probe_klog_begin(&k, PROBE_KLOG_SYSLOG);
	klog_more(&k, live, 4);
	cr_assert(k.pmu_block_anchored);
	cr_assert(k.perf_metrics_bit);
	cr_assert_eq(k.ignored.banner, 1u, "a second banner is no boot");
	probe_klog_begin(&k, PROBE_KLOG_SYSLOG);
	klog_more(&k, live + 1, 3);
	cr_assert_not(k.pmu_block_anchored);
}

/* Issue 41: the paste forms' wrapping is taken off only where a kernel
 * timestamp follows it at the line's start; a user's text, which always
 * comes after the kernel's own timestamp, stays where it was. */
Test(klog_trust, paste_forms_never_move_a_users_text_to_a_records_start)
{
	static const char *l[] = {
		"\x1b[32m[    0.000000] \x1b[0mLinux version 6.8.0 (a@b) (gcc) #1 SMP",
		"\x1b[32m[    0.352933] \x1b[0mPerformance Events: Icelake events, Intel PMU driver.",
		"\x1b[32m[    0.353510] \x1b[0m... version:                2",
		"\x1b[32m[    0.353510] \x1b[0m... fixed-purpose events:   4",
		"\x1b[32m[    0.353510] \x1b[0m... event mask:             0000000f000000ff",
		"\x1b[32m[    1.000000] \x1b[0mrcu: done",
		/* A user's /dev/kmsg text after the kernel's stamp, in every form. */
		"\x1b[32m[ 4211.338207] \x1b[0m[Moby][Info] [    0.000000] Linux version 6.9 (x@y) (gcc) #1",
		"\x1b[32m[ 4211.338208] \x1b[0m[COLOR=red][    0.1] ... event mask: 0001000f000000ff[/COLOR]",
		"\x1b[32m[ 4211.338209] \x1b[0mhost kernel: ... event mask: 0001000f000000ff"};
	struct probe_klog k;
	klog(&k, l, sizeof(l) / sizeof(l[0]));
	cr_assert_eq(k.mask, 0x0000000f000000ffull);
	cr_assert_not(k.perf_metrics_bit);
	cr_assert(k.pmu_block_anchored);
	cr_assert_str_eq(k.boot.kernel_release, "6.8.0");
	cr_assert_eq(k.ignored.not_at_start, 2u, "the two masks after the stamp");
}

/* journalctl -o short-monotonic: another program's lines are not the
 * kernel's, whatever they say. */
Test(klog_trust, short_monotonic_other_programs_are_not_the_kernel)
{
	static const char *l[] = {
		"[    0.000000] host kernel: Linux version 6.8.0 (a@b) (gcc) #1 SMP",
		"[    0.352933] host kernel: Performance Events: Icelake events, Intel PMU driver.",
		"[    0.353510] host evil[31]: ... event mask:             0001000f000000ff",
		"[    0.353510] host kernel: ... version:                2",
		"[    0.353510] host kernel: ... event mask:             0000000f000000ff"};
	struct probe_klog k;
	klog(&k, l, sizeof(l) / sizeof(l[0]));
	cr_assert_eq(k.mask, 0x0000000f000000ffull);
	cr_assert_eq(k.version_logged, 2);
	cr_assert_eq(k.ignored.other_facility, 1u);
}

/* Hostile review of issue 41: a user's multi-line record, its further
 * lines indented by dmesg and wrapped in a field ("[x] "), lost the indent
 * with the field and passed for an anchored boot and driver block. */
Test(klog_trust, a_fields_wrapping_never_takes_a_further_lines_indent)
{
	static const char *l[] = {
		"[    0.000000] Linux version 6.1.0 (a@b) (gcc) #1 SMP",
		"[    0.352933] Performance Events: Icelake events, Intel PMU driver.",
		"[    0.353510] ... version:                2",
		"[    0.353510] ... fixed-purpose events:   4",
		"[    0.353510] ... event mask:             0000000f000000ff",
		"[  100.000000] x",
		"               [x] [    0.000000] Linux version 6.9 (x@y) (gcc) #1 SMP",
		"               [x] [    0.588495] Performance Events: Icelake events, Intel PMU driver.",
		"               [x] [    0.588495] ... event mask:             0001000f000000ff"};
	struct probe_klog k;
	klog(&k, l, sizeof(l) / sizeof(l[0]));
	cr_assert_eq(k.mask, 0x0000000f000000ffull);
	cr_assert_not(k.perf_metrics_bit);
	cr_assert_str_eq(k.boot.kernel_release, "6.1.0");
}

/* Hostile review of issue 41: a text cut inside a user's record starts
 * with one of its further lines (indented by the stamp's width): that is
 * no paste indented once, and the user's later further lines stay such. */
Test(klog_trust, a_text_cut_inside_a_record_is_no_indented_paste)
{
	static const char *l[] = {
		"               tail of a user's earlier record",
		"[    0.000000] Linux version 6.1.0 (a@b) (gcc) #1 SMP",
		"[    0.352933] Performance Events: Icelake events, Intel PMU driver.",
		"[    0.353510] ... version:                2",
		"[    0.353510] ... fixed-purpose events:   4",
		"[    0.353510] ... event mask:             0000000f000000ff",
		"[  100.000000] hello",
		"               Linux version 6.9 (x@y) (gcc) #1 SMP",
		"               Performance Events: Icelake events, Intel PMU driver.",
		"               ... event mask:             0001000f000000ff"};
	struct probe_klog k;
	klog(&k, l, sizeof(l) / sizeof(l[0]));
	cr_assert_eq(k.mask, 0x0000000f000000ffull);
	cr_assert_not(k.perf_metrics_bit);
	cr_assert_str_eq(k.boot.kernel_release, "6.1.0");
}

/* A text into probe_klog_gather() (the paste reader, kmsg_feed.c), through
 * a file of its own. */
static void klog_paste(struct probe_facts *f, const char *text, size_t len)
{
	char path[] = "/tmp/pmuguard-paste-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	for (size_t at = 0; at < len;) {
		ssize_t w = write(fd, text + at, len - at);
		cr_assert_gt(w, 0);
		at += (size_t)w;
	}
	close(fd);
	memset(f, 0, sizeof(*f));
	probe_klog_gather(f, path, true, NULL);
	unlink(path);
}

#define R5424(stamp) "<6>1 2024-12-06T10:15:01.000000+00:00 host kernel - - - [" stamp "] "

/* RFC 5424 records glued into one stream are cut at each header, and the
 * records cut out of a line are read: the driver's block proves what it
 * proves after its boot's banner. */
Test(klog_trust, a_glued_stream_of_the_kernels_records_is_read)
{
	static const char glued[] =
		R5424("    0.000000") "Linux version 6.8.0-1021-aws (buildd@lcy02-amd64-049) #23-Ubuntu SMP" R5424("    0.312844") "Performance Events: Icelake events, Intel PMU driver." R5424(
			"    0.312844") "... version:                5" R5424("    0.312844") "... event mask:             0001000f000000ff" R5424("    0.313502") "signal: max sigframe size: 3632\n";
	struct probe_facts f;
	klog_paste(&f, glued, sizeof(glued) - 1);
	cr_assert(f.klog.pmu_driver_seen);
	cr_assert(f.klog.boot.start_banner);
	cr_assert_eq(f.klog.mask, 0x0001000f000000ffull);
	cr_assert(f.klog.perf_metrics_bit, "anchored by its boot's banner: a proof");
}

/* A program's record is glued to the kernel's in the same stream; its text
 * holds headers of its own making ("logger" is enough), a banner and a
 * block with PERF_METRICS.  Cut out of a line, such a record starts no
 * boot: the block it brings is a later one, ignored. */
Test(klog_trust, a_header_inside_a_programs_record_starts_no_boot)
{
	static const char
		spoof[] = R5424("    0.000000") "Linux version 6.8.0-1021-aws (buildd@lcy02-amd64-049) #23-Ubuntu SMP" R5424("    0.312844") "Performance Events: Icelake events, Intel PMU driver." R5424("    0.312844") "... version:                2" R5424("    0.312844") "... fixed-purpose events:   4" R5424("    0.312844") "... event mask:             0000000f000000ff" R5424("    0.313502") "signal: max sigframe size: 3632"
																																																	    "<13>1 2024-12-06T11:00:00Z host evil 4242 - - hello " R5424("    0.000000") "Linux version 9.9.9 (evil@host) #1 SMP" R5424("    0.352933") "Performance Events: Icelake events, Intel PMU driver." R5424("    0.352933") "... version:                5" R5424("    0.352933") "... event mask:             0001000f000000ff\n";
	struct probe_facts f;
	klog_paste(&f, spoof, sizeof(spoof) - 1);
	cr_assert_eq(f.klog.mask, 0x0000000f000000ffull, "the driver's mask, not the program's");
	cr_assert_not(f.klog.perf_metrics_bit);
	cr_assert_str_eq(f.klog.boot.kernel_release, "6.8.0-1021-aws");
	cr_assert_geq(f.klog.ignored.banner, 1u);
}

/* A header cut at the mapping's end (16 MiB, KLOG_TEXT_MAX) is never read
 * past it; a stream of nothing but headers is read in one pass (each
 * physical line's end found once, not once per record). */
Test(klog_trust, a_text_of_headers_to_the_cap_is_read_within_it, .timeout = 600)
{
	size_t cap = 16u << 20;
	char *text = malloc(cap);
	cr_assert_not_null(text);
	static const char tail[] = "\n<6>1 2024-12-01";
	memset(text, 'x', cap - (sizeof(tail) - 1));
	memcpy(text + cap - (sizeof(tail) - 1), tail, sizeof(tail) - 1);
	struct probe_facts f;
	klog_paste(&f, text, cap);
	cr_assert(f.known & PROBE_KNOWN_KLOG);
	static const char h[] = "<6>1 2024-12-06T";
	for (size_t at = 0; at + sizeof(h) - 1 <= cap; at += sizeof(h) - 1)
		memcpy(text + at, h, sizeof(h) - 1);
	klog_paste(&f, text, cap);
	cr_assert(f.known & PROBE_KNOWN_KLOG);
	cr_assert_not(f.klog.pmu_driver_seen);
	free(text);
}

/* journald keeps a record a program wrote to /dev/kmsg with
 * _TRANSPORT=kernel and takes SYSLOG_IDENTIFIER from its text
 * ("kernel: ..."): SYSLOG_FACILITY, a string or a number, says whose it
 * is (rule 1). */
Test(klog_trust, a_journal_entry_of_another_facility_is_not_the_kernels)
{
#define JSON_KMSG(fac, text)                                                                       \
	"{\"_TRANSPORT\":\"kernel\",\"PRIORITY\":\"6\",\"SYSLOG_FACILITY\":" fac                   \
	",\"SYSLOG_IDENTIFIER\":\"kernel\",\"MESSAGE\":\"" text "\"}"
	struct probe_klog k;
	static const char *const user[] = {
		JSON_KMSG("\"1\"",
			  "[    0.352933] Performance Events: Icelake events, Intel PMU driver."),
		JSON_KMSG("1", "[    0.352933] ... event mask:             0001000f000000ff"),
		JSON_KMSG("\"10\"", "[    0.352933] ... version:                5")};
	probe_klog_reset(&k);
	klog_more(&k, user, 3);
	cr_assert_not(k.pmu_driver_seen);
	cr_assert_not(k.mask_seen);
	cr_assert_geq(k.ignored.other_facility, 2u);
	static const char *const kern[] = {
		JSON_KMSG("\"0\"",
			  "[    0.352933] Performance Events: Icelake events, Intel PMU driver."),
		JSON_KMSG("0", "[    0.352933] ... event mask:             0000000f000000ff")};
	probe_klog_reset(&k);
	klog_more(&k, kern, 2);
	cr_assert(k.pmu_driver_seen);
	cr_assert(k.mask_seen);
#undef JSON_KMSG
}
