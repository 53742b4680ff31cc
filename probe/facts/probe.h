/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The probe: what this machine's PMU really implements.
 *
 * Facts are gathered at the edge (live, or from a snapshot directory) into
 * a plain struct; the verdict is a pure function of that struct.  Nothing
 * here allocates, uses stdio or opens a perf event: the preloaded shim runs
 * it inside arbitrary processes, possibly from a signal handler.
 */
#ifndef PMUGUARD_PROBE_H
#define PMUGUARD_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROBE_MAX_LEAVES 8 /* cpuid.c: wanted[] */
#define PROBE_MAX_PMUS 4
#define PROBE_PMU_NAME 16
#define PROBE_PATH_MAX 1024

/* perf_event_attr.type of the non-hybrid core PMU (include/uapi/linux/perf_event.h). */
#define PROBE_TYPE_RAW 4u

struct probe_cpuid_leaf {
	uint32_t leaf, subleaf;
	uint32_t eax, ebx, ecx, edx;
};

/* Which facts could be read; a clear bit means "unknown", never "absent". */
enum probe_known {
	PROBE_KNOWN_CPUID = 1u << 0,
	PROBE_KNOWN_SYSFS = 1u << 1,
	PROBE_KNOWN_KLOG = 1u << 2,
	PROBE_KNOWN_MSR = 1u << 3,
	PROBE_KNOWN_SYSFS_EVENTS = 1u << 4, /* slots/topdown-* looked up too */
	PROBE_KNOWN_DMI = 1u << 5,          /* /sys/class/dmi/id (a hidden hypervisor's DMI) */
};

/* Where a fact came from: the report says which, and the guard acts only on
 * CPUID (see probe_verdict.guard_state). */
enum probe_basis { PROBE_BASIS_NONE = 0, PROBE_BASIS_CPUID, PROBE_BASIS_KLOG };

/* The machine's DMI identity: /sys/class/dmi/id/{sys_vendor,product_name,
 * product_version} (on EC2 "Amazon EC2" and the instance type). */
#define PROBE_DMI_LEN 64
struct probe_dmi {
	char sys_vendor[PROBE_DMI_LEN];
	char product_name[PROBE_DMI_LEN];
	char product_version[PROBE_DMI_LEN];
};

/* A PMU register access the kernel's exception fixup caught: "unchecked
 * MSR access error: WRMSR to 0x38f (tried to write 0x...)" / "RDMSR from
 * 0x329" (ex_handler_msr(), arch/x86/mm/extable.c). */
#define PROBE_MAX_MSR_ERRORS 4
struct probe_msr_error {
	uint32_t msr;
	bool write;
	bool value_seen; /* writes only: the value the kernel tried */
	uint64_t value;
};

struct probe_pmu {
	char name[PROBE_PMU_NAME]; /* cpu, cpu_core, cpu_atom, cpu_lowpower */
	uint32_t type;             /* perf_event_attr.type, from sysfs */
	bool slots_listed;         /* events/slots exists */
	uint16_t topdown_listed;   /* bit n: events/topdown-<metric n> exists */
};

/* What a boot says besides the PMU block: the lines that name the machine,
 * and PMU register accesses the hypervisor refused. */
struct probe_boot {
	char kernel_release[48]; /* "Linux version 6.1.0-18-cloud-amd64 (...)" */
	bool cpu_seen;           /* "smpboot: CPU0: <brand> (family: 0x6, model: 0x6a, stepping: 0x6)" */
	char cpu_vendor[13];     /* from the vendor word the kernel prints in that line */
	bool fms_seen;           /* family/model/stepping were on it (mail clients wrap it) */
	uint32_t family, model, stepping;
	char hypervisor[32];     /* named: "Hypervisor detected: KVM", "Booting paravirtualized
				    kernel on KVM", hv_vmbus/kvm-clock lines; "" unnamed */
	bool virtualized;        /* any line that only a guest prints */
	bool crash_kernel;       /* a kdump capture kernel's boot: "CPU topo: Crash kernel
				    detected", or elfcorehdr= on its command line */
	const char *crash_kernel_why; /* which of the two, in words (a static string) */
	bool virt_anchored;      /* one of them (or the named hypervisor) came where only the
				    kernel writes: a /dev/kmsg record, or before the driver's block
				    after its boot's banner (kmsg.c) */
	bool bare_hardware;      /* "Booting paravirtualized kernel on bare hardware" (not proof:
				    bhyve and TCG guests print it too) */
	char dmi[96];            /* "Amazon EC2 m6i.16xlarge" (the "DMI:" line's sys_vendor and
				    product_name; board and BIOS cut off; an oops's
				    "Hardware name:" where there is no "DMI:" line) */
	bool dmi_from_dmi_line;
	bool dmi_anchored;       /* the DMI line came where only the kernel writes (as above) */
	bool no_dmi;             /* "DMI not present or invalid" (no SMBIOS: Firecracker) */
	bool virtio_mmio;        /* virtio_mmio.device= on the command line (Firecracker's devices) */
	bool after_restart;      /* the text's boot before this one ended in a kexec or a reset
				    ("kexec_core: Starting new kernel", "reboot: Restarting system") */
	/* The boot's start as the log shows it (kmsg.c), in the order the
	 * kernel prints it: the banner (start_kernel()), setup_arch()'s
	 * "Command line:", then dmi_setup()'s "DMI:" line (or "DMI not present
	 * or invalid"), the record printed just before
	 * init_hypervisor_platform() says "Hypervisor detected:".  Where all
	 * three came before the PMU driver's block, the log holds the place
	 * where a hypervisor names itself: only then does its silence say
	 * bare metal (probe_boot_from_start()). */
	bool start_banner, start_cmdline, start_dmi;
	bool arm_pmu;            /* "hw perfevents: enabled with armv8_pmuv3 PMU driver" (an Arm
				    CPU's PMU: drivers/perf/arm_pmu_platform.c, arm_pmu_acpi.c) */
	struct probe_msr_error msr_errors[PROBE_MAX_MSR_ERRORS]; /* PMU MSRs only */
	unsigned n_msr_errors;
};

/* Does the log show its boot from the start through setup_arch()'s
 * hypervisor detection (struct probe_boot: banner, command line, DMI)? */
static inline bool probe_boot_from_start(const struct probe_boot *b)
{
	return b->start_banner && b->start_cmdline && b->start_dmi;
}

/* How the kernel log reaches the parser (probe_klog_begin()).  The forms
 * differ in what they prove about a line (kmsg.c, at the top). */
enum probe_klog_form {
	PROBE_KLOG_TEXT = 0, /* a file: dmesg, dmesg -r, journalctl -k, syslog, a paste */
	PROBE_KLOG_SYSLOG,   /* syslog(2) READ_ALL: "<pri>[ts] text", a line per line of a record */
	PROBE_KLOG_KMSG,     /* /dev/kmsg: one record per read, "pri,seq,usec,flags;text" */
};

/* Records that carried a PMU mark (or a banner) and were not taken as the
 * PMU driver's: counted, never read, never quoted as the driver's. */
struct probe_klog_ignored {
	unsigned not_at_start;   /* "Performance Events:" / "... key:" inside a record, not at its start */
	unsigned malformed;      /* a "... key:" line not in the driver's format (junk after the value) */
	unsigned other_facility; /* a record of another facility than the kernel's (userspace's) */
	unsigned outside_block;  /* a PMU block after the driver's, or "..." lines outside any block */
	unsigned banner;         /* a "Linux version" line that cannot start a boot */
};

/* All of them: the one sum the report and the findings say. */
static inline unsigned probe_klog_ignored_total(const struct probe_klog_ignored *ig)
{
	return ig->not_at_start + ig->malformed + ig->other_facility + ig->outside_block +
	       ig->banner;
}

/* A hybrid part's block holds a section per core PMU: "core: cpu_atom PMU
 * driver:" and its own "..." lines (init_hybrid_pmu(), arch/x86/events/
 * intel/core.c).  Each section's numbers, as that PMU's own facts. */
struct probe_klog_pmu {
	char name[PROBE_PMU_NAME]; /* cpu_core, cpu_atom, cpu_lowpower */
	int fixed_logged;          /* its "fixed-purpose events/counters", -1 if none */
	bool fixed_bitmap_seen;    /* its "fixed-purpose bitmap" (6.17+) */
	uint32_t fixed_bitmap;
	bool mask_seen;            /* its "event mask" / "global_ctrl mask" */
	uint64_t mask;
	bool fixed3_logged;        /* 4+ fixed counters, bitmap bit 3 or mask bit 35 */
	bool perf_metrics_bit;     /* bit 48 in its mask (proof only if the block is anchored) */
};

/* The longest pasted line kmsg_paste.c rewrites (a JSON line's message
 * and its normalized form share the buffer). */
#define PROBE_KLOG_CLEAN 1024

/* What a pasted text's lines decided (kmsg_paste.c). */
struct probe_klog_paste {
	bool foreign;      /* this line: a JSON entry another program wrote */
	bool cut;          /* this line: a record cut out of a glued stream (kmsg_feed.c) */
	bool prefix_known; /* the first stamped line said whether a prefix comes first */
	bool prefixed;     /* ... it did: every line's text before its first stamp goes */
	bool numbered_known; /* the text's first line said whether a pastebin numbered it */
	char number_sep;     /* ... with "12: " (':') or "12 | " ('|'); 0 not numbered */
};

/* The parser's own state (kmsg.c); not facts. */
struct probe_klog_parse {
	unsigned char form;          /* enum probe_klog_form */
	unsigned char block;         /* the open block: none, its head, its "..." lines */
	unsigned char head_left;     /* other records still allowed before its first "..." line */
	bool boot_started;           /* a banner started the current boot */
	bool any_record;             /* a record came before this one */
	bool quote_known;            /* the first stamped line said whether the text is quoted */
	unsigned char quote_blanks;  /* a quoted text's indentation (its first line's), 0 none */
	bool quote_bare;             /* ... of a text without timestamps (its first line's) */
	bool first_line;             /* a line that is not empty came */
	bool mono_known;             /* the first stamped line said whether a host and tag follow */
	bool mono;                   /* ... they do: journalctl -o short-monotonic */
	bool restart_seen;           /* a kexec or restart line since the last banner */
	bool driver_lines;           /* the driver's block has "..." lines: nothing replaces it */
	bool orphan_lines;           /* "..." lines came before any block of this boot: the
					driver's opener was cut out, so no later block is known
					to be the driver's */
	bool pending;                /* the open block may replace a bare driver block */
	char pending_vendor[13];     /* its driver's vendor, until it has "..." lines */
	unsigned char section;       /* the open hybrid section: its index + 1; 0 none */
	/* The last record, for probe_klog_gather()'s sink (points into its line). */
	const char *text;
	size_t text_len;
	bool starts;         /* it starts its kind over: the driver's block, a boot */
	bool opens_pending;  /* it opens a pending block: quoted once the block has lines */
	bool commits;        /* it commits the pending block: quote the opener first */
	char clean[PROBE_KLOG_CLEAN]; /* a pasted line rewritten (kmsg_paste.c) */
	struct probe_klog_paste paste;
};

/* What the kernel log says: the current boot (the last in a text), and in
 * it the PMU driver's own block, the first of the boot (kmsg.c says which
 * records count).  A "Linux version" banner starts the boot's facts over. */
struct probe_klog {
	bool pmu_driver_seen;   /* the driver's block: "Performance Events: ..." */
	bool pmu_block_anchored; /* it is the driver's beyond doubt: read from /dev/kmsg, or in a
				    form that can split a record into lines (syslog(2), text)
				    after the banner of its boot; else its bit 48 proves nothing */
	bool mask_seen;         /* "event mask" or "global_ctrl mask" */
	bool perf_metrics_bit;  /* bit 48 in a mask of the driver's block (proof only if anchored) */
	uint64_t mask;          /* the driver's block's first mask */
	int fixed_logged;       /* "fixed-purpose events/counters" of the first block, -1 if none */
	int version_logged;     /* "... version:" of the first block, -1 if none */
	int gp_logged;          /* "generic registers/counters" of the first block, -1 if none */
	bool fixed_bitmap_seen; /* "... fixed-purpose bitmap:" (6.17+) */
	uint32_t fixed_bitmap;  /* the first block's */
	bool fixed3_logged;     /* 4+ fixed counters, bitmap bit 3 or mask bit 35 in the block */
	char driver_vendor[13]; /* "Intel PMU driver" -> GenuineIntel, "AMD PMU driver" -> AuthenticAMD */
	bool no_pmu_driver;     /* "no PMU driver, software events only" */
	bool unsupported_model; /* "unsupported p6 CPU model" / "unsupported CPU family" */
	int unsupported_family, unsupported_nr; /* its numbers (decimal), -1 if not given */
	bool bios_corrupted;    /* "the BIOS has corrupted hw-PMU resources" */
	bool virt_unavailable;  /* "PMU not available due to virtualization" */
	bool broken_pmu;        /* "Broken PMU hardware detected, using software events only" */
	unsigned corrupted_msr[4];
	unsigned n_corrupted_msr;
	/* A hybrid part's sections of the driver's block, in the order logged
	 * (the fields above merge them: the first block's numbers, counter 3
	 * and bit 48 in any). */
	struct probe_klog_pmu pmus[PROBE_MAX_PMUS];
	unsigned n_pmus;

	/* The boot's other facts ("Linux version" starts them over). */
	struct probe_boot boot;
	struct probe_klog_ignored ignored; /* of the current boot */
	struct probe_klog_parse parse;
};

/* What a kernel log line was to the parser (probe_klog_line()). */
enum probe_klog_kind {
	PROBE_KLOG_NONE = 0,
	PROBE_KLOG_PMU,  /* a line of the PMU driver's block */
	PROBE_KLOG_BOOT, /* the boot's CPU, hypervisor, DMI or kernel banner */
	PROBE_KLOG_MSR,  /* an unchecked MSR access error on a PMU register */
};

struct probe_facts {
	unsigned known; /* enum probe_known bits */
	unsigned tried; /* enum probe_known bits looked for, known or not */
	int cpuid_err, sysfs_err, klog_err, msr_err; /* -errno, 0 when known */

	struct probe_cpuid_leaf leaves[PROBE_MAX_LEAVES];
	unsigned n_leaves;

	struct probe_pmu pmus[PROBE_MAX_PMUS];
	unsigned n_pmus;

	struct probe_klog klog;

	uint64_t perf_capabilities; /* IA32_PERF_CAPABILITIES (0x345) */

	struct probe_dmi dmi; /* PROBE_KNOWN_DMI */
	int dmi_err;
	bool log_only; /* only a kernel log was given (probe --dmesg FILE): nothing else read */
};

/* The CPU, decoded from facts->leaves, or read from the kernel log where
 * CPUID is missing (basis says which). */
struct probe_cpu {
	bool known;
	enum probe_basis basis;         /* of vendor, model and hypervisor */
	char vendor[13];
	char hv_vendor[13];             /* CPUID 0x40000000 signature ("KVMKVMKVM") */
	char hv_name[32];               /* in words: "KVM", "Microsoft Hyper-V"; "" unnamed */
	const char *guest_because;      /* the log's evidence that this is a guest, or NULL */
	bool guest_unknown;             /* nothing says guest, and the log alone cannot say bare
					   metal: it does not show its boot from the start */
	uint32_t max_leaf, family, model, stepping;
	bool fms_known;                 /* family/model/stepping */
	bool hypervisor; /* CPUID.1:ECX[31], or the log's evidence */
	bool pdcm;       /* CPUID.1:ECX[15]: IA32_PERF_CAPABILITIES exists */
	bool hybrid;     /* CPUID.7.0:EDX[15] */
	bool leaf_a_known;              /* perfmon facts known (CPUID.0AH, or the PMU block) */
	enum probe_basis perfmon_basis; /* of the perfmon facts */
	uint32_t pmu_version, gp_counters, fixed_counters, fixed_bitmap;
	/* Each of the three read: CPUID.0AH gives all of them, the PMU
	 * driver's block only the lines it has (issue 49: a line not seen is
	 * unknown, never 0). */
	bool pmu_version_known, gp_counters_known, fixed_counters_known;
	uint32_t fixed_ext;             /* CPUID.23H.1:EBX, the fixed bitmap of ARCH_PERFMON_EXT */
	bool fixed_ext_known;           /* CPUID.(7,1):EAX[8] and 23H.0:EAX[1] say it is valid */
	bool pmu_off;                   /* the log: the PMU driver did not load */
	bool fixed_unknown;             /* the log: its block lacks the mask (intel_ctrl), so which
					   fixed counters the kernel schedules onto is unknown */
};

/* The fixed counters the guard judges: 3 (TOPDOWN.SLOTS, and the metrics
 * read through it) to 6 (the E-cores' TOPDOWN_*.ALL).  Counters 0-2
 * exist wherever they are advertised: every hypervisor with a vPMU
 * implements them.  Bit n of a set is fixed counter n. */
#define PROBE_FIXED_GUARDED 0x78u
#define PROBE_FIXED_FIRST 3u
#define PROBE_FIXED_LAST 6u

enum probe_state {
	PROBE_SAFE = 0,     /* counter 3 is implemented or not advertised */
	PROBE_HAZARD,       /* counter 3 advertised, not implemented */
	PROBE_NOT_INTEL,    /* nothing to guard */
	PROBE_NO_PMU,       /* architectural perfmon absent (version 0) */
	PROBE_UNKNOWN,      /* facts missing: fail open, block nothing */
};

struct probe_verdict {
	enum probe_state state;
	bool hazard;
	bool intel;
	bool fixed3_advertised;
	bool perf_metrics_proven;
	bool topdown_listed;        /* the P-core PMU (type 4) lists slots/topdown-* (the report's) */
	const char *metrics_source; /* where the proof came from, or NULL */
	const char *reason;         /* one sentence, static storage */
	/* Per fixed counter (bit n: counter n; fixed.c).  Advertised: CPUID
	 * (0AH EDX[4:0], its ECX bitmap on v5+, 23H.1 EBX), or the mask the
	 * driver logged (what the kernel schedules onto).  Refuted: evidence
	 * that it is not implemented, which beats any evidence for it.
	 * Hazard: advertised and not proven implemented, counters 3-6. */
	uint32_t fixed_advertised;
	uint32_t fixed_refuted;
	uint32_t fixed_hazard;
	/* Of the refuted, those the kernel's own logged mask holds beyond its
	 * count, its bitmap or CPUID: this kernel put them there, not the
	 * hypervisor's CPUID (fixed.c). */
	uint32_t fixed_mask_beyond;
	const char *refuted_by;     /* the evidence against, in words, or NULL */
	/* The hazard set of each core PMU, f->pmus[i] (a hybrid log section of
	 * its own narrows it to what that PMU advertises); the policy gives
	 * PERF_TYPE_RAW fixed_hazard where no PMU of type 4 is listed. */
	uint32_t pmu_hazard[PROBE_MAX_PMUS];
	struct probe_cpu cpu;
	/* The facts that decided state: CPUID, or the kernel log alone (no
	 * CPUID, or no leaf 0xA).  A log-only verdict is the report's: */
	enum probe_basis basis;
	/* what the guard (preload, supervisor) acts on: state where CPUID
	 * decided it, PROBE_UNKNOWN (fail open) where the log alone did. */
	enum probe_state guard_state;
};

/* Each record of the kernel log the parser used: its text, after the
 * form's prefix; new_block when it starts its kind over (the driver's
 * "Performance Events:" line for PMU lines, a boot's "Linux version"
 * banner for the others).  Only the driver's block comes as PMU lines. */
struct probe_klog_sink {
	void (*line)(void *ctx, const char *line, size_t len, enum probe_klog_kind kind,
		     bool new_block);
	void *ctx;
};

/* Gather every fact, live (snapshot == NULL) or from a snapshot directory,
 * reading the kernel log once and handing its PMU lines to sink (may be
 * NULL).  Never fails as a whole: each unreadable fact is left unknown. */
void probe_gather(struct probe_facts *f, const char *snapshot, const struct probe_klog_sink *sink);
/* The same with the kernel log read from klog_path instead (probe --dmesg):
 * with snapshot NULL, nothing else is read (the log may be another
 * machine's), and f->log_only is set. */
void probe_gather_with_log(struct probe_facts *f, const char *snapshot, const char *klog_path,
			   const struct probe_klog_sink *sink);
/* DMI identity, live (/sys/class/dmi/id) or from DIR/dmi/ (path NULL: live). */
void probe_dmi(struct probe_facts *f, const char *dir);
#define PROBE_DMI_DIR "/sys/class/dmi/id"
/* A PMU MSR's name ("IA32_PERF_GLOBAL_CTRL"), or NULL for MSRs that are not
 * the PMU's (probe_klog_line() keeps errors on PMU MSRs only). */
const char *probe_pmu_msr_name(uint32_t msr);

/* Gather only what the verdict needs: CPUID and the core PMU types, the
 * kernel log where CPUID (or its leaf 0xA) is missing, then what
 * probe_open_facts() names, cheapest first, until perf metrics is proven.
 * What the shim and the supervisor use; the report wants probe_gather(). */
void probe_gather_verdict(struct probe_facts *f, const char *snapshot);

/* Pure (verdict.c): decide, and say what could still change the verdict:
 * the facts (enum probe_known bits) not yet looked for whose value could
 * change v, the one evaluated from f (the MSR and the kernel log, which can
 * prove perf metrics, and on bare metal DMI and the log, which can show a
 * hidden hypervisor); 0 when none could. */
void probe_evaluate(const struct probe_facts *f, struct probe_verdict *v);
unsigned probe_open_facts(const struct probe_facts *f, const struct probe_verdict *v);
/* Where the facts prove perf metrics (the verdict's metrics_source), or
 * NULL where they do not. */
const char *probe_metrics_proof(const struct probe_facts *f);
const char *probe_state_name(enum probe_state s);
/* Pure (cpuid_decode.c): the CPU as CPUID says. */
void probe_decode_cpu(const struct probe_facts *f, struct probe_cpu *cpu);
/* Intel, perfmon present, and CPUID.0AH EDX[4:0] > 3 or ECX bit 3 (v5+). */
bool probe_fixed3_advertised(const struct probe_cpu *c);
/* The fixed counters CPUID advertises (bit n: counter n): EDX[4:0] counts
 * them, ECX is a bitmap on v5 and later, 23H.1 EBX another; 0 off Intel
 * or without perfmon. */
uint32_t probe_cpuid_fixed_mask(const struct probe_cpu *c);
/* Pure (fixed.c): the per-counter sets of v (fixed_advertised, _refuted,
 * _hazard, pmu_hazard), from the facts and the CPU already decoded in v. */
void probe_fixed_sets(const struct probe_facts *f, struct probe_verdict *v);
/* Does the kernel log speak for this machine's fixed counters (its block,
 * and with CPUID, the driver's beyond doubt describing this CPUID)? */
bool probe_fixed_log_counts(const struct probe_facts *f, const struct probe_cpu *c);
/* Then each core PMU's (pmu_hazard), from the final fixed_hazard. */
void probe_fixed_per_pmu(const struct probe_facts *f, struct probe_verdict *v);
/* The fixed counters (bit n: counter n) of the kernel's rejected writes of
 * IA32_PERF_GLOBAL_CTRL: the value is the driver's own intel_ctrl
 * (__intel_pmu_enable_all()); false where the log has none. */
bool probe_klog_rejected_ctrl(const struct probe_klog *k, uint32_t *fixed);
/* The fixed counters a rejected PMU register write names (IA32_PERF_GLOBAL_CTRL
 * bits 32+n and 48, IA32_FIXED_CTR_CTRL fields n), counters 3-6 only. */
uint32_t probe_msr_error_fixed(const struct probe_msr_error *e);
/* "3", "4, 5 and 6": the counters of a set, in words, into out. */
void probe_fixed_words(uint32_t set, char *out, size_t size);
/* Pure (klog_cpu.c): the CPU, and its perfmon, as the kernel log states
 * them, for where CPUID is missing; nothing where the log is unknown. */
void probe_cpu_from_klog(const struct probe_facts *f, struct probe_cpu *cpu);
void probe_perfmon_from_klog(const struct probe_facts *f, struct probe_cpu *cpu);
/* Does the kernel log say the PMU driver did not load (any vendor)?  With
 * cpuid_read, only the driver's block beyond doubt speaks (klog_cpu.c). */
bool probe_klog_pmu_off(const struct probe_facts *f, bool cpuid_read);
/* Pure (hypervisor.c).  The hypervisor a DMI system string ("Amazon EC2
 * m6i.16xlarge") names, or NULL where it names no virtual machine. */
const char *probe_dmi_guest(const char *system);
/* A hypervisor named in words ("KVM", the log's): hv_name, and hv_vendor
 * the CPUID signature it goes by ("" for a name not in the table). */
void probe_hv_from_name(struct probe_cpu *c, const char *name);
/* hv_name from the CPUID signature, for a guest not named yet. */
void probe_hv_from_signature(struct probe_cpu *c);
/* The hypervisor in the words every renderer uses: its name ("bhyve"),
 * else `unknown, CPUID signature "PVM"` (one pmuguard has no name for),
 * else "unknown" (no signature, no log line names it); name and
 * signature may be NULL. */
void probe_hv_words(const char *name, const char *signature, char *buf, size_t size);

/* Was a fact left unknown for a reason that may pass (EMFILE, ENFILE,
 * ENOMEM, EINTR, EAGAIN, ENOBUFS)?  Then nothing built on it is kept
 * (gather.c). */
bool probe_errno_transient(int neg_errno);
bool probe_facts_transient(const struct probe_facts *f);

/* Look up one gathered CPUID leaf; NULL when unknown. */
const struct probe_cpuid_leaf *probe_leaf(const struct probe_facts *f, uint32_t leaf,
					  uint32_t subleaf);

/* Parsers, exposed for tests and fuzzing.  Each takes one line (no NUL
 * needed, no newline) and never reads past len. */
int probe_cpuid_parse_line(const char *line, size_t len, struct probe_cpuid_leaf *out);
/* What the line was (PROBE_KLOG_NONE for the rest of the log); the report
 * quotes the others.  A line of the form probe_klog_begin() set (reset:
 * text); in PROBE_KLOG_KMSG a whole record.  Allocation-free and
 * stdio-free: the shim links it. */
enum probe_klog_kind probe_klog_line(struct probe_klog *k, const char *line, size_t len);
void probe_klog_reset(struct probe_klog *k);
void probe_klog_begin(struct probe_klog *k, enum probe_klog_form form);
/* A /dev/kmsg record's header: "6,149,312844,-;text\n": its priority
 * (facility << 3 | level), time in microseconds and text (to its newline). */
bool probe_kmsg_record(const char *rec, size_t n, unsigned *pri, uint64_t *usec,
		       const char **text, size_t *text_len);

/* Stream a file line by line through a small stack buffer (no malloc).
 * Lines longer than the buffer are cut.  Returns 0 or -errno. */
typedef int (*probe_line_fn)(void *ctx, const char *line, size_t len);
int probe_read_lines(const char *path, probe_line_fn fn, void *ctx);
/* A regular file's first bytes, at most size (and 16 MiB) of them: their
 * length, or -errno. */
long probe_read_upto(const char *path, char *buf, size_t size);
/* The same, and the file's status as opened (st may be NULL). */
struct stat;
int probe_read_lines_st(const char *path, probe_line_fn fn, void *ctx, struct stat *st);

/* Read a small file into buf (NUL-terminated, trailing newline stripped).
 * Returns the length read (which may hold NULs) or -errno; refuses FIFOs
 * and devices (-EINVAL) and files that do not fit (-EFBIG). */
long probe_read_small(const char *path, char *buf, size_t size);

/* v in decimal into out (at least 21 bytes), no NUL; returns the length.
 * No stdio: the shim and the supervisor build paths and lines with it. */
size_t probe_utoa(char *out, uint64_t v);

/* Build "a/b" into out; returns false when it would not fit. */
bool probe_join(char *out, size_t size, const char *a, const char *b);

/* The reference snapshots' folder, DATADIR/pmuguard/snapshots (snapshot.c). */
extern const char probe_snapshot_dir[];
/* Where the snapshot `name` (--snapshot, PMUGUARD_SNAPSHOT) lives, into
 * out: name itself where it holds a '/' or is a directory from the working
 * directory (0); else the reference snapshot dir/name (1), dir NULL or ""
 * meaning probe_snapshot_dir; -ENOENT where that is no directory either
 * (out then holds name), -ENAMETOOLONG where it does not fit. */
int probe_snapshot_find(char *out, size_t size, const char *name, const char *dir);

/* Live sources, each filling its part of the facts. */
void probe_cpuid_live(struct probe_facts *f);
void probe_cpuid_snapshot(struct probe_facts *f, const char *path);
void probe_sysfs(struct probe_facts *f, const char *devices_dir, bool events);
/* The kernel log, live (path NULL: /dev/kmsg, else syslog(2)) or from a file. */
void probe_klog_gather(struct probe_facts *f, const char *path, bool whole,
		       const struct probe_klog_sink *sink);
/* Each line (PROBE_KLOG_KMSG: each record) of the log, in its form. */
typedef int (*probe_klog_fn)(void *ctx, enum probe_klog_form form, const char *line, size_t len);
int probe_klog_each_line(const char *path, probe_klog_fn fn, void *ctx);
/* IA32_PERF_CAPABILITIES: live on CPU 0 (whether it exists, CPUID.1:ECX.PDCM,
 * is the caller's to ask), or a snapshot's msr.txt. */
void probe_msr_live(struct probe_facts *f);
void probe_msr_snapshot(struct probe_facts *f, const char *path);

/* One MSR through /dev/cpu/N/msr (reads only; EIO where it does not exist). */
#define PROBE_MSR_PERF_CAPABILITIES 0x345
#define PROBE_MSR_FIXED_CTR3 0x30c
int probe_msr_read(unsigned cpu, uint32_t msr, uint64_t *val);

/* sysfs values (sysfs_values.c).  format/<term>: "config:0-7,32-35". */
struct probe_format {
	unsigned word;  /* 0 config, 1 config1, 2 config2, 3 config3 */
	uint64_t mask;  /* the bits the term occupies */
};
struct probe_named_format {
	const char *name;
	struct probe_format format;
};
/* events/<name>: "event=0x00,umask=0x4,edge". */
#define PROBE_EVENT_TERMS 8
struct probe_term {
	char name[24];
	uint64_t value;
};
struct probe_event {
	struct probe_term terms[PROBE_EVENT_TERMS];
	unsigned n_terms;
};
int probe_format_parse(const char *s, size_t len, struct probe_format *out);
int probe_event_parse(const char *s, size_t len, struct probe_event *out);
/* Encode an event through the PMU's formats: config[0..3] = config..config3.
 * -ENOENT for a term with no format, -ERANGE for a value that does not fit. */
int probe_event_config(const struct probe_event *ev, const struct probe_named_format *fmts,
		       unsigned n_fmts, uint64_t config[4]);

#define PROBE_SYSFS_DEVICES "/sys/bus/event_source/devices"

/* The topdown metrics, in umask order: metric n is umask 0x80+n
 * (arch/x86/include/asm/perf_event.h, INTEL_TD_METRIC_RETIRING ..
 * INTEL_TD_METRIC_MEM_BOUND).  One list, expanded where a table is needed. */
#define PROBE_TOPDOWN_METRICS(X)                                                      \
	X("retiring") X("bad-spec") X("fe-bound") X("be-bound") X("heavy-ops")        \
		X("br-mispredict") X("fetch-lat") X("mem-bound")

/* "topdown-retiring", ...: the sysfs event names. */
extern const char probe_topdown_names[8][24];

#endif
