// SPDX-License-Identifier: GPL-2.0-or-later
/* The verdict over the snapshot fixtures: the seed's table and beyond. */
#include <dirent.h>
#include <string.h>

#include "findings.h"
#include "fixture.h"

static struct world w;

static void expect(const char *name, enum probe_state state)
{
	world_load(&w, name);
	cr_assert_eq(w.v.state, state, "%s: state %s, expected %s (%s)", name,
		     probe_state_name(w.v.state), probe_state_name(state), w.v.reason);
	cr_assert_eq(w.v.hazard, state == PROBE_HAZARD, "%s: hazard flag", name);
	cr_assert_not_null(w.v.reason);
}

/* The four comparable cells of the seed's table keep today's behaviour. */
Test(seed_table, m6i_16xlarge_is_hazard)
{
	expect("m6i-16xlarge", PROBE_HAZARD);
	cr_assert(w.v.cpu.hypervisor);
	cr_assert_eq(w.v.cpu.fixed_counters, 4);
	cr_assert(w.v.fixed3_advertised);
	cr_assert_not(w.v.perf_metrics_proven);
	cr_assert_not(w.v.topdown_listed);
}

Test(seed_table, icelake_8375c_metal_is_safe)
{
	expect("icx-8375c-metal", PROBE_SAFE);
	cr_assert_not(w.v.cpu.hypervisor);
	cr_assert(w.v.fixed3_advertised);
	cr_assert(w.v.perf_metrics_proven);
	cr_assert(w.v.topdown_listed);
}

Test(seed_table, m7i_24xlarge_two_fixed_is_safe)
{
	expect("m7i-24xlarge", PROBE_SAFE);
	cr_assert_eq(w.v.cpu.fixed_counters, 2);
	cr_assert_not(w.v.fixed3_advertised);
}

Test(seed_table, m5_24xlarge_three_fixed_is_safe)
{
	expect("m5-24xlarge", PROBE_SAFE);
	cr_assert_eq(w.v.cpu.fixed_counters, 3);
	cr_assert_not(w.v.fixed3_advertised);
}

/* Beyond the seed's rule: an older guest kernel lists slots anyway. */
Test(beyond_seed, m6i_old_kernel_listing_slots_is_hazard)
{
	expect("m6i-16xlarge-oldkernel", PROBE_HAZARD);
	cr_assert(w.v.topdown_listed, "fixture must list slots");
	cr_assert(w.f.klog.mask_seen);
	cr_assert_not(w.f.klog.perf_metrics_bit);
}

Test(beyond_seed, v5_guest_advertising_only_through_ecx_bitmap)
{
	expect("v5-guest-ecx-bitmap", PROBE_HAZARD);
	cr_assert_eq(w.v.cpu.pmu_version, 5);
	cr_assert_eq(w.v.cpu.fixed_counters, 3, "EDX[4:0] says 3");
	cr_assert_eq(w.v.cpu.fixed_bitmap & 8, 8, "ECX bit 3 says counter 3");
}

Test(fail_open, no_cpuid_leaf_a_blocks_nothing)
{
	expect("guest-no-leaf-a", PROBE_UNKNOWN);
	cr_assert_not(w.v.cpu.leaf_a_known);
}

Test(fail_open, missing_snapshot_blocks_nothing)
{
	expect("does-not-exist", PROBE_UNKNOWN);
	cr_assert_eq(w.f.known, 0u);
}

Test(fail_open, bare_metal_with_unreadable_sysfs_and_log)
{
	expect("metal-no-sysfs", PROBE_SAFE);
	cr_assert(w.v.fixed3_advertised);
	cr_assert_eq(w.f.known & PROBE_KNOWN_SYSFS, 0u);
}

/* In a guest, sysfs proves nothing either way: CPUID and the log decide. */
Test(fail_open, guest_with_unreadable_sysfs_still_hazard)
{
	expect("m6i-no-sysfs", PROBE_HAZARD);
	cr_assert_eq(w.f.n_pmus, 0u);
}

Test(hybrid, adl_metal_both_core_types_safe)
{
	expect("adl-hybrid-metal", PROBE_SAFE);
	cr_assert(w.v.cpu.hybrid);
	cr_assert_eq(w.f.n_pmus, 2u);
	cr_assert_str_eq(w.f.pmus[0].name, "cpu_core");
	cr_assert_eq(w.f.pmus[0].type, 4u);
	cr_assert_str_eq(w.f.pmus[1].name, "cpu_atom");
	cr_assert_eq(w.f.pmus[1].type, 10u);
	cr_assert_eq(w.f.pmus[0].topdown_listed, 0xff);
}

Test(hybrid, guest_hazard_covers_every_core_type)
{
	expect("hybrid-guest-hazard", PROBE_HAZARD);
	struct guard_policy p;
	guard_policy_init(&p, GUARD_AUTO, &w.f, &w.v);
	cr_assert(p.enforce);
	cr_assert_eq(guard_classify(&p, 4, 0x0400), GUARD_HIT_SLOTS);
	cr_assert_eq(guard_classify(&p, 10, 0x0400), GUARD_HIT_SLOTS);
	cr_assert_eq(guard_classify(&p, 10, 0x8100), GUARD_HIT_METRIC);
	cr_assert_eq(guard_classify(&p, 11, 0x0400), GUARD_HIT_NONE, "not a core PMU");
}

Test(vendors, amd_is_not_intel)
{
	expect("amd-epyc-guest", PROBE_NOT_INTEL);
	struct guard_policy p;
	guard_policy_init(&p, GUARD_ALWAYS, &w.f, &w.v);
	cr_assert_not(p.watch, "even mode=always spares AMD: 0x0400 is an ordinary event");
}

Test(vendors, kvm_guest_on_hybrid_host_has_no_pmu)
{
	expect("kvm-on-hybrid-host", PROBE_NO_PMU);
	cr_assert(w.f.klog.unsupported_model);
	cr_assert(w.f.klog.no_pmu_driver);
	cr_assert_eq(w.v.cpu.model, 0xb7u);
}

Test(vendors, vmware_counters_in_use_logged)
{
	expect("vmware-counters-in-use", PROBE_SAFE);
	cr_assert(w.f.klog.bios_corrupted);
	cr_assert_eq(w.f.klog.n_corrupted_msr, 1u);
	cr_assert_eq(w.f.klog.corrupted_msr[0], 0x38du);
	cr_assert_str_eq(w.v.cpu.hv_vendor, "VMwareVMware");
}

/* Perf metrics proven by the MSR alone also clears a guest. */
Test(rule, msr_bit15_proves_perf_metrics)
{
	world_load(&w, "m6i-16xlarge");
	w.f.known |= PROBE_KNOWN_MSR;
	w.f.perf_capabilities = 1u << 15;
	probe_evaluate(&w.f, &w.v);
	cr_assert_eq(w.v.state, PROBE_SAFE);
	cr_assert(w.v.perf_metrics_proven);
}

Test(rule, guest_log_bit48_proves_perf_metrics)
{
	world_load(&w, "m6i-16xlarge");
	w.f.klog.perf_metrics_bit = true;
	probe_evaluate(&w.f, &w.v);
	cr_assert_eq(w.v.state, PROBE_SAFE);
}

static void from_lines(const char *const lines[], size_t n);

/* A guest whose hypervisor hid CPUID's bit: version 2 with counter 3 is a
 * vPMU, whatever sysfs lists. */
Test(rule, hidden_hypervisor_version_below_5)
{
	world_load(&w, "m6i-16xlarge");
	struct probe_cpuid_leaf *l1 = (struct probe_cpuid_leaf *)probe_leaf(&w.f, 1, 0);
	l1->ecx &= ~(1u << 31);
	probe_evaluate(&w.f, &w.v);
	cr_assert_eq(w.v.state, PROBE_HAZARD, "%s", w.v.reason);
	cr_assert(w.v.cpu.hypervisor);
	cr_assert_not_null(w.v.cpu.guest_because);
	w.f.pmus[0].slots_listed = true;
	probe_evaluate(&w.f, &w.v);
	cr_assert_eq(w.v.state, PROBE_HAZARD, "slots in sysfs prove nothing: %s", w.v.reason);
}

/* Healthy bare metal on old kernels: no bit 48 logged, no slots listed,
 * counter 3 real.  Nothing may be blocked there. */
static void healthy_metal(const char *name)
{
	expect(name, PROBE_SAFE);
	cr_assert_eq(w.v.guard_state, PROBE_SAFE, "%s", name);
	cr_assert_not(w.v.cpu.hypervisor, "%s", name);
	cr_assert(w.v.fixed3_advertised, "%s", name);
	cr_assert_not(w.v.perf_metrics_proven, "%s", name);
	cr_assert_not(w.v.topdown_listed, "%s: the P-core PMU lists no slots/topdown", name);
	struct guard_policy p;
	guard_policy_init(&p, GUARD_AUTO, &w.f, &w.v);
	cr_assert_not(p.enforce, "%s: the guard must not act", name);
	for (unsigned i = 0; i < w.f.n_pmus; i++) {
		cr_assert_eq(guard_classify(&p, w.f.pmus[i].type, 0x0400), GUARD_HIT_NONE, "%s", name);
		cr_assert_eq(guard_classify(&p, w.f.pmus[i].type, 0x8100), GUARD_HIT_NONE, "%s", name);
	}
}

Test(healthy_metal, icelake_sp_on_5_4_with_its_log)
{
	healthy_metal("icx-metal-5.4");
	cr_assert(w.f.klog.pmu_block_anchored);
	cr_assert(w.f.klog.fixed3_logged);
	cr_assert_not(w.f.klog.perf_metrics_bit);
}

Test(healthy_metal, icelake_sp_on_5_4_without_its_log)
{
	healthy_metal("icx-metal-5.4-no-log");
	cr_assert_eq(w.f.known & PROBE_KNOWN_KLOG, 0u);
}

/* cpu_atom's topdown-* are general-purpose events: they neither hide nor
 * decide cpu_core's counter 3. */
Test(healthy_metal, arrow_lake_u_hybrid_on_6_12)
{
	healthy_metal("arl-u-hybrid-metal-6.12");
	cr_assert(w.v.cpu.hybrid);
	cr_assert_str_eq(w.f.pmus[1].name, "cpu_atom");
	cr_assert_neq(w.f.pmus[1].topdown_listed, 0);
	w.f.pmus[1].topdown_listed = 0;
	probe_evaluate(&w.f, &w.v);
	cr_assert_eq(w.v.state, PROBE_SAFE, "%s", w.v.reason);
}

/* What does show a guest whose CPUID hides the bit: the firmware's DMI,
 * the kernel's own words where only the kernel wrote them. */
Test(healthy_metal, a_hidden_hypervisor_is_still_seen)
{
	world_load(&w, "icx-metal-5.4");
	w.f.known |= PROBE_KNOWN_DMI;
	strcpy(w.f.dmi.sys_vendor, "QEMU");
	strcpy(w.f.dmi.product_name, "Standard PC (Q35 + ICH9, 2009)");
	probe_evaluate(&w.f, &w.v);
	cr_assert_eq(w.v.state, PROBE_HAZARD, "%s", w.v.reason);
	cr_assert_str_eq(w.v.cpu.hv_name, "KVM or QEMU");
	/* EC2 bare metal is not a guest. */
	strcpy(w.f.dmi.sys_vendor, "Amazon EC2");
	strcpy(w.f.dmi.product_name, "m6i.metal");
	probe_evaluate(&w.f, &w.v);
	cr_assert_eq(w.v.state, PROBE_SAFE, "%s", w.v.reason);
	/* The kernel's "Hypervisor detected:" before the driver's block. */
	world_load(&w, "icx-metal-5.4");
	strcpy(w.f.klog.boot.hypervisor, "KVM");
	w.f.klog.boot.virtualized = w.f.klog.boot.virt_anchored = true;
	probe_evaluate(&w.f, &w.v);
	cr_assert_eq(w.v.state, PROBE_HAZARD, "%s", w.v.reason);
	/* The same words where a user's record could have put them: not
	 * enough to narrow a machine CPUID calls bare metal. */
	w.f.klog.boot.virt_anchored = false;
	probe_evaluate(&w.f, &w.v);
	cr_assert_eq(w.v.state, PROBE_SAFE, "%s", w.v.reason);
}

/* A user's split record after the block cannot name a hypervisor. */
Test(healthy_metal, a_split_record_does_not_make_a_guest)
{
	static const char *const lines[] = {
		"[    0.000000] Linux version 5.4.0-150-generic (buildd@bos03) (gcc) #167-Ubuntu SMP",
		"[    0.913842] Performance Events: Icelake events, Intel PMU driver.",
		"[    0.913842] ... version:                5",
		"[    0.913842] ... fixed-purpose events:   4",
		"[    0.913842] ... event mask:             0000000f000000ff",
		"[ 4211.338207] evil[23190]: segfault at 0 ip 00007f5c3e2a1002 in x",
		"[ 4211.338207] Hypervisor detected: KVM",
		"[ 4211.338207] DMI: QEMU Standard PC (Q35 + ICH9, 2009), BIOS 1.16.3 04/01/2014",
		"[ 4211.338207] CPU MTRRs all blank - virtualized system."};
	world_load(&w, "icx-metal-5.4-no-log");
	probe_klog_reset(&w.f.klog);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		probe_klog_line(&w.f.klog, lines[i], strlen(lines[i]));
	w.f.known |= PROBE_KNOWN_KLOG;
	cr_assert(w.f.klog.boot.virtualized);
	cr_assert_not(w.f.klog.boot.virt_anchored);
	cr_assert_not(w.f.klog.boot.dmi_anchored);
	probe_evaluate(&w.f, &w.v);
	cr_assert_eq(w.v.state, PROBE_SAFE, "%s", w.v.reason);
	cr_assert_not(w.v.cpu.hypervisor);
}

/* GCE C4's "enhanced" vPMU: version 2, 4 fixed, bit 48.  A guest. */
Test(rule, version_2_with_counter_3_and_bit_48_is_a_guest)
{
	world_load(&w, "cap-gcp-gke-c4-standard-288-gnr-6985P-C-pmu-enhanced");
	cr_assert(w.v.cpu.hypervisor);
	cr_assert_not_null(w.v.cpu.guest_because);
	cr_assert_eq(w.v.state, PROBE_UNKNOWN, "bit 48 of an excerpt proves nothing: %s",
		     w.v.reason);
	/* The same block after its boot's banner: perf metrics proven, safe. */
	static const char *const gce[] = {
		"[    0.000000] Linux version 6.8.0-1019-gke (buildd@lcy02) (gcc) #23-Ubuntu SMP",
		"[    8.008544] Performance Events: Granite Rapids events, full-width counters, "
		"Intel PMU driver.",
		"[    8.009537] ... version:                2",
		"[    8.011535] ... generic registers:      8",
		"[    8.014535] ... fixed-purpose events:   4",
		"[    8.015535] ... event mask:             0001000f000000ff"};
	from_lines(gce, sizeof(gce) / sizeof(gce[0]));
	cr_assert(w.v.cpu.hypervisor);
	cr_assert(w.v.perf_metrics_proven);
	cr_assert_eq(w.v.state, PROBE_SAFE, "%s", w.v.reason);
}

Test(rule, unreadable_log_in_guest_is_not_proof)
{
	world_load(&w, "m6i-16xlarge");
	w.f.known &= ~PROBE_KNOWN_KLOG;
	probe_evaluate(&w.f, &w.v);
	cr_assert_eq(w.v.state, PROBE_HAZARD);
}

/* Every world in tests/snapshots, with its own expected file: a world added
 * there is tested here without touching this file, and a world without
 * expectations fails. */
struct expected {
	char state[32];
	char findings[256];
};

static int expected_line(void *ctx, const char *line, size_t len)
{
	struct expected *e = ctx;
	const char *eq = memchr(line, '=', len);
	if (!eq)
		return 0;
	size_t klen = (size_t)(eq - line), vlen = len - klen - 1;
	const char *v = eq + 1;
	while (vlen && *v == ' ')
		v++, vlen--;
	char *dst = !strncmp(line, "state", 5) ? e->state : !strncmp(line, "findings", 8) ? e->findings : NULL;
	size_t cap = dst == e->state ? sizeof(e->state) : sizeof(e->findings);
	if (dst && vlen < cap) {
		memcpy(dst, v, vlen);
		dst[vlen] = '\0';
	}
	return 0;
}

static unsigned each_world(char names[][96], unsigned max)
{
	DIR *d = opendir(PMUGUARD_FIXTURES);
	cr_assert_not_null(d, "cannot list %s", PMUGUARD_FIXTURES);
	unsigned n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < max)
		if (de->d_type == DT_DIR && de->d_name[0] != '.' && strlen(de->d_name) < 96)
			memcpy(names[n++], de->d_name, strlen(de->d_name) + 1);
	closedir(d);
	cr_assert_gt(n, 10u, "the fixtures folder looks empty");
	return n;
}

Test(fixtures, every_world_meets_its_expected_file)
{
	static char names[128][96];
	unsigned n = each_world(names, 128);
	for (unsigned i = 0; i < n; i++) {
		char path[1024];
		struct expected e = {"", ""};
		cr_assert(probe_join(path, sizeof(path), PMUGUARD_FIXTURES, names[i]) &&
			  strlen(path) + sizeof("/expected") <= sizeof(path));
		strcat(path, "/expected");
		cr_assert_eq(probe_read_lines(path, expected_line, &e), 0,
			     "%s has no expected file (tests/snapshots/generate.sh writes it)",
			     names[i]);
		world_load(&w, names[i]);
		cr_assert_str_eq(probe_state_name(w.v.state), e.state, "%s: state (%s)", names[i],
				 w.v.reason);
		struct finding fs[FINDINGS_MAX];
		unsigned nf = findings_build(&w.f, &w.v, fs);
		char got[256] = "";
		for (unsigned k = 0; k < nf; k++) {
			strcat(got, k ? "," : "");
			strcat(got, fs[k].id);
		}
		cr_assert_str_eq(got, e.findings, "%s: findings", names[i]);
	}
}

/* The shim's lazy gather must reach the same verdict as the full one, on
 * every world and on a snapshot that does not exist. */
Test(rule, lazy_gather_agrees_with_full_gather_on_every_fixture)
{
	static char all[129][96];
	unsigned n = each_world(all, 128);
	snprintf(all[n++], 96, "does-not-exist");
	for (size_t i = 0; i < n; i++) {
		char dir[1024];
		cr_assert(probe_join(dir, sizeof(dir), PMUGUARD_FIXTURES, all[i]));
		struct probe_facts lazy;
		struct probe_verdict lv;
		probe_gather_verdict(&lazy, dir);
		probe_evaluate(&lazy, &lv);
		world_load(&w, all[i]);
		cr_assert_eq(lv.state, w.v.state, "%s: lazy %s, full %s", all[i],
			     probe_state_name(lv.state), probe_state_name(w.v.state));
		cr_assert_eq(lazy.n_pmus, w.f.n_pmus, "%s: core PMU types", all[i]);
		for (unsigned p = 0; p < lazy.n_pmus; p++)
			cr_assert_eq(lazy.pmus[p].type, w.f.pmus[p].type);
	}
}

/* The kernel log alone.  The verdict is the report's; the guard
 * acts on guard_state, unknown there, so it behaves as without the log. */
Test(log_only, m6i_log_alone_is_a_hazard_the_guard_does_not_act_on)
{
	expect("m6i-16xlarge-log-only", PROBE_HAZARD);
	cr_assert_eq(w.v.basis, PROBE_BASIS_KLOG);
	cr_assert_eq(w.v.guard_state, PROBE_UNKNOWN);
	cr_assert_eq(w.v.cpu.basis, PROBE_BASIS_KLOG);
	cr_assert_eq(w.v.cpu.perfmon_basis, PROBE_BASIS_KLOG);
	cr_assert_str_eq(w.v.cpu.vendor, "GenuineIntel");
	cr_assert_eq(w.v.cpu.model, 0x6au);
	cr_assert(w.v.cpu.hypervisor);
	cr_assert_str_eq(w.v.cpu.hv_vendor, "KVMKVMKVM");
	cr_assert_eq(w.v.cpu.fixed_counters, 4u);
	struct guard_policy p;
	guard_policy_init(&p, GUARD_AUTO, &w.f, &w.v);
	cr_assert_not(p.enforce, "a log-only hazard is never enforced");
	guard_policy_init(&p, GUARD_ALWAYS, &w.f, &w.v);
	cr_assert(p.enforce, "always: as without the log (facts unknown, not 'not Intel')");
}

static void from_lines(const char *const lines[], size_t n)
{
	memset(&w.f, 0, sizeof(w.f));
	probe_klog_reset(&w.f.klog);
	w.f.known = w.f.tried = PROBE_KNOWN_KLOG;
	for (size_t i = 0; i < n; i++)
		probe_klog_line(&w.f.klog, lines[i], strlen(lines[i]));
	probe_evaluate(&w.f, &w.v);
}

/* The seed's block alone, no hypervisor line: perfmon version 2 with
 * counter 3 is no Intel part's; a hypervisor built it. */
Test(log_only, seed_block_alone_version_2_with_counter_3_is_a_guest)
{
	static const char *const seed[] = {
		"Performance Events: Icelake events, Intel PMU driver.", "... version: 2",
		"... generic registers: 8", "... fixed-purpose events: 4",
		"... event mask: 0000000f000000ff"};
	from_lines(seed, 5);
	cr_assert_eq(w.v.state, PROBE_HAZARD, "%s", w.v.reason);
	cr_assert(w.v.cpu.hypervisor);
	cr_assert_not_null(w.v.cpu.guest_because);
	cr_assert_eq(w.v.guard_state, PROBE_UNKNOWN);
	/* Version 5 (bare Ice Lake's) with bit 48, after its boot's banner: safe. */
	static const char *const metal[] = {
		"Linux version 6.1.0 (a@b) (gcc) #1 SMP",
		"Performance Events: Icelake events, Intel PMU driver.", "... version: 5",
		"... fixed-purpose events: 4", "... event mask: 0001000f000000ff"};
	from_lines(metal, 5);
	cr_assert_eq(w.v.state, PROBE_SAFE);
	cr_assert(w.v.perf_metrics_proven);
	/* The same block in an excerpt without its boot's start: its facts
	 * describe the machine, its bit 48 proves nothing, and nothing says
	 * guest or bare metal (issue 49): unknown, never safe. */
	from_lines(metal + 1, 4);
	cr_assert_eq(w.v.state, PROBE_UNKNOWN, "%s", w.v.reason);
	cr_assert_not(w.v.perf_metrics_proven);
	cr_assert_eq(w.v.cpu.fixed_counters, 4u);
	/* Three fixed counters in a guest: safe. */
	static const char *const kvm[] = {
		"Hypervisor detected: KVM", "Performance Events: Skylake events, Intel PMU driver.",
		"... version: 2", "... fixed-purpose events: 3", "... event mask: 000000070000000f"};
	from_lines(kvm, 5);
	cr_assert_eq(w.v.state, PROBE_SAFE);
	cr_assert_eq(w.v.basis, PROBE_BASIS_KLOG);
}

Test(log_only, vendor_and_no_driver)
{
	static const char *const amd[] = {"Performance Events: Fam17h+ core perfctr, AMD PMU driver."};
	from_lines(amd, 1);
	cr_assert_eq(w.v.state, PROBE_NOT_INTEL);
	cr_assert_eq(w.v.guard_state, PROBE_UNKNOWN);
	static const char *const p6[] = {
		"smpboot: CPU0: Intel(R) Xeon(R) CPU @ 2.20GHz (family: 0x6, model: 0x4f, stepping: 0x0)",
		"Performance Events: unsupported p6 CPU model 79 no PMU driver, software events only."};
	from_lines(p6, 2);
	cr_assert_eq(w.v.state, PROBE_NO_PMU);
	cr_assert(w.v.cpu.hypervisor, "arch perfmon hidden from a model that has it");
	/* No CPU named at all, but no driver either: nothing to guard. */
	static const char *const virt[] = {
		"Performance Events: PMU not available due to virtualization, using software events only."};
	from_lines(virt, 1);
	cr_assert_eq(w.v.state, PROBE_NO_PMU);
	/* Intel named, no PMU block (a grep): unknown. */
	static const char *const banner[] = {"smpboot: CPU0: Intel(R) Core(TM) (family: 0x6, model: 0xc6, stepping: 0x2)"};
	from_lines(banner, 1);
	cr_assert_eq(w.v.state, PROBE_UNKNOWN);
}

/* Where CPUID decided, the guard acts on the verdict as before; off Intel
 * it is not-intel whatever the report says (no-pmu), so that every mode
 * spares another vendor's event 0x00. */
Test(log_only, guard_state_is_state_wherever_cpuid_decided)
{
	static char all[128][96];
	unsigned n = each_world(all, 128);
	for (unsigned i = 0; i < n; i++) {
		world_load(&w, all[i]);
		if (w.v.basis == PROBE_BASIS_KLOG)
			cr_assert_eq(w.v.guard_state, PROBE_UNKNOWN, "%s", all[i]);
		else if (w.v.cpu.known && !w.v.intel)
			cr_assert_eq(w.v.guard_state, PROBE_NOT_INTEL, "%s", all[i]);
		else
			cr_assert_eq(w.v.guard_state, w.v.state, "%s", all[i]);
		if (w.f.known & PROBE_KNOWN_CPUID)
			cr_assert_neq(w.v.basis, PROBE_BASIS_KLOG, "%s: CPUID read, yet the log decided",
				      all[i]);
	}
}

/* Issue: "a kernel-log line written by any user flips the verdict".  On an
 * m6i, a user's segfault quoted "... event mask: 0001000f000000ff" and the
 * verdict became safe: the guard attached nothing.  Each world
 * (tests/snapshots/m6i-injected-*, generate.sh) holds the user's lines in
 * one of the log's forms; CPUID decides: hazard, and the guard acts on it. */
static void injected(const char *name)
{
	expect(name, PROBE_HAZARD);
	cr_assert_not(w.v.perf_metrics_proven, "%s: a user's line proved perf metrics", name);
	cr_assert_eq(w.v.guard_state, PROBE_HAZARD, "%s", name);
	struct guard_policy p;
	guard_policy_init(&p, GUARD_AUTO, &w.f, &w.v);
	cr_assert(p.enforce, "%s: the guard must act", name);
}

Test(injected_log, a_mask_quoted_after_the_drivers_block)
{
	injected("m6i-injected-mask");
	cr_assert_eq(w.f.klog.mask, 0x0000000f000000ffull, "the driver's mask");
}

Test(injected_log, a_mask_quoted_after_the_block_rotated_out)
{
	injected("m6i-injected-rotated");
	cr_assert_not(w.f.klog.mask_seen);
}

Test(injected_log, lines_split_from_a_record_fake_a_banner_and_a_block)
{
	injected("m6i-injected-split");
	cr_assert_eq(w.f.klog.mask, 0x0000000f000000ffull, "the driver's mask");
}

Test(injected_log, a_faked_block_alone_proves_nothing)
{
	injected("m6i-injected-split-rotated");
}

/* The parser's report of it (kmsg.c: probe_klog_ignored, anchoring). */
Test(injected_log, what_was_ignored_is_counted)
{
	world_load(&w, "m6i-injected-mask");
	cr_assert_eq(w.f.klog.ignored.not_at_start, 1u);
	cr_assert(w.f.klog.pmu_block_anchored);
	world_load(&w, "m6i-injected-split");
	cr_assert_eq(w.f.klog.ignored.banner, 1u);
	cr_assert_geq(w.f.klog.ignored.outside_block, 1u);
	cr_assert(w.f.klog.pmu_block_anchored);
	world_load(&w, "m6i-injected-split-rotated");
	cr_assert(w.f.klog.pmu_driver_seen);
	cr_assert(w.f.klog.perf_metrics_bit);
	cr_assert_not(w.f.klog.pmu_block_anchored);
	/* The same bit 48 in an anchored block proves perf metrics. */
	w.f.klog.pmu_block_anchored = true;
	probe_evaluate(&w.f, &w.v);
	cr_assert_eq(w.v.state, PROBE_SAFE);
}

/* Log forms people paste.  The Firecracker and Ryzen excerpts are verbatim
 * from public logs; the others are built in the kernel's formats. */
Test(log_forms, an_indented_log_is_read)
{
	/* A Firecracker guest's boot log quoted four spaces deep in a
	 * Markdown page (search-index file 24136495036, 2021). */
	static const char *const fc[] = {
		"    [    0.000000] Hypervisor detected: KVM",
		"    [    0.060510] smpboot: CPU0: Intel(R) Xeon(R) Processor @ 1.20GHz (family: 0x6, "
		"model: 0x3e, stepping: 0x4)",
		"    [    0.060510] Performance Events: unsupported p6 CPU model 62 no PMU driver, "
		"software events only.",
		"    [    0.060510] rcu: Hierarchical SRCU implementation."};
	from_lines(fc, sizeof(fc) / sizeof(fc[0]));
	cr_assert_eq(w.v.state, PROBE_NO_PMU, "%s", w.v.reason);
	cr_assert(w.v.cpu.hypervisor);
	cr_assert_eq(probe_klog_ignored_total(&w.f.klog.ignored), 0u);
}

/* A quoted block proves nothing beyond doubt, and dmesg's further lines of
 * a record (blanks deeper than the quote's) start no record. */
Test(log_forms, an_indented_block_is_never_anchored)
{
	static const char *const q[] = {
		"\t[    0.000000] Linux version 6.8.0 (a@b) (gcc) #1 SMP",
		"\t[    0.352933] Performance Events: Icelake events, Intel PMU driver.",
		"\t[    0.353510] ... version:                2",
		"\t[    0.353510] ... fixed-purpose events:   4",
		"\t[    0.353510] ... event mask:             0001000f000000ff",
		"\t[ 4211.338207] evil[23190]: segfault at 0 ip 00007f5c3e2a1002 in x",
		"\t               [    0.000000] Linux version 6.8.0 (a@b) (gcc) #1 SMP"};
	from_lines(q, sizeof(q) / sizeof(q[0]));
	cr_assert(w.f.klog.pmu_driver_seen);
	cr_assert_not(w.f.klog.pmu_block_anchored);
	cr_assert_not(w.v.perf_metrics_proven);
	cr_assert_eq(w.f.klog.ignored.banner, 0u, "the deeper line is no record at all");
	cr_assert_str_eq(w.f.klog.boot.kernel_release, "6.8.0");
	/* Not quoted (the first line at column 0): blanks stay a record's
	 * further line, as before. */
	static const char *const d[] = {
		"[    0.352933] Performance Events: Icelake events, Intel PMU driver.",
		"\t[    0.353510] ... version:                2"};
	from_lines(d, 2);
	cr_assert_eq(w.f.klog.version_logged, -1);
}

/* AMD's own words name the vendor where the line's end was wrapped: the
 * PMU lines of a Ryzen 7 5800H's boot as a quoted-printable mail carries
 * them (linux-kernel, 2025-03-25, <20250324230712.4122-1-spasswolf@web.de>),
 * with util-linux dmesg's "[ts] [    T1]" caller ids. */
Test(log_forms, amd_driver_words_and_caller_ids)
{
	static const char *const amd[] = {
		"[    0.161446] [      T1] Performance Events: Fam17h+ core perfctr, AMD PM=",
		"U driver.",
		"[    0.161446] [      T1] ... version:                0",
		"[    0.161446] [      T1] ... bit width:              48",
		"[    0.161446] [      T1] ... generic registers:      6",
		"[    0.161446] [      T1] ... fixed-purpose events:   0",
		"[    0.161446] [      T1] ... event mask:             000000000000003f"};
	from_lines(amd, sizeof(amd) / sizeof(amd[0]));
	cr_assert_eq(w.v.state, PROBE_NOT_INTEL, "%s", w.v.reason);
	cr_assert_str_eq(w.v.cpu.vendor, "AuthenticAMD");
	cr_assert_eq(w.f.klog.gp_logged, 6);
}

/* Xen's own console lines ("(XEN) " before its printk, interleaved with
 * dom0's in a serial capture) name it. */
Test(log_forms, xen_console_lines_name_xen)
{
	static const char *const xen[] = {
		"(XEN) Xen version 4.17.3 (Debian 4.17.3) debug=n",
		"[    0.412345] Performance Events: unsupported p6 CPU model 85 no PMU driver, "
		"software events only."};
	from_lines(xen, 2);
	cr_assert_eq(w.v.state, PROBE_NO_PMU, "%s", w.v.reason);
	cr_assert(w.v.cpu.hypervisor);
	cr_assert_str_eq(w.v.cpu.hv_name, "Xen");
}

/* Issue 49, item 1: an excerpt of a hazardous log never reads safe.  A
 * line that is not there is unknown, not absent (tests/paste/excerpts.py
 * tries every prefix, suffix and grep of every pinned hazardous log). */
static const char *const m6i_log[] = {
	"[    0.000000] Linux version 5.10.205-195.807.amzn2.x86_64 (mockbuild@ip-10-0-38-21) "
	"(gcc10-gcc (GCC) 10.5.0) #1 SMP",
	"[    0.000000] DMI: Amazon EC2 m6i.16xlarge/, BIOS 1.0 10/16/2017",
	"[    0.000000] Hypervisor detected: KVM",
	"[    0.352933] Performance Events: Icelake events, Intel PMU driver.",
	"[    0.353510] ... version:                2",
	"[    0.353510] ... bit width:              48",
	"[    0.353510] ... generic registers:      8",
	"[    0.353510] ... value mask:             0000ffffffffffff",
	"[    0.353510] ... max period:             00007fffffffffff",
	"[    0.353510] ... fixed-purpose events:   4",
	"[    0.353510] ... event mask:             0000000f000000ff",
};

static void from_lines_without(const char *const lines[], size_t n, const char *drop1,
			       const char *drop2)
{
	const char *kept[32];
	size_t m = 0;
	for (size_t i = 0; i < n && m < 32; i++)
		if (!(drop1 && strstr(lines[i], drop1)) && !(drop2 && strstr(lines[i], drop2)))
			kept[m++] = lines[i];
	from_lines(kept, m);
}

Test(excerpt, a_block_without_its_fixed_count_and_mask_is_unknown)
{
	from_lines(m6i_log, 11);
	cr_assert_eq(w.v.state, PROBE_HAZARD, "%s", w.v.reason);
	/* Before issue 49 the missing count was read as 0 fixed counters: safe. */
	from_lines_without(m6i_log, 11, "fixed-purpose", "event mask");
	cr_assert_eq(w.v.state, PROBE_UNKNOWN, "%s", w.v.reason);
	cr_assert(w.v.cpu.fixed_unknown);
	/* The count without the mask: counter 3 is named, the guest too. */
	from_lines_without(m6i_log, 11, "event mask", NULL);
	cr_assert_eq(w.v.state, PROBE_HAZARD, "%s", w.v.reason);
}

Test(excerpt, the_opener_with_four_fixed_counters_alone_is_no_bare_metal)
{
	static const char *const two[] = {
		"[    0.352933] Performance Events: Icelake events, Intel PMU driver.",
		"[    0.353510] ... fixed-purpose events:   4"};
	from_lines(two, 2);
	cr_assert_neq(w.v.state, PROBE_SAFE, "%s", w.v.reason);
	cr_assert(w.v.cpu.guest_unknown);
}

/* The 6.1 hybrid init's count of 3 over a mask holding counter 3
 * (tests/captures/kvm-guest-on-rpl-p-6.1.0-rc8-kernel-mask): the count
 * alone does not say the kernel never schedules onto counter 3. */
Test(excerpt, a_hybrid_count_of_three_without_its_mask_is_unknown)
{
	static const char *const rpl[] = {
		"[    0.000000] Hypervisor detected: KVM",
		"[    0.202176] Performance Events: Alderlake Hybrid events, full-width counters, "
		"Intel PMU driver.",
		"[    0.202950] core: cpu_core PMU driver: ",
		"[    0.203174] ... version:                2",
		"[    0.203174] ... generic registers:      6",
		"[    0.203486] ... fixed-purpose events:   3"};
	from_lines(rpl, 6);
	cr_assert_eq(w.v.state, PROBE_UNKNOWN, "%s", w.v.reason);
}

/* Bare metal from a log alone only where it shows its boot from the start:
 * the banner, setup_arch()'s command line and the DMI line, after which
 * init_hypervisor_platform() names a hypervisor. */
Test(excerpt, bare_metal_only_where_the_boot_shows_from_its_start)
{
	static const char *const metal[] = {
		"[    0.000000] Linux version 6.8.0 (a@b) (gcc) #1 SMP",
		"[    0.000000] Command line: BOOT_IMAGE=/vmlinuz root=/dev/sda1",
		"[    0.000000] DMI: Dell Inc. PowerEdge R750/0PJ80M, BIOS 1.6.5 12/13/2022",
		"[    0.312844] Performance Events: Icelake events, Intel PMU driver.",
		"[    0.312844] ... version:                5",
		"[    0.312844] ... fixed-purpose events:   4",
		"[    0.312844] ... event mask:             0000000f000000ff"};
	from_lines(metal, 7);
	cr_assert_eq(w.v.state, PROBE_SAFE, "%s", w.v.reason);
	cr_assert(probe_boot_from_start(&w.f.klog.boot));
	for (size_t cut = 0; cut < 3; cut++) {
		const char *kept[7];
		size_t m = 0;
		for (size_t i = 0; i < 7; i++)
			if (i != cut)
				kept[m++] = metal[i];
		from_lines(kept, m);
		cr_assert_eq(w.v.state, PROBE_UNKNOWN, "without line %zu: %s", cut, w.v.reason);
	}
	/* start_kernel()'s later "Kernel command line:" is not setup_arch()'s. */
	static const char *const late[] = {
		"[    0.000000] Linux version 6.8.0 (a@b) (gcc) #1 SMP",
		"[    0.000000] DMI: Dell Inc. PowerEdge R750/0PJ80M, BIOS 1.6.5 12/13/2022",
		"[    0.000000] Kernel command line: BOOT_IMAGE=/vmlinuz root=/dev/sda1",
		"[    0.312844] Performance Events: Icelake events, Intel PMU driver.",
		"[    0.312844] ... version:                5",
		"[    0.312844] ... fixed-purpose events:   4",
		"[    0.312844] ... event mask:             0000000f000000ff"};
	from_lines(late, 7);
	cr_assert_eq(w.v.state, PROBE_UNKNOWN, "%s", w.v.reason);
}

/* The driver's opener cut out of a boot, its "..." lines left: a block
 * after them (a user's record split into lines) is not the driver's and
 * its bit 48 proves nothing (m6i-injected-split without its line 2). */
Test(excerpt, a_block_after_orphaned_lines_is_not_anchored)
{
	static const char *const cut[] = {
		"<5>[    0.000000] Linux version 6.8.0-1021-aws (buildd@lcy02-amd64-049) #23-Ubuntu SMP",
		"<6>[    0.312844] ... version:                2",
		"<6>[    0.312844] ... fixed-purpose events:   4",
		"<6>[    0.312844] ... event mask:             0000000f000000ff",
		"<6>[ 4211.338207] Performance Events: Icelake events, Intel PMU driver.",
		"<6>[ 4211.338207] ... version:                5",
		"<6>[ 4211.338207] ... fixed-purpose events:   4",
		"<6>[ 4211.338207] ... event mask:             0001000f000000ff"};
	from_lines(cut, 8);
	cr_assert(w.f.klog.pmu_driver_seen);
	cr_assert_not(w.f.klog.pmu_block_anchored);
	cr_assert_not(w.v.perf_metrics_proven);
	cr_assert_neq(w.v.state, PROBE_SAFE, "%s", w.v.reason);
	/* With its CPUID the world is the guard's hazard again. */
	world_load(&w, "m6i-injected-split");
	probe_klog_reset(&w.f.klog);
	for (size_t i = 0; i < 8; i++)
		probe_klog_line(&w.f.klog, cut[i], strlen(cut[i]));
	probe_evaluate(&w.f, &w.v);
	cr_assert_eq(w.v.state, PROBE_HAZARD, "%s", w.v.reason);
}

/* A hybrid guest with a vPMU whose CPUID gives 3 fixed counters: its
 * kernel's own mask decides (fixed.c); without it, unknown, not safe. */
Test(excerpt, a_hybrid_guest_without_its_kernels_mask_is_unknown)
{
	world_load(&w, "rpl-guest-mask-refuted");
	cr_assert_eq(w.v.state, PROBE_HAZARD, "%s", w.v.reason);
	w.f.known &= ~(unsigned)PROBE_KNOWN_KLOG;
	probe_evaluate(&w.f, &w.v);
	cr_assert_eq(w.v.state, PROBE_UNKNOWN, "%s", w.v.reason);
	cr_assert_eq(w.v.guard_state, PROBE_UNKNOWN);
	/* Its log read, with a mask that holds no counter 3: safe. */
	world_load(&w, "rpl-guest-mask-refuted");
	w.f.klog.mask = 0x000000070000003full;
	w.f.klog.fixed3_logged = false;
	w.f.klog.perf_metrics_bit = false;
	w.f.klog.boot.n_msr_errors = 0;
	for (unsigned i = 0; i < w.f.klog.n_pmus; i++) {
		w.f.klog.pmus[i].mask = 0x000000070000003full;
		w.f.klog.pmus[i].fixed3_logged = false;
		w.f.klog.pmus[i].perf_metrics_bit = false;
	}
	probe_evaluate(&w.f, &w.v);
	cr_assert_eq(w.v.state, PROBE_SAFE, "%s", w.v.reason);
}

/* Issue 49, item 2: the m6i's block as a browser copies it (U+00A0 in
 * its runs of blanks) and as a serial console captured it (the screen
 * cleared, each line erased and started over): read as the log itself. */
Test(excerpt, the_m6i_block_through_a_browser_and_a_serial_console_is_a_hazard)
{
	static char buf[11][320];
	const char *lines[11];
	for (size_t i = 0; i < 11; i++) {
		const char *p = m6i_log[i];
		size_t n = 0;
		for (; *p && n + 4 < sizeof(buf[i]); p++) {
			if (p[0] == ' ' && p[1] == ' ') { /* "\u00a0" for each blank of a run but its last */
				buf[i][n++] = (char)0xc2;
				buf[i][n++] = (char)0xa0;
			} else {
				buf[i][n++] = *p;
			}
		}
		buf[i][n] = '\0';
		lines[i] = buf[i];
	}
	from_lines(lines, 11);
	cr_assert_eq(w.v.state, PROBE_HAZARD, "U+00A0: %s", w.v.reason);
	for (size_t i = 0; i < 11; i++) {
		snprintf(buf[i], sizeof(buf[i]), "%s\033[2K\r%s\r", i ? "" : "\033[?25l\033[H\033[2J",
			 m6i_log[i]);
		lines[i] = buf[i];
	}
	from_lines(lines, 11);
	cr_assert_eq(w.v.state, PROBE_HAZARD, "serial console: %s", w.v.reason);
	/* "[    0.021415 ]  ...": blanks inside the stamp, two after it. */
	for (size_t i = 0; i < 11; i++) {
		const char *close = strchr(m6i_log[i], ']');
		snprintf(buf[i], sizeof(buf[i]), "%.*s ]  %s", (int)(close - m6i_log[i]), m6i_log[i],
			 close + 2);
		lines[i] = buf[i];
	}
	from_lines(lines, 11);
	cr_assert_eq(w.v.state, PROBE_HAZARD, "padded stamps: %s", w.v.reason);
	cr_assert_eq(w.f.klog.fixed_logged, 4);
}

/* Issue 49, item 3: a KVM guest whose only PMU trace is the rejected write
 * of IA32_PERF_GLOBAL_CTRL (the lines of the published 6.1-rc8 guest,
 * tests/captures/kvm-guest-on-rpl-p-6.1.0-rc8-kernel-mask, grepped): the
 * value is the driver's own intel_ctrl, counter 3 in it, and only a
 * hypervisor refuses the write. */
Test(log_only, a_rejected_global_ctrl_write_alone_is_a_hazard)
{
	static const char *const ctrl[] = {
		"[    0.206962] unchecked MSR access error: WRMSR to 0x38f (tried to write "
		"0x0001000f0000003f) at rIP: 0xffffffff810c30bc (native_write_msr+0xc/0x30)",
		"[    0.207174] Call Trace:",
		"[    0.207174]  <TASK>",
		"[    0.207174]  __intel_pmu_enable_all.constprop.46+0xb5/0x140",
		"[    0.207174]  intel_pmu_enable_all+0x1e/0x30"};
	from_lines(ctrl, 5);
	cr_assert_eq(w.v.state, PROBE_HAZARD, "%s", w.v.reason);
	cr_assert_eq(w.v.fixed_refuted & 8u, 8u);
	cr_assert_eq(w.v.guard_state, PROBE_UNKNOWN, "a log-only verdict is the report's");
	/* Without counter 3's enable (bit 35) in the value, it is no hazard. */
	static const char *const three[] = {
		"[    0.206962] unchecked MSR access error: WRMSR to 0x38f (tried to write "
		"0x000000070000000f) at rIP: 0xffffffff810c30bc (native_write_msr+0xc/0x30)"};
	from_lines(three, 1);
	cr_assert_neq(w.v.state, PROBE_HAZARD, "%s", w.v.reason);
}

/* An Arm64 PMU (verbatim lines of a public arm64 boot log, search-index
 * file 29334785773): not Intel, nothing to guard. */
Test(log_only, an_arm64_pmu_is_not_intel)
{
	static const char *const arm[] = {
		"[    1.925415] Freeing initrd memory: 6468K",
		"[    1.925819] hw perfevents: no interrupt-affinity property for /pmu, guessing.",
		"[    1.930958] hw perfevents: enabled with armv8_pmuv3 PMU driver, 7 counters available",
		"[    1.939422] Initialise system trusted keyrings"};
	from_lines(arm, 4);
	cr_assert_eq(w.v.state, PROBE_NOT_INTEL, "%s", w.v.reason);
}

/* The verdict does not hang on who may read the kernel log (issue 50, item
 * 12): an AMD guest without a vPMU is no-pmu as root, who reads the log's
 * "no PMU driver" line, and as a user, who reads sysfs alone, which lists
 * no core PMU. */
Test(reader, an_amd_guest_without_pmu_is_no_pmu_with_or_without_the_log)
{
	const char *name = "cap-kvm-firecracker-guest-amd-epyc-no-vpmu-6.18.44";
	expect(name, PROBE_NO_PMU);
	cr_assert(w.f.known & PROBE_KNOWN_SYSFS);
	cr_assert_eq(w.f.n_pmus, 0u);
	/* As a user with dmesg_restrict: the log not read. */
	w.f.known &= ~PROBE_KNOWN_KLOG;
	probe_klog_reset(&w.f.klog);
	probe_evaluate(&w.f, &w.v);
	cr_assert_eq(w.v.state, PROBE_NO_PMU, "without the log: %s (%s)",
		     probe_state_name(w.v.state), w.v.reason);
	cr_assert_eq(w.v.guard_state, PROBE_NOT_INTEL, "the guard still spares another vendor");
	/* sysfs not read either: nothing says the driver is missing. */
	w.f.known &= ~PROBE_KNOWN_SYSFS;
	probe_evaluate(&w.f, &w.v);
	cr_assert_eq(w.v.state, PROBE_NOT_INTEL, "%s", w.v.reason);
	/* With a core PMU in sysfs it is an ordinary AMD guest. */
	world_load(&w, "amd-epyc-guest");
	cr_assert_eq(w.v.state, PROBE_NOT_INTEL, "%s", w.v.reason);
}

/* One way to name a hypervisor (issue 50, item 11): the table's name for a
 * signature cpuid_decode.c trimmed ("bhyve bhyve " is kept as "bhyve
 * bhyve"), the signature itself where there is no name, "unknown" where
 * there is neither. */
Test(reader, a_hypervisor_is_named_one_way)
{
	struct probe_cpu c;
	char words[96];
	memset(&c, 0, sizeof(c));
	c.hypervisor = true;
	strcpy(c.hv_vendor, "bhyve bhyve");
	probe_hv_from_signature(&c);
	cr_assert_str_eq(c.hv_name, "bhyve");
	probe_hv_words(c.hv_name, c.hv_vendor, words, sizeof(words));
	cr_assert_str_eq(words, "bhyve");
	probe_hv_words(NULL, "PVM", words, sizeof(words));
	cr_assert_str_eq(words, "unknown, CPUID signature \"PVM\"");
	probe_hv_words("", "", words, sizeof(words));
	cr_assert_str_eq(words, "unknown");
	probe_hv_words(NULL, "PVM", words, 10);
	cr_assert_str_eq(words, "unknown, ", "cut to the buffer, NUL-terminated");
	memset(&c, 0, sizeof(c));
	c.hypervisor = true;
	strcpy(c.hv_vendor, " lrpepyh  vr");
	probe_hv_from_signature(&c);
	cr_assert_str_eq(c.hv_name, "Parallels");
}
