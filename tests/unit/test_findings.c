// SPDX-License-Identifier: GPL-2.0-or-later
/* The findings per story: ids, and the words that tell the stories apart. */
#include <string.h>

#include "findings.h"
#include "fixture.h"

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
