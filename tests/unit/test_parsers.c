// SPDX-License-Identifier: GPL-2.0-or-later
/* The text parsers: cpuid -r lines and kernel log lines, good and bad. */
#include <errno.h>
#include <string.h>

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
	const char *two[] = {"Performance Events: Icelake events, Intel PMU driver.",
			     "... event mask:             0001000f000000ff",
			     "Performance Events: Icelake events, Intel PMU driver.",
			     "... event mask:             0000000f000000ff"};
	klog(&k, two, 4);
	cr_assert_not(k.perf_metrics_bit);
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
