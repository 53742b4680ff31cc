// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel-enforced guard: refuse, inside the kernel, every perf event
 * whose encoding lands on a fixed counter in the hazard set of its core
 * PMU (counters 3-6, the rodata's per type), whoever opens it
 * (static, Go, containerised, unprivileged, racing, inherited at fork).
 *
 * Where.  perf_event_alloc() (kernel/events/core.c) calls
 * security_perf_event_alloc(event) at its end: after perf_init_event() has
 * resolved the PMU and run its event_init, before the event is installed
 * or enabled; a non-zero return fails perf_event_open() (or the fork that
 * inherits the event) with that error.  The hook exists since 5.7
 * (LSM_HOOK(int, 0, perf_event_alloc, struct perf_event *event) in
 * include/linux/lsm_hook_defs.h).  The event there is the kernel's own copy
 * of the attr: no check-to-use window.  Do not use security_perf_event_open:
 * it lost its attr argument in 2024 ("perf: Remove unnecessary parameter of
 * security check"; 6.18's BTF shows security_perf_event_open(int type)).
 *
 * What is judged.  event->pmu->type is the PMU that was resolved, whatever
 * type the caller asked for (a PERF_TYPE_HARDWARE id, a hybrid extended
 * type, a raw event).  On x86, x86_pmu_hw_config() (arch/x86/events/core.c)
 * has filled event->hw.config with the encoding the driver will program:
 * the raw config & X86_RAW_EVENT_MASK when attr.type is the PMU's own type,
 * or x86_pmu.event_map(id) for generic ids (x86_setup_perfctr); its bits
 * 0-15 are event code and umask.  intel_pmu_hw_config()
 * (arch/x86/events/intel/core.c) then places 0x0400 and 0x8000..0x8700 on
 * fixed counter 3 and the metric pseudo-counters, and the E-core tables
 * 0x0073, 0x019c and 0x02c2 on counters 4-6.  As a second net, the
 * attr's own config is judged too when attr.type is a core type (a driver
 * that left hw.config empty must not let the class through).  The rule
 * itself is classify_rule.h, shared with the shim.
 *
 * Types.  Only the four structs and fields below (pmu and hw_perf_event in
 * enforce_kernel.bpf.h, shared with the iterator) are read, declared by
 * hand with preserve_access_index: libbpf relocates each access against the
 * running kernel's BTF (/sys/kernel/btf/vmlinux) at load time (CO-RE), so
 * the object does not depend on the build machine's kernel, and hw.config's
 * place inside hw_perf_event's anonymous unions is found on every version.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "enforce_abi.h"
#include "enforce_kernel.bpf.h"

#define ENOENT 2 /* include/uapi/asm-generic/errno-base.h */
#define E2BIG 7

struct perf_event_attr {
	__u32 type;
	__u64 config;
	__u64 config1; /* in an anonymous union with bp_addr: CO-RE finds it */
	__u64 config2;
} __attribute__((preserve_access_index));

struct perf_event {
	struct pmu *pmu;
	struct perf_event *parent;
	struct hw_perf_event hw;
	struct perf_event_attr attr;
} __attribute__((preserve_access_index));

/* Set by the loader before load (probe/enforce/enforce.c), frozen by the kernel. */
const volatile struct pmug_enf_config cfg = {0};

struct pmug_enf_totals totals = {0};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PMUG_ENF_COUNTS_MAX);
	__type(key, struct pmug_enf_key);
	__type(value, struct pmug_enf_count);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PMUG_ENF_RINGBUF_BYTES);
} events SEC(".maps");

static __always_inline void count(const struct pmug_enf_key *k, __u32 tgid)
{
	struct pmug_enf_count *c = bpf_map_lookup_elem(&counts, k);
	if (!c) {
		struct pmug_enf_count zero = {0};
		/* -EEXIST: another CPU inserted it meanwhile; -E2BIG: full. */
		if (bpf_map_update_elem(&counts, k, &zero, BPF_NOEXIST) == -E2BIG)
			__sync_fetch_and_add(&totals.lost_keys, 1);
		c = bpf_map_lookup_elem(&counts, k);
		if (!c)
			return;
	}
	__sync_fetch_and_add(&c->calls, 1);
	c->last_ns = bpf_ktime_get_ns();
	c->last_pid = tgid;
	bpf_get_current_comm(c->last_comm, sizeof(c->last_comm));
}

/* Every call judged in the class: a record for follow, which reports the
 * first of each (process, encoding) as the shim does (probe/guard/once.c):
 * "once" is decided in one place, not here too.  A full buffer (nobody
 * following, or a burst) drops the record and counts it. */
static __always_inline void report(struct perf_event *event, const struct pmug_enf_key *k,
				   enum guard_hit hit, __u64 id)
{
	struct pmug_enf_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&totals.lost_events, 1);
		return;
	}
	e->ns = bpf_ktime_get_ns();
	e->cgroup_id = bpf_get_current_cgroup_id();
	e->hw_config = event->hw.config;
	e->attr_config = event->attr.config;
	e->tgid = (__u32)(id >> 32);
	e->pid = (__u32)id;
	e->uid = k->uid;
	e->pmu_type = k->pmu_type;
	e->attr_type = event->attr.type;
	e->hit = hit;
	e->denied = k->denied;
	e->inherited = event->parent != 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
}

static __always_inline int judge(struct perf_event *event)
{
	struct pmu *pmu = event->pmu;
	if (!pmu)
		return 0;
	unsigned type = (unsigned)pmu->type;
	/* hw.config on the resolved PMU, then the attr as the caller gave it
	 * (the kernel's copy), for a driver that did not fill hw.config: the
	 * decision of enforce_abi.h, which also judges the events that existed
	 * before the start. */
	unsigned long long config = 0;
	enum guard_hit hit = pmug_enf_classify(&cfg, type, event->hw.config, event->attr.type,
					       event->attr.config, &config);
	if (hit == GUARD_HIT_NONE) {
		/* The self-test's canary (enforce_abi.h): this program's nonce,
		 * from the process that opens it.  One compare for any other
		 * event. */
		if (event->attr.type != PMUG_ENF_CANARY_TYPE)
			return 0;
		if (event->attr.config != PMUG_ENF_CANARY_CONFIG ||
		    event->attr.config1 != cfg.canary)
			return 0;
		__sync_fetch_and_add(&totals.canaries, 1);
		totals.canary_ns = bpf_ktime_get_ns();
		return -PMUG_ENF_CANARY_ERRNO;
	}

	int deny = cfg.enforce != 0;
	__sync_fetch_and_add(deny ? &totals.denied : &totals.audited, 1);
	__u64 id = bpf_get_current_pid_tgid();
	struct pmug_enf_key k = {.uid = (__u32)bpf_get_current_uid_gid(),
				 .pmu_type = type,
				 .code = (__u32)(config & 0xffff),
				 .denied = (__u32)deny};
	count(&k, (__u32)(id >> 32));
	report(event, &k, hit, id);
	return deny ? -ENOENT : 0;
}

/* Where BPF LSM is active (bpf in /sys/kernel/security/lsm). */
SEC("lsm/perf_event_alloc")
int BPF_PROG(pmug_lsm, struct perf_event *event)
{
	return judge(event);
}

/* Elsewhere: modify the return of security_perf_event_alloc() through a
 * BPF trampoline (allowed for security_* functions: check_attach_modify_return
 * in kernel/bpf/verifier.c).  A non-zero return skips the function and is
 * its result; ret is what an earlier fmod_ret program decided. */
SEC("fmod_ret/security_perf_event_alloc")
int BPF_PROG(pmug_fmod_ret, struct perf_event *event, int ret)
{
	if (ret)
		return ret;
	return judge(event);
}

char LICENSE[] SEC("license") = "GPL";
