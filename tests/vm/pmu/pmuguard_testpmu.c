// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmuguard_testpmu: a test-only stand-in for an Intel core PMU, for the VM
 * test bed (tests/vm).  QEMU's TCG has no PMU, so the slot for the core PMU
 * (PERF_TYPE_RAW) is free and this module takes it.  It is built with kbuild
 * against the headers of the kernel the VM boots, never installed.
 *
 * It imitates what perf and pmuguard see of arch/x86/events on an AWS m6i
 * guest: a "cpu" PMU of type PERF_TYPE_RAW with the x86 format/ terms, the
 * events/ a kernel before 6.11 lists (slots, topdown-*; commit 556a7c039a52
 * hid them in 6.11) or not, the driver's boot block in the kernel log, and
 * event->hw.config filled as x86_pmu_hw_config() does (raw config; generic
 * hardware ids through the Ice Lake event map).  In a faulty world it
 * panics where the m6i dies: when an event whose encoding lands on fixed
 * counter 3 (0x0400, TOPDOWN.SLOTS) or on the metric pseudo-counters
 * (0x8000..0x8700) is scheduled, i.e. in pmu->add (the seed's oops is
 * x86_pmu_enable <- __perf_event_enable), or already at open with
 * fault_at=open.
 *
 * With etd=1 it is an E-core PMU of the Skymont/Darkmont generation instead
 * (Clearwater Forest, family 6 model 0xDD): fixed counters 0-2 and 4-6
 * (bitmap 0x77), where TOPDOWN_BAD_SPECULATION.ALL (0x0073),
 * TOPDOWN_FE_BOUND.ALL (0x019c) and TOPDOWN_RETIRING.ALL (0x02c2) land on
 * counters 4, 5 and 6 (intel_skt_event_constraints, arch/x86/events/intel/
 * core.c), and a faulty world panics when one of them is scheduled.
 *
 * Parameters (see tests/vm/README.md):
 *   faulty=1        the counters in missing are advertised but not implemented
 *   missing=0x8     the fixed counters that are not (bit n: counter n; m6i: 3)
 *   etd=0           the E-core PMU (counters 4-6, the Darkmont boot block)
 *   td_events=1     list slots and topdown-* in events/ (pre-6.11)
 *   hybrid=0        register cpu_core (type 4) and cpu_atom (dynamic type)
 *   fault_at=add    "add" (scheduling) or "open" (event_init); writable
 *   deterministic=0 counts are a constant per encoding instead of time-based
 *   atom_cpus=1     the cpus file of cpu_atom (hybrid)
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/string.h>

static bool faulty = true;
module_param(faulty, bool, 0444);
MODULE_PARM_DESC(faulty, "fixed counter 3 advertised but not implemented: panic when it is used");
static uint missing = 0x8;
module_param(missing, uint, 0444);
MODULE_PARM_DESC(missing, "the fixed counters advertised but not implemented (bit n: counter n)");
static bool etd;
module_param(etd, bool, 0444);
MODULE_PARM_DESC(etd, "an E-core PMU (Darkmont): fixed counters 4-6 take the topdown events");
static bool td_events = true;
module_param(td_events, bool, 0444);
MODULE_PARM_DESC(td_events, "list slots and topdown-* in events/ (kernels before 6.11)");
static bool hybrid;
module_param(hybrid, bool, 0444);
MODULE_PARM_DESC(hybrid, "register cpu_core (PERF_TYPE_RAW) and cpu_atom (dynamic type)");
static char fault_at[8] = "add";
module_param_string(fault_at, fault_at, sizeof(fault_at), 0644);
MODULE_PARM_DESC(fault_at, "add: panic when the event is scheduled; open: already at event_init");
static bool deterministic;
module_param(deterministic, bool, 0644);
MODULE_PARM_DESC(deterministic, "count a constant per encoding (for comparing runs)");
static char atom_cpus[16] = "1";
module_param_string(atom_cpus, atom_cpus, sizeof(atom_cpus), 0444);
MODULE_PARM_DESC(atom_cpus, "the cpus file of cpu_atom");

/* X86_RAW_EVENT_MASK (arch/x86/include/asm/perf_event.h): event, umask,
 * edge, pc, any, inv, cmask, in_tx, in_tx_cp. */
#define TP_RAW_EVENT_MASK 0x3ffbc0ffffULL

/* The generic ids as Ice Lake maps them (arch/x86/events/intel/
 * core.c: intel_perfmon_event_map; ref-cycles is the 0x0300 pseudo event). */
static const u64 icl_event_map[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES] = 0x003c,
	[PERF_COUNT_HW_INSTRUCTIONS] = 0x00c0,
	[PERF_COUNT_HW_CACHE_REFERENCES] = 0x4f2e,
	[PERF_COUNT_HW_CACHE_MISSES] = 0x412e,
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = 0x00c4,
	[PERF_COUNT_HW_BRANCH_MISSES] = 0x00c5,
	[PERF_COUNT_HW_BUS_CYCLES] = 0x013c,
	[PERF_COUNT_HW_REF_CPU_CYCLES] = 0x0300,
};

/* The bits a fixed-counter constraint matches besides event and umask
 * (FIXED_EVENT_FLAGS: edge, inv, cmask, in_tx, in_tx_cp): with any of
 * them set, the event runs on a general-purpose counter. */
#define TP_FIXED_FLAGS ((1ULL << 18) | (1ULL << 23) | (0xffULL << 24) | (3ULL << 32))

/* The fixed counter an encoding lands on, or -1.  The counter-3 class is
 * event code 0x00 with umask 0x04 (slots) or 0x80..0x87 (the metrics);
 * metric constraints match on event|umask only
 * (intel_pmu_check_event_constraints keeps them whenever fixed counter 3
 * is in intel_ctrl), so modifiers do not matter there.  On the E-core
 * table, the topdown events and the pseudo-encodings 0x0500-0x0700 of
 * counters 4-6, without modifiers. */
static int tp_counter(u64 config)
{
	u64 code = config & 0xffff;

	if (code == 0x0400 || (code >= 0x8000 && code <= 0x8700 && !(code & 0xff)))
		return 3;
	if (!etd || (config & TP_FIXED_FLAGS))
		return -1;
	switch (code) {
	case 0x0073: case 0x0500: return 4;
	case 0x019c: case 0x0600: return 5;
	case 0x02c2: case 0x0700: return 6;
	default: return -1;
	}
}

static bool tp_hazard(u64 config)
{
	int n = tp_counter(config);

	return n >= 0 && (missing >> n) & 1;
}

/* A plausible rate per nanosecond on the CPU, so perf prints numbers. */
static u64 tp_rate(u64 config)
{
	switch (config & 0xffff) {
	case 0x003c: return 3; /* cycles at 3 GHz */
	case 0x0300: return 2; /* ref-cycles */
	case 0x00c0: return 2; /* instructions */
	case 0x0400: return 12; /* slots: 4 wide */
	case 0x0073: case 0x019c: case 0x02c2: return 4; /* topdown slots of 8-wide E-cores */
	default: return 1;
	}
}

static void tp_fault(struct perf_event *event, const char *where)
{
	/* The m6i guest oopses in the bare rdpmc/wrmsr of fixed counter 3 and
	 * the instance is gone; a panic here gives the same end, with the call
	 * trace of whoever scheduled the event. */
	panic("pmuguard_testpmu: fixed counter %d is not implemented on this guest: "
	      "%s of %s event type=%u config=%#llx (hw config %#llx) by %s[%d]\n",
	      tp_counter(event->hw.config), where, event->pmu->name, event->attr.type,
	      (unsigned long long)event->attr.config,
	      (unsigned long long)event->hw.config, current->comm, task_pid_nr(current));
}

static bool tp_fault_at(const char *where)
{
	return faulty && sysfs_streq(fault_at, where);
}

static int tp_event_init(struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;
	u64 config;

	/* kernel/events/core.c perf_init_event() (6.1): PERF_TYPE_HARDWARE and
	 * HW_CACHE are first offered to the PMU of PERF_TYPE_RAW (or the
	 * extended type in config's top half, with the config cut to its low
	 * 32 bits); -ENOENT sends them on to the other PMUs. */
	switch (attr->type) {
	case PERF_TYPE_HARDWARE:
		if (attr->config >= PERF_COUNT_HW_MAX || !icl_event_map[attr->config])
			return -ENOENT;
		config = icl_event_map[attr->config];
		break;
	case PERF_TYPE_HW_CACHE:
		return -ENOENT;
	default:
		if (attr->type != event->pmu->type)
			return -ENOENT;
		config = attr->config & TP_RAW_EVENT_MASK;
		break;
	}
	if (event->cpu >= 0 && event->cpu >= nr_cpu_ids)
		return -EINVAL;
	event->hw.config = config;
	event->hw.idx = -1;
	if (tp_hazard(config) && tp_fault_at("open"))
		tp_fault(event, "open");
	return 0;
}

static void tp_update(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 now, prev;

	if (deterministic)
		return;
	now = local_clock();
	prev = local64_xchg(&hwc->prev_count, now);
	local64_add((now - prev) * tp_rate(hwc->config), &event->count);
}

static void tp_start(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	hwc->state = 0;
	if (deterministic) {
		/* One constant per encoding, so two runs print the same. */
		local64_set(&event->count, 1000000 + (hwc->config & 0xffff));
		return;
	}
	local64_set(&hwc->prev_count, local_clock());
}

static void tp_stop(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	if (!(hwc->state & PERF_HES_STOPPED)) {
		tp_update(event);
		hwc->state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
	}
}

static int tp_add(struct perf_event *event, int flags)
{
	if (tp_hazard(event->hw.config) && tp_fault_at("add"))
		tp_fault(event, "pmu->add (scheduling)");
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		tp_start(event, PERF_EF_RELOAD);
	perf_event_update_userpage(event);
	return 0;
}

static void tp_del(struct perf_event *event, int flags)
{
	tp_stop(event, PERF_EF_UPDATE);
	perf_event_update_userpage(event);
}

static void tp_read(struct perf_event *event)
{
	if (!(event->hw.state & PERF_HES_STOPPED))
		tp_update(event);
}

/* format/: arch/x86/events/intel/core.c (intel_arch3_formats_attr and the
 * extra ones Ice Lake adds). */
PMU_FORMAT_ATTR(event, "config:0-7");
PMU_FORMAT_ATTR(umask, "config:8-15");
PMU_FORMAT_ATTR(edge, "config:18");
PMU_FORMAT_ATTR(pc, "config:19");
PMU_FORMAT_ATTR(any, "config:21");
PMU_FORMAT_ATTR(inv, "config:23");
PMU_FORMAT_ATTR(cmask, "config:24-31");
PMU_FORMAT_ATTR(in_tx, "config:32");
PMU_FORMAT_ATTR(in_tx_cp, "config:33");
PMU_FORMAT_ATTR(offcore_rsp, "config1:0-63");
PMU_FORMAT_ATTR(ldlat, "config1:0-15");
PMU_FORMAT_ATTR(frontend, "config1:0-23");

static struct attribute *tp_format_attrs[] = {
	&format_attr_event.attr, &format_attr_umask.attr, &format_attr_edge.attr,
	&format_attr_pc.attr, &format_attr_any.attr, &format_attr_inv.attr,
	&format_attr_cmask.attr, &format_attr_in_tx.attr, &format_attr_in_tx_cp.attr,
	&format_attr_offcore_rsp.attr, &format_attr_ldlat.attr, &format_attr_frontend.attr,
	NULL,
};

static const struct attribute_group tp_format_group = {
	.name = "format",
	.attrs = tp_format_attrs,
};

/* events/: the generic ones x86 lists, plus what a kernel before 6.11 lists
 * on every Ice Lake-or-later PMU, perf metrics or not (td_is_visible came
 * with 556a7c039a52). */
PMU_EVENT_ATTR_STRING(cpu-cycles, ev_cycles, "event=0x3c");
PMU_EVENT_ATTR_STRING(instructions, ev_instructions, "event=0xc0");
PMU_EVENT_ATTR_STRING(ref-cycles, ev_ref_cycles, "event=0x00,umask=0x03");
PMU_EVENT_ATTR_STRING(branch-instructions, ev_branches, "event=0xc4");
PMU_EVENT_ATTR_STRING(branch-misses, ev_branch_misses, "event=0xc5");
PMU_EVENT_ATTR_STRING(slots, ev_slots, "event=0x00,umask=0x4");
PMU_EVENT_ATTR_STRING(topdown-retiring, ev_td_retiring, "event=0x00,umask=0x80");
PMU_EVENT_ATTR_STRING(topdown-bad-spec, ev_td_bad_spec, "event=0x00,umask=0x81");
PMU_EVENT_ATTR_STRING(topdown-fe-bound, ev_td_fe_bound, "event=0x00,umask=0x82");
PMU_EVENT_ATTR_STRING(topdown-be-bound, ev_td_be_bound, "event=0x00,umask=0x83");

static struct attribute *tp_events_attrs[] = {
	&ev_cycles.attr.attr, &ev_instructions.attr.attr, &ev_ref_cycles.attr.attr,
	&ev_branches.attr.attr, &ev_branch_misses.attr.attr,
	&ev_slots.attr.attr, &ev_td_retiring.attr.attr, &ev_td_bad_spec.attr.attr,
	&ev_td_fe_bound.attr.attr, &ev_td_be_bound.attr.attr,
	NULL,
};

static umode_t tp_events_visible(struct kobject *kobj, struct attribute *attr, int i)
{
	/* The topdown ones follow the generic five. */
	return i < 5 || td_events ? attr->mode : 0;
}

static const struct attribute_group tp_events_group = {
	.name = "events",
	.attrs = tp_events_attrs,
	.is_visible = tp_events_visible,
};

static ssize_t pmu_name_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", hybrid ? "alderlake_hybrid" : etd ? "darkmont" : "icelake");
}
static DEVICE_ATTR_RO(pmu_name);

static struct attribute *tp_caps_attrs[] = { &dev_attr_pmu_name.attr, NULL };
static const struct attribute_group tp_caps_group = { .name = "caps", .attrs = tp_caps_attrs };

static struct pmu tp_pmu[2];

/* cpus: only hybrid PMUs have it (x86 intel_hybrid_get_attr_cpus). */
static ssize_t cpus_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct pmu *pmu = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%s\n", pmu == &tp_pmu[1] ? atom_cpus : "0");
}
static DEVICE_ATTR_RO(cpus);

static struct attribute *tp_hybrid_attrs[] = { &dev_attr_cpus.attr, NULL };
static const struct attribute_group tp_hybrid_group = { .attrs = tp_hybrid_attrs };

static const struct attribute_group *tp_groups[] = {
	&tp_format_group, &tp_events_group, &tp_caps_group, NULL,
};
static const struct attribute_group *tp_hybrid_groups[] = {
	&tp_format_group, &tp_events_group, &tp_caps_group, &tp_hybrid_group, NULL,
};

static void tp_setup(struct pmu *pmu)
{
	*pmu = (struct pmu){
		.module = THIS_MODULE,
		.task_ctx_nr = perf_hw_context,
		.attr_groups = hybrid ? tp_hybrid_groups : tp_groups,
		.event_init = tp_event_init,
		.add = tp_add,
		.del = tp_del,
		.start = tp_start,
		.stop = tp_stop,
		.read = tp_read,
	};
	/* Extended hardware types came with hybrid support (6.0); before it a
	 * hybrid world cannot be built, and none of the matrix's older rows
	 * asks for one. */
#ifdef PERF_PMU_CAP_EXTENDED_HW_TYPE
	if (hybrid)
		pmu->capabilities = PERF_PMU_CAP_EXTENDED_HW_TYPE;
#endif
	/* Gone in 6.10 (every PMU may be heterogeneous since). */
#ifdef PERF_PMU_CAP_HETEROGENEOUS_CPUS
	if (hybrid)
		pmu->capabilities |= PERF_PMU_CAP_HETEROGENEOUS_CPUS;
#endif
}

/* The block init_hw_perf_events() (arch/x86/events/core.c) prints at boot,
 * with the m6i's numbers; bit 48 of the mask says perf metrics. */
static void tp_boot_block(void)
{
	u64 mask = 0x0000000f000000ffULL | (faulty ? 0 : 1ULL << 48);

	if (etd) {
		/* The 6.11+ layout (x86_pmu_show_pmu_cap()), with a Clearwater
		 * Forest's counters: the bitmap is CPUID.0AH ECX. */
		pr_info("Performance Events: XSAVE Architectural LBR, PEBS fmt6+-baseline,  "
			"AnyThread deprecated, Darkmont events, 32-deep LBR, full-width counters, "
			"Intel PMU driver.\n");
		pr_info("... version:                   5\n");
		pr_info("... bit width:                 48\n");
		pr_info("... generic counters:          8\n");
		pr_info("... generic bitmap:            00000000000000ff\n");
		pr_info("... fixed-purpose counters:    6\n");
		pr_info("... fixed-purpose bitmap:      0000000000000077\n");
		pr_info("... value mask:                0000ffffffffffff\n");
		pr_info("... max period:                00007fffffffffff\n");
		pr_info("... global_ctrl mask:          00000077000000ff\n");
		return;
	}

	pr_info("Performance Events: %s events, Intel PMU driver.\n",
		hybrid ? "Alderlake Hybrid" : "Icelake");
	pr_info("... version:                %d\n", faulty ? 2 : 5);
	pr_info("... bit width:              48\n");
	pr_info("... generic registers:      8\n");
	pr_info("... value mask:             0000ffffffffffff\n");
	pr_info("... max period:             00007fffffffffff\n");
	pr_info("... fixed-purpose events:   4\n");
	pr_info("... event mask:             %016llx\n", (unsigned long long)mask);
}

static int __init tp_init(void)
{
	int ret;

	tp_setup(&tp_pmu[0]);
	ret = perf_pmu_register(&tp_pmu[0], hybrid ? "cpu_core" : "cpu", PERF_TYPE_RAW);
	if (ret) {
		pr_err("pmuguard_testpmu: the core PMU slot is taken (%d): not a PMU-less VM?\n", ret);
		return ret;
	}
	if (hybrid) {
		tp_setup(&tp_pmu[1]);
		ret = perf_pmu_register(&tp_pmu[1], "cpu_atom", -1);
		if (ret) {
			perf_pmu_unregister(&tp_pmu[0]);
			return ret;
		}
	}
	tp_boot_block();
	return 0;
}

static void __exit tp_exit(void)
{
	if (hybrid)
		perf_pmu_unregister(&tp_pmu[1]);
	perf_pmu_unregister(&tp_pmu[0]);
}

module_init(tp_init);
module_exit(tp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pmuguard tests: a core PMU that dies like the AWS m6i's fixed counter 3 (or 4-6)");
