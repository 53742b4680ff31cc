/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the loader (probe/enforce/enforce.c) and the kernel program
 * (probe/enforce/enforce.bpf.c) share: the read-only configuration the loader sets
 * before load, the counters, the records of the ring buffer and of the
 * task_file iterator (enforce_iter.bpf.c), and the decision.  Plain C
 * of fixed-width integers, no includes: it is compiled both by clang
 * -target bpf and by the host compiler, so every field has an explicit
 * size and the layout is the same on both sides (checked by
 * _Static_assert below and by tests/unit/test_enforce.c).
 */
#ifndef PMUGUARD_ENFORCE_ABI_H
#define PMUGUARD_ENFORCE_ABI_H

#include "classify_rule.h"

/* "PMUG" and the layout version: status refuses to read a program whose
 * rodata does not carry them (an older or foreign object). */
#define PMUG_ENF_MAGIC 0x474d5550u
#define PMUG_ENF_VERSION 5u

/* The start's reason sentence and where its facts came from, kept in the
 * rodata so that what the program reports says what it was started on. */
#define PMUG_ENF_REASON_LEN 512
#define PMUG_ENF_FACTS_FROM_LEN 256

/* The self-test (enforce.c, enf_verify): proof that the attached program
 * runs, not only that it loaded.  A program attached where nothing calls
 * it (lsm/ while bpf is not an active LSM: Ubuntu's default lsm=) loads,
 * attaches and never judges a call.  So the loader opens a canary: a
 * software event (PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY: it never
 * reaches a PMU counter) whose config1 carries the program's own nonce
 * (cfg.canary, random at each load; perf ignores config1 for software
 * events; config2 carries the opener's pid, for a reader of the events:
 * not judged).  The program refuses exactly that event, with an errno no
 * other path of perf_event_open returns, and counts it (totals.canaries).
 * What verifies is the opener's own errno: another process opening the
 * canary cannot make our open fail, and another program (an earlier
 * start being replaced) lets it pass, since its nonce differs.  The
 * opener's tgid is not compared: in a container (a node agent's pod) the
 * pid the opener knows is its pid namespace's, not the one the program
 * sees (the agent's self-test failed in a pod of its own). */
/* Left as written: clang-format 14 splits the last #define (its long comment). */
/* clang-format off */
#define PMUG_ENF_CANARY_TYPE 1u    /* PERF_TYPE_SOFTWARE */
#define PMUG_ENF_CANARY_CONFIG 9u  /* PERF_COUNT_SW_DUMMY */
#define PMUG_ENF_CANARY_ERRNO 57   /* EBADSLT on every Linux architecture but alpha, mips, parisc, sparc */
/* clang-format on */

enum pmug_enf_attach {
	PMUG_ENF_ATTACH_NONE = 0,
	PMUG_ENF_ATTACH_LSM = 1,      /* SEC("lsm/perf_event_alloc") */
	PMUG_ENF_ATTACH_FMOD_RET = 2, /* SEC("fmod_ret/security_perf_event_alloc") */
};

/* The program's .rodata: const volatile, set before load, frozen after. */
struct pmug_enf_config {
	unsigned int magic;   /* PMUG_ENF_MAGIC */
	unsigned int version; /* PMUG_ENF_VERSION */
	unsigned int enforce; /* 1: deny with -ENOENT; 0: audit (count, allow) */
	unsigned int attach;  /* enum pmug_enf_attach: how this copy was attached */
	unsigned int mode;    /* enum guard_mode the policy was resolved to */
	unsigned int state;   /* enum probe_state of the facts */
	unsigned int n_core;  /* core_types[0..n_core) are judged */
	unsigned int core_types[GUARD_RULE_MAX_CORE];
	unsigned int core_hazard[GUARD_RULE_MAX_CORE]; /* each type's hazard set (bit n:
							  fixed counter n) */
	unsigned int core_table[GUARD_RULE_MAX_CORE];  /* each type's enum guard_table */
	unsigned long long started;                    /* CLOCK_REALTIME seconds of the start */
	unsigned long long object;                     /* FNV-1a of the BPF object loaded: another
							  build's program is not "already attached" */
	unsigned long long canary;                     /* the self-test's nonce (never 0) */
	/* Read by user space only (status, follow): the policy's reason at the
	 * start, and the snapshot directory its facts came from ("" for this
	 * machine), NUL-terminated (cut to fit). */
	char reason[PMUG_ENF_REASON_LEN];
	char facts_from[PMUG_ENF_FACTS_FROM_LEN];
};

/* The program's .bss: totals, always exact (the per-key map may fill up). */
struct pmug_enf_totals {
	unsigned long long denied;      /* calls answered -ENOENT */
	unsigned long long audited;     /* calls that would have been (audit) */
	unsigned long long lost_events; /* ring buffer full: a report was dropped */
	unsigned long long lost_keys;   /* counts map full: a key was not counted */
	unsigned long long canaries;    /* self-test canaries refused (PMUG_ENF_CANARY_*) */
	unsigned long long canary_ns;   /* bpf_ktime_get_ns() of the last one (CLOCK_MONOTONIC) */
};

/* counts: one entry per (uid, PMU type, encoding, denied). */
struct pmug_enf_key {
	unsigned int uid;
	unsigned int pmu_type;
	unsigned int code;   /* config bits 0-15: event code and umask */
	unsigned int denied; /* 1 denied, 0 audited */
};

struct pmug_enf_count {
	unsigned long long calls;
	unsigned long long last_ns; /* bpf_ktime_get_ns() of the last call */
	unsigned int last_pid;      /* tgid */
	char last_comm[16];
	unsigned int pad;
};

/* One record of the ring buffer ("events"), one per call judged in the
 * class: follow reports the first of each (process, encoding) with
 * probe/guard/once.c, as the shim and the supervisor do. */
struct pmug_enf_event {
	unsigned long long ns;        /* bpf_ktime_get_ns() (CLOCK_MONOTONIC) */
	unsigned long long cgroup_id; /* bpf_get_current_cgroup_id() */
	unsigned long long hw_config; /* event->hw.config: what the driver programs */
	unsigned long long attr_config;
	unsigned int tgid, pid, uid;
	unsigned int pmu_type;  /* event->pmu->type */
	unsigned int attr_type; /* event->attr.type, as the caller asked */
	unsigned int hit;       /* enum guard_hit */
	unsigned int denied;
	unsigned int inherited; /* event->parent: created for a child at fork */
	char comm[16];
};

/* One perf event file of some process, found by the task_file iterator
 * (probe/enforce/enforce_iter.bpf.c) for `start` and `status`: an event that
 * was allocated, and so judged, before the guard was attached.  The
 * iterator only reads; user space judges it with pmug_enf_classify() and
 * the attached program's rodata. */
struct pmug_enf_file {
	unsigned long long id;          /* event->id: perf's own, unique while it lives */
	unsigned long long attr_config; /* event->attr.config, as the caller gave it */
	unsigned long long hw_config;   /* event->hw.config: what the driver programs */
	unsigned int tgid;              /* the process whose file table holds it */
	unsigned int fd;
	unsigned int attr_type;
	unsigned int pmu_type; /* event->pmu->type, PMUG_ENF_NO_PMU without one */
	unsigned int state;    /* enum pmug_enf_state */
	unsigned int inherit;  /* attr.inherit: children forked while it lives get a copy */
	char comm[16];
};

/* event->state in words of our own: the kernel's enum perf_event_state
 * changes its values across versions (6.15 added REVOKED below EXIT), so
 * the iterator maps it by name (CO-RE enum relocation). */
enum pmug_enf_state {
	PMUG_ENF_STATE_UNKNOWN = 0, /* a value this build does not know */
	PMUG_ENF_STATE_ACTIVE,      /* scheduled on the PMU now */
	PMUG_ENF_STATE_INACTIVE,    /* enabled, waiting to be scheduled */
	PMUG_ENF_STATE_OFF,         /* disabled: an ioctl or exec may enable it */
	PMUG_ENF_STATE_ERROR,       /* could not be scheduled; may be enabled again */
	PMUG_ENF_STATE_EXIT,        /* its task exited (children may hold copies) */
	PMUG_ENF_STATE_DEAD,        /* being freed, or its PMU is gone (REVOKED) */
};

#define PMUG_ENF_NO_PMU 0xffffffffu

/* The guard's decision on one event, shared by the kernel program's judge()
 * (enforce.bpf.c) and the judging of events that existed before the start
 * (enforce_config.c): the resolved PMU with the encoding the driver will
 * program, then, as a second net, the attr as the caller gave it.
 * *judged is the encoding that was judged last (the one hit, if any). */
GUARD_RULE_INLINE enum guard_hit pmug_enf_classify(const volatile struct pmug_enf_config *c,
						   unsigned pmu_type, unsigned long long hw_config,
						   unsigned attr_type,
						   unsigned long long attr_config,
						   unsigned long long *judged)
{
	*judged = hw_config;
	if (pmu_type == PMUG_ENF_NO_PMU)
		return GUARD_HIT_NONE;
	/* Most events: both encodings land on no guarded counter under any
	 * table (cycles, instructions, any event code but the topdown ones). */
	if (guard_rule_nowhere(hw_config) && guard_rule_nowhere(attr_config))
		return GUARD_HIT_NONE;
	/* And the software, tracepoint and breakpoint events. */
	if (guard_rule_generic_type(pmu_type) && guard_rule_generic_type(attr_type))
		return GUARD_HIT_NONE;
	enum guard_hit hit = guard_rule_classify(pmu_type, hw_config, c->core_types, c->core_hazard,
						 c->core_table, c->n_core);
	if (hit != GUARD_HIT_NONE)
		return hit;
	/* The attr on the same type with the same bits the rule reads
	 * (GUARD_RULE_FIXED_FLAGS: event, umask and the modifiers of a fixed
	 * constraint) has just been judged: the driver filled hw.config from
	 * it (x86: attr.config & X86_RAW_EVENT_MASK). */
	if (attr_type == pmu_type &&
	    (attr_config & GUARD_RULE_FIXED_FLAGS) == (hw_config & GUARD_RULE_FIXED_FLAGS))
		return GUARD_HIT_NONE;
	*judged = attr_config;
	return guard_rule_classify(attr_type, attr_config, c->core_types, c->core_hazard,
				   c->core_table, c->n_core);
}

#define PMUG_ENF_COUNTS_MAX 1024
/* About 2900 records (80 bytes and a header of 8 each): a burst, or a
 * while with no follower reading. */
#define PMUG_ENF_RINGBUF_BYTES (256 * 1024)

_Static_assert(sizeof(struct pmug_enf_config) ==
		       112 + PMUG_ENF_REASON_LEN + PMUG_ENF_FACTS_FROM_LEN,
	       "rodata layout");
_Static_assert(sizeof(struct pmug_enf_totals) == 48, "bss layout");
_Static_assert(sizeof(struct pmug_enf_count) == 40, "count layout");
_Static_assert(sizeof(struct pmug_enf_event) == 80, "event layout");
_Static_assert(sizeof(struct pmug_enf_file) == 64, "iterator record layout");

#endif
