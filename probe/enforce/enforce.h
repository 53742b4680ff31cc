/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel enforcement: load the program of enforce.bpf.c, attach it to the
 * perf_event_alloc LSM hook (or fmod_ret on security_perf_event_alloc),
 * pin the link in bpffs so that it outlives the loader, and read back what
 * is attached.  Library code: returns -errno and fills a reason; never
 * prints or exits (the command, probe/cli/cmd_enforce.c, does).  A file
 * per concern: enforce.c (start, stop), enforce_pinned.c (status, follow),
 * enforce_iter.c (the existing events), enforce_libbpf.c (libbpf); the
 * pure part enforce_config.c, and the guard's state enforce_state.h.
 *
 * One pin, one object: DIR/link (default /sys/fs/bpf/pmuguard/link).  The
 * program's maps (counts, events, .rodata, .bss) are found from the link's
 * program, so a start is attached or not as a whole: the pin is the last
 * step, and a start that fails before it leaves nothing behind (closing the
 * last descriptor of an unpinned link detaches it).
 */
#ifndef PMUGUARD_ENFORCE_H
#define PMUGUARD_ENFORCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "classify.h"
#include "enforce_abi.h"

#define ENF_BPFFS "/sys/fs/bpf"
#define ENF_PIN_DIR ENF_BPFFS "/pmuguard"
#define ENF_LSM_LIST "/sys/kernel/security/lsm"
#define ENF_BTF "/sys/kernel/btf/vmlinux"

/* Pure: the rodata for a policy (tests/unit/test_enforce.c): its effect,
 * and what it was decided on (the facts' state, the reason, the snapshot
 * directory facts_from or NULL for this machine), cut to fit. */
void enf_config_fill(struct pmug_enf_config *c, const struct guard_policy *p, unsigned probe_state,
		     const char *facts_from, unsigned attach, time_t now);
/* Pure: does the text of /sys/kernel/security/lsm list "bpf"? */
bool enf_lsm_listed(const char *list, size_t len);
const char *enf_attach_name(unsigned attach);
/* Same effect (enforce or audit, the same core types, the same mode)? */
bool enf_config_same(const struct pmug_enf_config *a, const struct pmug_enf_config *b);

/* The self-test (enforce_abi.h, PMUG_ENF_CANARY_*): the canary opened
 * against the attached program, and what came back. */
struct enf_verify {
	bool ran;       /* the canary was opened */
	bool verified;  /* refused with the canary's errno, and counted by the program */
	int open_errno; /* what perf_event_open said; 0: the canary opened */
	time_t at;      /* CLOCK_REALTIME of this check */
	unsigned long long answered; /* canaries the program has refused since it was loaded */
	char why[256];               /* not verified: why, in one line */
};

/* What start did, or why it could not. */
struct enf_result {
	unsigned attach;            /* PMUG_ENF_ATTACH_* attached (or found) */
	struct pmug_enf_config cfg; /* what is attached now: this start's, or (already)
				       the earlier start's, with its reason and facts */
	bool already;               /* the same configuration was already attached */
	bool replaced;              /* a different configuration was replaced */
	bool mounted_bpffs;         /* nothing was mounted at /sys/fs/bpf: this start mounted it */
	bool keep_unverified;       /* asked: pin a program whose self-test failed (diagnosis) */
	unsigned tried;             /* bit (1 << PMUG_ENF_ATTACH_*) per kind attached and tested */
	struct enf_verify verify;   /* the self-test of what is attached now (or of the last try) */
	char refused[512]; /* an attach kind tried before the one kept, and why it was not */
	char why[512];     /* on failure: one line, the reason */
	char log[2048];    /* libbpf's last lines (for PMUGUARD_LOG=debug) */
};

/* Attach per cfg, prove it runs (the self-test), then pin it.
 * cfg->attach PMUG_ENF_ATTACH_NONE picks: lsm where BPF LSM is listed,
 * else fmod_ret first (where the LSM list cannot be read too: the
 * self-test decides), the other one when the first cannot be attached or
 * does not pass the self-test; LSM or FMOD_RET asks for that one only.  A
 * program that attached but failed the self-test is detached (-ENOEXEC,
 * r->verify says why), unless keep_unverified: then it is pinned all the
 * same and the call still fails with -ENOEXEC.  pin_dir is the directory
 * in bpffs; where it is the default and nothing is mounted at
 * /sys/fs/bpf, bpffs is mounted there.  An existing guard is replaced by
 * renaming over its pin (never detached first), and one with the same
 * configuration that passes the self-test is kept ("already").  0 on
 * success, -errno on failure (r->why says what). */
int enf_start(const struct pmug_enf_config *cfg, const char *pin_dir, bool keep_unverified,
	      struct enf_result *r);
/* Unpin, and wait (bounded) until the kernel has released the link.  0
 * when something was removed and detached, -ENOENT when nothing was pinned,
 * -EBUSY when another process still holds the link. */
int enf_stop(const char *pin_dir, char *why, size_t why_size);

#define ENF_SECURITYFS "/sys/kernel/security"
/* The LSM list for a node agent in a pod without securityfs: mount it at
 * ENF_SECURITYFS where nothing is mounted there (sysfs's own directory),
 * read-only.  1 mounted, 0 the list was readable already, -errno. */
int enf_securityfs_mount(void);

struct enf_count {
	struct pmug_enf_key key;
	struct pmug_enf_count val;
};

struct enf_status {
	bool attached;
	unsigned attach; /* from the link: lsm or fmod_ret */
	uint32_t link_id, prog_id;
	struct pmug_enf_config cfg;    /* the program's rodata */
	struct pmug_enf_totals totals; /* its .bss */
	uint64_t run_cnt, run_time_ns; /* with kernel.bpf_stats_enabled=1 */
	uint32_t xlated_insns, jited_bytes;
	struct enf_count counts[PMUG_ENF_COUNTS_MAX]; /* every key the map can hold */
	unsigned n_counts, n_counts_total;
	int events_fd;            /* the ring buffer, for --follow (or -1) */
	struct enf_verify verify; /* ENF_STATUS_VERIFY: the self-test, run now */
	char why[512];            /* when not attached, or unreadable */
};

enum {
	ENF_STATUS_EVENTS = 1, /* keep st->events_fd open for the caller (follow) */
	ENF_STATUS_VERIFY = 2, /* run the self-test on what is attached (st->verify) */
};

/* 0 with st->attached true or false; -errno when what is pinned cannot be
 * read.  flags: ENF_STATUS_*. */
int enf_status_read(const char *pin_dir, struct enf_status *st, unsigned flags);

/* Pure: the self-test's verdict from what the canary's open returned (fd
 * >= 0, or -errno) and the program's count of canaries before and after
 * (counted false where the count could not be read). */
void enf_verify_judge(struct enf_verify *v, int open_ret, bool counted, unsigned long long before,
		      unsigned long long after, unsigned attach);

/* The perf events that exist now (start, after attaching; status), found
 * by the task_file iterator (enforce_iter.bpf.c) and judged with the rule
 * of the attached program's rodata.  In a denying guard's presence, an
 * event of the class can only have been allocated before it: the kernel
 * judged it then, so nothing stops it until its owner closes it. */
#define ENF_EXISTING_LISTED 64

struct enf_existing_event {
	struct pmug_enf_file f;
	enum guard_hit hit;
	unsigned long long judged; /* the encoding the rule hit: hw.config or attr.config */
};

struct enf_existing {
	bool known;        /* false: the iterator could not run (why says why) */
	unsigned n_files;  /* perf event files found, each (tgid, fd) once */
	unsigned n_hits;   /* of them in the class, its state not dead */
	unsigned n_listed; /* ev[0..n_listed): the first ENF_EXISTING_LISTED, by tgid and fd */
	struct enf_existing_event ev[ENF_EXISTING_LISTED];
	char why[256];
};

/* Pure: judge len bytes of the iterator's records (struct pmug_enf_file)
 * with cfg's rule, one per (tgid, fd).  0, -EPROTO when len is not a whole
 * number of records (ex->why says so), -ENOMEM. */
int enf_existing_judge(struct enf_existing *ex, const struct pmug_enf_config *cfg,
		       const void *records, size_t len);
/* "active", "inactive (enabled)", "off (disabled: ...)", ... for enum
 * pmug_enf_state; enf_state_token: its one word ("off"), for data. */
const char *enf_state_name(unsigned state);
const char *enf_state_token(unsigned state);
/* Run the iterator and judge what it finds.  Always fills ex: on failure
 * known is false and why says why (-errno returned). */
int enf_existing_read(struct enf_existing *ex, const struct pmug_enf_config *cfg);

/* Follow the ring buffer of link link_id until stop() says so (called
 * about once a second): -ENOENT when the pin goes away (stop), -ESTALE
 * when another link replaced it (a start with another policy; read the
 * status again and follow the new one).  fn gets each record. */
typedef void (*enf_event_fn)(void *ctx, const struct pmug_enf_event *e);
/* Pure: the kernel program's decision in one record, as the shim's
 * decision is put (type and config as the caller asked). */
struct guard_decision;
void enf_event_decision(const struct pmug_enf_event *e, struct guard_decision *d);
int enf_follow(int events_fd, uint32_t link_id, const char *pin_dir, enf_event_fn fn, void *ctx,
	       bool (*stop)(void *ctx));

#endif
