// SPDX-License-Identifier: GPL-2.0-or-later
/* The findings per story: ids, and the words that tell the stories apart. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evidence.h"
#include "findings.h"
#include "fixture.h"
#include "machine.h"

static struct world w;
static struct finding fs[FINDINGS_MAX];
static unsigned n;

static void load(const char *name)
{
	world_load(&w, name);
	n = findings_build(&w.f, &w.v, fs);
	cr_assert_leq(n, FINDINGS_MAX);
}

static const struct finding *find(const char *id)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(fs[i].id, id))
			return &fs[i];
	return NULL;
}

/* Exactly these ids, in any order. */
static void expect_ids(const char *name, const char *const ids[], unsigned count)
{
	load(name);
	cr_assert_eq(n, count, "%s: %u findings, expected %u (first: %s)", name, n, count,
		     n ? fs[0].id : "none");
	for (unsigned i = 0; i < count; i++)
		cr_assert_not_null(find(ids[i]), "%s: no finding %s", name, ids[i]);
	for (unsigned i = 0; i < n; i++) {
		cr_assert(fs[i].summary && *fs[i].summary, "%s: empty summary", fs[i].id);
		cr_assert(fs[i].evidence[0], "%s: no evidence", fs[i].id);
		cr_assert(fs[i].consequence && *fs[i].consequence, "%s: no consequence", fs[i].id);
		cr_assert(fs[i].remedy[0], "%s: no remedy", fs[i].id);
	}
}

#define IDS(...) (const char *const[]){__VA_ARGS__}, sizeof((const char *[]){__VA_ARGS__}) / sizeof(char *)

Test(stories, m6i_incoherent)
{
	expect_ids("m6i-16xlarge", IDS("fixed3-unimplemented"));
	const struct finding *x = find("fixed3-unimplemented");
	cr_assert(strstr(x->evidence, "0x0000000f000000ff"), "%s", x->evidence);
	cr_assert(strstr(x->remedy, "pmuguard run"));
	cr_assert(w.v.hazard);
}

Test(stories, m6i_old_kernel_says_sysfs_proves_nothing)
{
	expect_ids("m6i-16xlarge-oldkernel", IDS("fixed3-unimplemented"));
	cr_assert(strstr(find("fixed3-unimplemented")->evidence, "before 6.11"));
}

Test(stories, kvm_no_vpmu_on_raptor_lake_host_6_12_wording)
{
	expect_ids("kvm-on-hybrid-host", IDS("no-vpmu"));
	const struct finding *x = find("no-vpmu");
	cr_assert(strstr(x->remedy, "not your CPU model"), "%s", x->remedy);
	cr_assert(strstr(x->remedy, "4d7404e5ee00"));
	cr_assert(strstr(x->evidence, "183"));
	cr_assert_not(w.v.hazard);
}

Test(stories, kvm_no_vpmu_on_raptor_lake_host_6_18_wording)
{
	expect_ids("kvm-on-hybrid-host-6.18", IDS("no-vpmu"));
	cr_assert(w.f.klog.unsupported_model);
	cr_assert(strstr(find("no-vpmu")->remedy, "hybrid"));
}

Test(stories, vmware_counters_in_use)
{
	expect_ids("vmware-counters-in-use", IDS("counters-in-use"));
	const struct finding *x = find("counters-in-use");
	cr_assert(strstr(x->evidence, "0x38d"), "%s", x->evidence);
	cr_assert(strstr(x->evidence, "IA32_FIXED_CTR_CTRL"));
	cr_assert(strstr(x->remedy, "VMware"));
	cr_assert_null(find("healthy"), "counts of zero are not healthy");
}

Test(stories, bare_metal_icelake_is_healthy)
{
	expect_ids("icx-8375c-metal", IDS("healthy"));
}

Test(stories, amd_is_not_intel)
{
	expect_ids("amd-epyc-guest", IDS("not-intel"));
}

Test(stories, rotated_and_empty_logs_are_facts_unknown_but_still_hazard)
{
	expect_ids("m6i-rotated-log", IDS("fixed3-unimplemented", "facts-unknown"));
	cr_assert(strstr(find("facts-unknown")->evidence, "rotated"));
	expect_ids("m6i-empty-log", IDS("fixed3-unimplemented", "facts-unknown"));
}

Test(stories, unreadable_facts)
{
	expect_ids("guest-no-leaf-a", IDS("facts-unknown"));
	cr_assert(strstr(find("facts-unknown")->consequence, "fails open"));
	expect_ids("does-not-exist", IDS("facts-unknown"));
	cr_assert(strstr(find("facts-unknown")->evidence, "CPUID"));
	expect_ids("metal-no-sysfs", IDS("facts-unknown", "healthy"));
}

/* Issue 40 (12): a user under dmesg_restrict and root got two verdicts for
 * one host, and nothing said why. */
Test(stories, a_user_without_the_log_is_told_root_sees_more)
{
	load("m6i-16xlarge");
	w.f.known &= ~PROBE_KNOWN_KLOG;
	w.f.klog_err = -EPERM;
	probe_evaluate(&w.f, &w.v);
	n = findings_build(&w.f, &w.v, fs);
	const struct finding *x = find("facts-unknown");
	cr_assert_not_null(x);
	cr_assert(strstr(x->evidence, "dmesg_restrict"));
	cr_assert(strstr(x->evidence, "root reads the log, and on this same host may reach another "
				      "verdict"),
		  "%s", x->evidence);
}

Test(stories, amd_guest_without_a_vpmu_is_told_so)
{
	world_load(&w, "amd-epyc-guest");
	w.f.klog.virt_unavailable = true; /* "PMU not available due to virtualization" */
	w.f.n_pmus = 0;
	n = findings_build(&w.f, &w.v, fs);
	cr_assert_not_null(find("no-vpmu"));
	cr_assert_not_null(find("not-intel"));
	cr_assert(strstr(find("no-vpmu")->evidence, "virtualization"));
	cr_assert_null(strstr(find("no-vpmu")->evidence, "CPUID.0AH"), "AMD has no leaf 0xA");
}

Test(tables, msr_names_and_hybrid_models)
{
	char b[96];
	cr_assert(strstr(findings_msr_name(0x186, b, sizeof(b)), "IA32_PERFEVTSEL0"));
	cr_assert(strstr(findings_msr_name(0x18d, b, sizeof(b)), "IA32_PERFEVTSEL7"));
	cr_assert(strstr(findings_msr_name(0x38d, b, sizeof(b)), "IA32_FIXED_CTR_CTRL"));
	cr_assert(findings_hybrid_model(6, 0xB7));
	cr_assert(findings_hybrid_model(6, 0x97));
	cr_assert_not(findings_hybrid_model(6, 0x6A), "Ice Lake-SP is not hybrid");
	cr_assert_not(findings_hybrid_model(6, 0x8F), "Sapphire Rapids is not hybrid");
}

/* Which machine, in words. */
Test(machine, dmi_files_name_the_instance)
{
	world_load(&w, "m6i-16xlarge");
	struct probe_machine m;
	probe_machine_build(&w.f, &m);
	cr_assert_str_eq(m.source, "dmi");
	cr_assert_str_eq(m.sys_vendor, "Amazon EC2");
	cr_assert_str_eq(m.product_name, "m6i.16xlarge");
	cr_assert_str_eq(m.words, "AWS m6i.16xlarge");
	n = findings_build(&w.f, &w.v, fs);
	const struct finding *x = find("fixed3-unimplemented");
	cr_assert(strstr(x->evidence, "the guest AWS m6i.16xlarge (hypervisor KVM)"), "%s", x->evidence);
	cr_assert(strstr(x->remedy, "provider of AWS m6i.16xlarge"), "%s", x->remedy);
}

Test(machine, the_logs_dmi_line_where_the_files_are_absent)
{
	world_load(&w, "m6i-16xlarge-log-only");
	struct probe_machine m;
	probe_machine_build(&w.f, &m);
	cr_assert_str_eq(m.source, "kernel-log");
	cr_assert_str_eq(m.sys_vendor, "Amazon EC2");
	cr_assert_str_eq(m.product_name, "m6i.16xlarge");
	cr_assert_str_eq(m.words, "AWS m6i.16xlarge");
	world_load(&w, "cap-bare-ivb-i3-3240-hp-microserver-gen8-4.15.0-76");
	probe_machine_build(&w.f, &m);
	cr_assert_str_eq(m.words, "HP ProLiant MicroServer Gen8");
	world_load(&w, "cap-kvm-vps-hoster-vserver-skylake-ibrs-4.19.0-20");
	probe_machine_build(&w.f, &m);
	cr_assert_str_eq(m.words, "Hoster vServer", "an unknown vendor stays whole");
	cr_assert_str_eq(m.sys_vendor, "");
	world_load(&w, "m5-24xlarge");
	probe_machine_build(&w.f, &m);
	cr_assert_null(m.source, "no DMI anywhere: unknown");
}

/* Plain perf stat on a pre-6.11 guest kernel. */
Test(plain_perf_stat, old_kernel_listing_slots_is_told_about_substitute)
{
	load("m6i-16xlarge-oldkernel");
	cr_assert_eq(findings_plain_perf_stat(&w.f, &w.v), PLAIN_PERF_STAT_STOPS);
	const struct finding *x = find("fixed3-unimplemented");
	cr_assert(strstr(x->remedy, "The slots event is not supported"), "%s", x->remedy);
	cr_assert(strstr(x->remedy, "slots = substitute"));
	cr_assert(strstr(x->remedy, "/etc/pmuguard.conf"));
	cr_assert(strstr(x->remedy, "0x01a4"));
	load("m6i-16xlarge");
	cr_assert_eq(findings_plain_perf_stat(&w.f, &w.v), PLAIN_PERF_STAT_WORKS, "6.11+: slots hidden");
	cr_assert_null(strstr(find("fixed3-unimplemented")->remedy, "substitute"));
	load("m6i-16xlarge-log-only");
	cr_assert_eq(findings_plain_perf_stat(&w.f, &w.v), PLAIN_PERF_STAT_MAY_STOP, "5.10, no sysfs");
	load("icx-8375c-metal");
	cr_assert_eq(findings_plain_perf_stat(&w.f, &w.v), PLAIN_PERF_STAT_WORKS, "no hazard");
}

Test(log_only, findings_say_the_facts_came_from_the_log)
{
	expect_ids("m6i-16xlarge-log-only", IDS("fixed3-unimplemented", "facts-unknown"));
	cr_assert(strstr(find("fixed3-unimplemented")->evidence, "from the log"));
	cr_assert(strstr(find("fixed3-unimplemented")->remedy, "kernel log alone"));
	cr_assert(strstr(find("facts-unknown")->consequence, "acts only on CPUID"));
	/* Captures: the no-vPMU stories, each remedy its hypervisor's. */
	expect_ids("cap-gce-vm-broadwell-syzbot-6.2.0-rc6-next", IDS("no-vpmu", "facts-unknown"));
	cr_assert(strstr(find("no-vpmu")->remedy, "--performance-monitoring-unit"));
	expect_ids("cap-virtualbox-guest-kvm-paravirt-ubuntu20.04", IDS("no-vpmu", "facts-unknown"));
	cr_assert(strstr(find("no-vpmu")->remedy, "VirtualBox"), "%s", find("no-vpmu")->remedy);
	expect_ids("cap-bare-arl-s-core-ultra9-285K-6.15.11-and-kvm-guest-7.0.0-rc2-guest",
		   IDS("no-vpmu", "facts-unknown"));
	cr_assert(strstr(find("no-vpmu")->remedy, "hybrid"), "%s", find("no-vpmu")->remedy);
	expect_ids("cap-wsl2-hyperv-on-rpl-i9-14900KF", IDS("no-vpmu", "facts-unknown"));
	cr_assert(strstr(find("no-vpmu")->evidence, "Microsoft Hyper-V"));
}

/* A vPMU whose hypervisor rejects what the guest kernel programs. */
Test(msr_rejected, finding_names_the_register_and_the_bits)
{
	static const char *const lines[] = {
		"[    0.000000] DMI: Amazon EC2 m6i.16xlarge/, BIOS 1.0 10/16/2017",
		"[    0.000000] Hypervisor detected: KVM",
		"[    0.352031] smpboot: CPU0: Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz (family: 0x6, model: 0x6a, stepping: 0x6)",
		"[    0.352933] Performance Events: Icelake events, Intel PMU driver.",
		"[    0.353510] ... version:                2",
		"[    0.353510] ... fixed-purpose events:   4",
		"[    0.353510] ... event mask:             0000000f000000ff",
		"[    1.221130] unchecked MSR access error: WRMSR to 0x38f (tried to write 0x0000000f000000ff) at rIP: 0xffffffff8107a1e4 (native_write_msr+0x4/0x20)",
		"[    1.221131] unchecked MSR access error: RDMSR from 0x30c at rIP: 0xffffffff8107a1c0 (native_read_msr+0x0/0x40)"};
	memset(&w.f, 0, sizeof(w.f));
	probe_klog_reset(&w.f.klog);
	w.f.known = w.f.tried = PROBE_KNOWN_KLOG;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		probe_klog_line(&w.f.klog, lines[i], strlen(lines[i]));
	probe_evaluate(&w.f, &w.v);
	n = findings_build(&w.f, &w.v, fs);
	const struct finding *x = find("pmu-msr-rejected");
	cr_assert_not_null(x);
	cr_assert_eq(x->severity, SEVERITY_ERROR);
	cr_assert(strstr(x->evidence, "WRMSR to MSR 0x38f, IA32_PERF_GLOBAL_CTRL"), "%s", x->evidence);
	cr_assert(strstr(x->evidence, "bit 35: fixed counter 3"), "%s", x->evidence);
	cr_assert(strstr(x->evidence, "RDMSR from MSR 0x30c, IA32_FIXED_CTR3"), "%s", x->evidence);
	cr_assert(strstr(x->evidence, "AWS m6i.16xlarge"), "%s", x->evidence);
	cr_assert(strstr(x->consequence, "same class of bug as the m6i"));
	cr_assert(strstr(x->remedy, "provider of AWS m6i.16xlarge"), "%s", x->remedy);
	cr_assert_not_null(find("fixed3-unimplemented"));
	/* The report's order: the hazard first. */
	cr_assert_str_eq(fs[0].id, "fixed3-unimplemented");
}

/* The report quotes the PMU driver's own block, never a user's line
 * (issue: "a kernel-log line written by any user flips the verdict"). */
static struct probe_facts qf;
static struct probe_evidence qe;

static void quoted(const char *world)
{
	char dir[1024];
	cr_assert(probe_join(dir, sizeof(dir), PMUGUARD_FIXTURES, world));
	probe_gather_report(&qf, &qe, dir, NULL);
	for (unsigned i = 0; i < qe.n_klog_lines; i++)
		cr_assert_null(strstr(qe.klog_lines[i], "segfault"), "%s: quoted %s", world,
			       qe.klog_lines[i]);
}

Test(quotes, the_drivers_block_not_the_users_lines)
{
	quoted("m6i-injected-mask");
	cr_assert_eq(qe.n_klog_lines, 8u);
	cr_assert_str_eq(qe.klog_lines[0], "Performance Events: Icelake events, Intel PMU driver.");
	cr_assert_str_eq(qe.klog_lines[7], "... event mask:             0000000f000000ff");
	quoted("m6i-injected-split");
	cr_assert_eq(qe.n_klog_lines, 8u);
	cr_assert_str_eq(qe.klog_lines[7], "... event mask:             0000000f000000ff");
	quoted("m6i-injected-rotated");
	cr_assert_eq(qe.n_klog_lines, 0u, "no block is left to quote");
	load("m6i-injected-mask");
	const struct finding *x = find("fixed3-unimplemented");
	cr_assert(strstr(x->evidence, "0x0000000f000000ff: bit 48 (GLOBAL_CTRL_EN_PERF_METRICS) is clear"),
		  "%s", x->evidence);
	cr_assert(strstr(x->evidence, "1 record of the log with the PMU driver's marks was not read"),
		  "%s", x->evidence);
	load("m6i-injected-split-rotated");
	cr_assert(strstr(find("fixed3-unimplemented")->evidence, "it proves nothing"));
	cr_assert_not_null(find("facts-unknown"));
}

/* QEMU's TCG prints a bare verdict first; a block with lines after it (the
 * vm suite's test PMU module) is the one quoted. */
Test(quotes, a_bare_first_block_gives_way_in_the_quote_too)
{
	char path[] = "/tmp/pmuguard-quotes-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	static const char log[] =
		"[    0.000000] Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) (gcc-12) #1 SMP\n"
		"[    0.270121] Performance Events: PMU not available due to virtualization, using software events only.\n"
		"[    0.271000] signal: max sigframe size: 1776\n"
		"[    1.412300] Performance Events: Icelake events, Intel PMU driver.\n"
		"[    1.412301] ... version:                2\n"
		"[    1.412303] ... event mask:             0000000f000000ff\n"
		"[    1.500000] Performance Events: Icelake events, Intel PMU driver.\n"
		"[    1.500001] ... event mask:             0001000f000000ff\n";
	cr_assert_eq(write(fd, log, sizeof(log) - 1), (ssize_t)(sizeof(log) - 1));
	close(fd);
	probe_gather_report(&qf, &qe, NULL, path);
	unlink(path);
	cr_assert_eq(qe.n_klog_lines, 3u);
	cr_assert_str_eq(qe.klog_lines[0], "Performance Events: Icelake events, Intel PMU driver.");
	cr_assert_str_eq(qe.klog_lines[2], "... event mask:             0000000f000000ff");
	cr_assert_not(qf.klog.virt_unavailable);
	cr_assert_eq(qf.klog.ignored.outside_block, 2u, "the third block: its opener and its line");
}

/* Issue 41, section 2: remedies that fit the machine the log names. */
static void from_log(const char *const *lines, size_t count)
{
	memset(&w.f, 0, sizeof(w.f));
	probe_klog_reset(&w.f.klog);
	w.f.known = w.f.tried = PROBE_KNOWN_KLOG;
	for (size_t i = 0; i < count; i++)
		probe_klog_line(&w.f.klog, lines[i], strlen(lines[i]));
	probe_evaluate(&w.f, &w.v);
	n = findings_build(&w.f, &w.v, fs);
}

/* Firecracker: the pinned capture (a guest's log quoted in a page). */
Test(remedies, firecracker_gets_firecrackers_words_not_qemus)
{
	load("cap-kvm-firecracker-guest-intel-xeon-no-vpmu-5.8.0-quoted");
	const struct finding *x = find("no-vpmu");
	cr_assert_not_null(x);
	cr_assert(strstr(x->remedy, "Firecracker"), "%s", x->remedy);
	cr_assert_null(strstr(x->remedy, "-cpu host"), "%s", x->remedy);
	cr_assert_null(strstr(x->remedy, "enable_pmu"), "%s", x->remedy);
	cr_assert(strstr(x->remedy, "host owner"), "%s", x->remedy);
}

/* KVM's hybrid-host rule only where the hypervisor is KVM. */
Test(remedies, hybrid_rule_is_kvms_only)
{
	static const char *const unnamed[] = {
		"[    0.000000] Linux version 6.6.87.2-microsoft-standard-WSL2 (root@a) (gcc) #1 SMP",
		"[    0.112233] smpboot: CPU0: 13th Gen Intel(R) Core(TM) i9-13900K (family: 0x6, "
		"model: 0xb7, stepping: 0x1)",
		"[    0.112345] Performance Events: unsupported p6 CPU model 183 no PMU driver, "
		"software events only."};
	from_log(unnamed, 3);
	const struct finding *x = find("no-vpmu");
	cr_assert_not_null(x);
	cr_assert(strstr(x->remedy, "If it is KVM"), "%s", x->remedy);
	cr_assert(strstr(x->remedy, "Hyper-V"), "%s", x->remedy);
	cr_assert_null(strstr(x->remedy, "It is not your CPU model"), "%s", x->remedy);
	/* Named KVM: the rule, as before. */
	load("kvm-on-hybrid-host");
	cr_assert(strstr(find("no-vpmu")->remedy, "KVM turns the vPMU off"));
	/* Named Hyper-V (WSL2): not KVM's rule. */
	load("cap-wsl2-hyperv-on-rpl-i9-14900KF");
	cr_assert_null(strstr(find("no-vpmu")->remedy, "4d7404e5ee00"), "%s",
		       find("no-vpmu")->remedy);
}

/* Counters left enabled across a reset or kexec are the old kernel's. */
Test(remedies, counters_left_over_from_a_kexec_are_not_the_owners)
{
	static const char *const lines[] = {
		"[  812.004411] kexec_core: Starting new kernel",
		"[    0.000000] Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) (gcc) #1 "
		"SMP",
		"[    0.000000] Hypervisor detected: KVM",
		"[    0.092011] Performance Events: Fam17h+ core perfctr, Broken BIOS detected, "
		"complain to your hardware vendor.",
		"[    0.092023] [Firmware Bug]: the BIOS has corrupted hw-PMU resources (MSR c0010200 "
		"is 530076)",
		"[    0.092030] AMD PMU driver."};
	from_log(lines, sizeof(lines) / sizeof(lines[0]));
	const struct finding *x = find("counters-in-use");
	cr_assert_not_null(x);
	cr_assert_eq(x->severity, SEVERITY_WARNING);
	cr_assert(strstr(x->evidence, "kexec"), "%s", x->evidence);
	cr_assert_null(strstr(x->remedy, "owner to stop using"), "%s", x->remedy);
	/* Without the kexec line: the owner, as before. */
	from_log(lines + 1, sizeof(lines) / sizeof(lines[0]) - 1);
	x = find("counters-in-use");
	cr_assert_eq(x->severity, SEVERITY_ERROR);
	cr_assert(strstr(x->remedy, "owner to stop using"), "%s", x->remedy);
}

/* Issue 40, item 12: one name for the hypervisor, and no [error] leading
 * on a host where nothing can fault. */
Test(remedies, one_name_and_no_error_where_nothing_can_fault)
{
	load("cap-virtualbox-guest-on-adl-u-i7-1255U-6.6.0-rc7");
	cr_assert_str_eq(w.v.cpu.hv_name, "VirtualBox");
	cr_assert(strstr(find("no-vpmu")->evidence, "Hypervisor: VirtualBox"));
	load("cap-kvm-firecracker-guest-amd-epyc-no-vpmu-6.18.44");
	cr_assert_gt(fs[0].severity, SEVERITY_ERROR, "%s leads as %d", fs[0].id, fs[0].severity);
	load("cap-hyperv-guest-win10-host-ryzen9-3900x-5.13.0-rc5-next");
	cr_assert_gt(fs[0].severity, SEVERITY_ERROR, "%s leads as %d", fs[0].id, fs[0].severity);
}
