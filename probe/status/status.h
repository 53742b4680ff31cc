/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PMUGUARD_STATUS_H
#define PMUGUARD_STATUS_H

/*
 * `pmuguard status`: the host's protection, observed.  The facts are
 * gathered once into struct status_model (status_gather.c, status_log.c),
 * one pure function decides from them (status_decide()), and two
 * writers print the model and the decision: one walk for the words and
 * the document behind --json and --keys (status_doc.c), and the
 * node_exporter textfile's table of series (status_prom.c).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <limits.h>

#include "doc.h"
#include "enforce_state.h"

/* The document's schema ("schema"): raised when a key changes meaning or
 * goes away (2: "schema_version" became "schema"). */
#define STATUS_SCHEMA 2
/* The --keys schema of `pmuguard enforce status` read here. */
#define STATUS_ENF_SCHEMA 1
/* Labels named from reports anyone can write: the rest are folded. */
#define STATUS_LABELS_MAX 20
/* What one report may claim it could not deliver. */
#define STATUS_UNDELIVERED_MAX 1000

#define STATUS_WHY 512
#define STATUS_LIST 1024

/* What the caller asks for (cmd_status.c). */
struct status_opts {
	const char *root;     /* --root: a tree, not this host ("" or NULL: /) */
	bool layer_given;     /* --layer: the kernel layer is asked for under --root */
	const char *pmuguard; /* the command that answers `enforce status --keys` and `canary` */
	const char *lib;      /* the library path as the loader reads it, NULL: found */
	const char *lib_at;   /* where it is on this host */
	const char *preload;  /* the preload file as named (under the root) */
	const char *preload_target; /* the regular file it leads to; NULL: preload */
	const char *preload_insane; /* where the caller found its links insane: why */
	const char *syslog_file;    /* --syslog-file */
	const char *version;        /* pmuguard's */
	uid_t me;
	/* The node's kernel layer alone: the view from a pod (the agent's
	 * textfile).  A pod's /etc/ld.so.preload, processes and journal are
	 * its own, so nothing of the preload is gathered or written; the
	 * kernel guard is the node's, and on a container host the only layer
	 * that reaches the containers. */
	bool kernel_only;
	/* The node agent's start was refused by the kernel: why, for the
	 * textfile (pmuguard_kernel_refused_info); NULL: none. */
	const char *kernel_refusal;
};

enum status_verdict { STATUS_HAZARD, STATUS_SAFE, STATUS_UNKNOWN };
/* The kernel guard's state is enum enf_guard, named once, with its words
 * and its exits, in ../enforce/enforce_state.h. */
/* The layers seen to guard the host, as bits: none is 0. */
enum status_layer { STATUS_LAYER_KERNEL = 1, STATUS_LAYER_PRELOAD = 2 };
/* The layers' word: none, kernel, preload, kernel+preload. */
const char *status_layer_word(unsigned layers);
enum status_canary { STATUS_C_NONE, STATUS_C_REFUSED, STATUS_C_REACHED, STATUS_C_UNKNOWN };

/* A KEY=VALUE document as another pmuguard printed it (values raw, with
 * their \xHH escapes kept as text). */
struct status_kv {
	char *text; /* the lines, '\n' replaced by '\0' */
	size_t len;
};
/* text (malloc'd, or NULL) as a document: its lines split in place. */
void status_kv_parse(struct status_kv *kv, char *text);
/* The value of key, NULL where absent; "" where null. */
const char *status_kv_get(const struct status_kv *kv, const char *key);
/* ARRAY.I.FIELD's value (or ARRAY.I with field NULL). */
const char *status_kv_row(const struct status_kv *kv, const char *array, unsigned i,
			  const char *field);
/* How many elements ARRAY has (the highest index + 1). */
unsigned status_kv_count(const struct status_kv *kv, const char *array);
/* The first n rows of ARRAY at once, in one pass: out[I * n_fields + J]
 * is ARRAY.I.FIELDS[J]'s value (what status_kv_row() gives), NULL where
 * absent. */
void status_kv_rows(const struct status_kv *kv, const char *array, unsigned n,
		    const char *const *fields, unsigned n_fields, const char **out);
/* ARRAY's scalar elements joined by ", " into buf. */
void status_kv_list(const struct status_kv *kv, const char *array, char *buf, size_t size);

struct status_risk {
	long pid;
	char comm[17 * 4];
	unsigned fds;
};
struct status_kenc {
	char decision[16];
	uint32_t pmu_type;
	char config[24];
	uint64_t calls;
};
struct status_lenc {
	char pmu_type[16]; /* "other" for a report that names no sane encoding */
	char config[24];
	uint64_t reports;
};
struct status_prog {
	char layer[16];
	char program[17 * 4];
	uint64_t reports;
};
/* A program the kernel guard denied, from its own map (written by the
 * kernel, read by root): the last program of each (uid, encoding). */
struct status_kprog {
	char program[17 * 4]; /* as enforce status gives it, \xHH kept */
	uint64_t uid;
	char config[24];
	uint64_t calls;
};

/* A count another document gives, read once: said where its key has a
 * value, known where that value is a number (decimal digits, fewer than
 * 20), n then.  Every reader says n, or unknown; none reads the text. */
struct status_count {
	bool said, known;
	uint64_t n;
};

/* An event of the hazard class that existed before the guard, as enforce
 * status lists it (each NULL where its key is absent). */
struct status_enf_event {
	const char *pid, *comm;
};

/* The kernel layer, as `pmuguard enforce status --keys` gives it (its exit
 * and its document, schema STATUS_ENF_SCHEMA), read once by
 * status_kernel_read(): the rest of status reads these fields, never a key.
 * The document's fields are filled only where it was read past its exit
 * and schema (attached, audit, unverified, detached); else absent.  A
 * string points into text, its value as given (\xHH escapes kept), NULL
 * where its key is absent; a count is a struct status_count. */
struct status_kernel_layer {
	bool asked;               /* not under --root, unless --layer asked */
	int exit;                 /* enforce status's exit (exit_codes.h), or -errno */
	enum enf_guard state;     /* its document's state (an older pmuguard's: its exit),
				     checked against the exit and the schema */
	char err[STATUS_WHY];     /* why unknown: the exit, the error, the schema */
	char *text;               /* the document (malloc'd), its lines split */
	bool protects;            /* protects=true: verified and denying */
	bool verified;            /* verified=true */
	bool verified_said;       /* verified is true or false (else unknown) */
	const char *verified_utc; /* verification.checked_utc */
	/* verification.checked_at: seconds */
	struct status_count verified_secs;
	const char *verify_why; /* verification.why */
	const char *since;      /* started_utc */
	const char *attach, *mode;
	const char *why;           /* why nothing is attached */
	bool policy_would_attach;  /* policy.would_attach=true */
	const char *policy_reason; /* policy.reason */
	/* totals.* */
	struct status_count denied, audited, reports_lost;
	/* The events of the class opened before the guard. */
	bool existing_known;     /* existing.known=true */
	bool existing_unguarded; /* existing.unguarded=true */
	struct status_count existing_hits;
	struct status_enf_event *events; /* existing.events (highest index + 1) */
	unsigned n_events;
	/* The guard's own map, where attached (audit and unverified too):
	 * calls by encoding, and who it denied by program. */
	struct status_kenc *kenc;
	unsigned n_kenc;
	struct status_kprog *kprogs; /* at most STATUS_LABELS_MAX, most calls first */
	unsigned n_kprogs;
};
/* enforce status's exit and output (malloc'd or NULL, owned by k from
 * here: its lines are split in place) read into k.  Pure: no I/O. */
void status_kernel_read(struct status_kernel_layer *k, int exit, char *text);
void status_kernel_free(struct status_kernel_layer *k);

/* What the library does for the processes of a tree under --root, from
 * the tree's policy file alone (status_tree.c): no canary can run there. */
enum status_policy_state {
	STATUS_POLICY_GUARDS,
	STATUS_POLICY_LETS_THROUGH,
	STATUS_POLICY_UNKNOWN
};
struct status_tree_policy {
	enum status_policy_state state;
	int mode; /* enum guard_mode */
	bool locked;
	bool untrusted; /* anyone but root may write it (conf.h) */
	char untrusted_why[320];
	char why[STATUS_WHY];
};

/* Every fact, gathered once. */
struct status_model {
	const struct status_opts *o;
	/* The probe's answer, as `pmuguard probe --check --keys` gives it. */
	int probe_exit;
	bool probe_guard_unknown;          /* guard_state=unknown: no proof of health */
	char containers[STATUS_LIST];      /* runtimes, ", "-joined */
	char containers_seen[STATUS_LIST]; /* evidence, ", "-joined */
	char *container_list[8];
	unsigned n_containers;

	/* The preload file. */
	char preload[STATUS_WHY];
	char lib[STATUS_WHY];
	bool listed;
	char since[32]; /* the file's mtime, where listed */
	bool loads;
	char load_why[STATUS_WHY];
	/* The running processes (not under --root). */
	bool procs_scanned;
	unsigned mapped, unmapped, unreadable;
	/* Whose maps were not read whole (past STATUS_MAPS_MAX, or not reached
	 * before STATUS_PROCS_DEADLINE_MS): neither mapped nor unmapped, since
	 * whether they map the library is unknown. */
	unsigned not_read;
	struct status_risk *risk;
	unsigned n_risk;

	char listed_why[STATUS_WHY]; /* why the preload file could not be read */
	/* Under --root: what the tree's policy makes of the library. */
	struct status_tree_policy tree_policy;
	/* The canary. */
	enum status_canary canary;
	char canary_why[STATUS_WHY];
	char canary_as[32];
	char policy_bad[STATUS_LIST];
	/* Whether the policy locks the guard for every process (lock = yes, a
	 * lock line not understood, an unreadable file: settings.h), as the
	 * canary's settings say (under --root, the tree's policy): 1, 0 (any
	 * user's PMUGUARD_MODE=off switches the preload off in their
	 * processes), -1 unknown; and why it is locked. */
	int policy_locked;
	char policy_lock_why[STATUS_WHY];

	/* The kernel layer, from `enforce status --keys` (exit and document). */
	struct status_kernel_layer kernel;
	/* This boot's start (/proc/stat btime), 0 where unknown or under
	 * --root: the textfile says it, so that an alert sees a reboot after
	 * which a per-boot count came back to its old value. */
	long long boot_time;

	/* Where reports go, and what was counted. */
	char reports_to[STATUS_WHY];
	char log_src[4096 + 8]; /* journal | file:PATH | none */
	char log_why[STATUS_WHY];
	bool log_counted;
	/* Reports in a syslog file whose time could not be read (or under
	 * --root, where this boot is not the tree's): counted, so the count
	 * may span boots. */
	uint64_t log_timeless;
	uint64_t blocks, undelivered;
	struct status_lenc *lenc;
	unsigned n_lenc;
	bool progs_known; /* from the journal only */
	struct status_prog *progs;
	unsigned n_progs;
};

/* What the model means: decided once, by status_decide() alone. */
struct status_decision {
	enum status_verdict verdict;
	enum enf_guard kernel;
	const char *kernel_err; /* why not attached / unknown; NULL: none */
	char kernel_why[STATUS_WHY];
	const char *verify_why;
	bool pre_guards;
	/* The preload is listed and the policy is not locked: any user can
	 * switch it off in their own processes. */
	bool unlocked;
	bool pre_unknown; /* under --root: listed and loadable, the policy unknown */
	unsigned layers;  /* enum status_layer's bits: status_layer_word() */
	bool guarded;
	bool partly; /* a layer guards, and events of the class escape it */
	bool protected_;
	bool escaped_known;
	uint64_t escaped;
	char escaped_who[STATUS_LIST];
	bool containers_covered;
	enum status_exit exit; /* LSB's: 0, 3 or 4 */
};

/* The gatherers (status_gather.c, status_log.c): each fills its part of m,
 * reading this host (or the tree under o->root); what cannot be read is a
 * fact (a reason), never an error. */
void status_gather(struct status_model *m, const struct status_opts *o);
void status_gather_log(struct status_model *m);
/* The /proc scan (status_procs.c): which processes map the library.
 * Bounded, since any user can make a maps file of hundreds of megabytes
 * (a mapping a line, each with a path of PATH_MAX bytes): the scan stops
 * at its deadline, one maps file is read up to STATUS_MAPS_MAX bytes, and
 * what was not read is counted in not_read.  PMUGUARD_STATUS_PROCS_DEADLINE_MS
 * may only shorten the deadline (status_procs_deadline_ms()). */
#define STATUS_PROCS_DEADLINE_MS 3000
#define STATUS_MAPS_MAX (4u << 20)
void status_gather_processes(struct status_model *m);
int status_procs_deadline_ms(void);
/* The journal's parts of status_gather_log, on journalctl -o export
 * streams (len bytes, modified in place, text[len] writable): the
 * preload's block reports counted into m, and the programs blocked.  0,
 * or -EBADMSG (a stream cut short), -ENOMEM: then nothing is counted. */
int status_log_count_export(struct status_model *m, char *text, size_t len);
int status_log_programs_export(struct status_model *m, char *block, size_t block_len, char *kernel,
			       size_t kernel_len);
/* --- A tree under --root (status_tree.c): data, never code ----------------- */
/* path read whole (at most cap bytes), resolved in the tree at root (NULL
 * or "": this host), as the preload reads its files: without blocking, a
 * regular file only (-EINVAL), -EFBIG past cap.  *out malloc'd and
 * NUL-terminated, its length in *len (it may hold NULs); st (or NULL) the
 * file's status.  0 or -errno. */
int status_tree_read(const char *root, const char *path, size_t cap, char **out, size_t *len,
		     struct stat *st);
/* The same from fd, an open file (closed here), for both of the tree's
 * readers: the checks, *out and *len as status_tree_read's, st filled in.
 * exact: the file read to its end must be the size fstat saw (-EAGAIN where
 * it grew or shrank: an edit never writes back a torn copy); else one that
 * shrank is read as far as it goes. */
int status_read_fd(int fd, size_t cap, bool exact, struct stat *st, char **out, size_t *len);
/* The file behind pfd (an O_PATH descriptor, which opens nothing: no
 * driver runs, no FIFO waits) opened again with flags through
 * /proc/self/fd, where it is a regular file; pfd closed.  Without /proc,
 * path in dir opened by name (its last link followed only where follow),
 * and refused (-EAGAIN) unless it is still that file.  The new
 * descriptor, -ELOOP for a link, -EINVAL for any other kind, or -errno. */
int status_reopen_regular(int pfd, int flags, int dir, const char *path, bool follow);
/* The library where a package puts it (the first of the one list that is
 * a regular file in the tree): its path as the loader reads it into lib,
 * where that is on this host into at; false (both "") where none is. */
bool status_tree_find_lib(const char *root, char *lib, size_t lsize, char *at, size_t asize);
/* Does the preload file's text name lib, as glibc's loader parses it? */
bool status_preload_lists(const char *text, size_t len, const char *lib);
/* The tree's policy, by the guard's own parser and settings. */
void status_tree_policy(struct status_tree_policy *p, const char *root);
/* Does the loader take the library at lib_at cleanly (/bin/true with it
 * preloaded, exit 0 and no word)?  With a fixed PATH only; as_nobody: a
 * private copy, run as uid 65534.  Nothing it starts outlives it (a PID
 * namespace of its own, else every descendant killed).  Why not into why. */
bool status_tree_lib_loads(const char *lib_at, bool as_nobody, char *why, size_t size);
/* path (as the loader reads it, absolute) resolved in the tree at root,
 * never leaving it (openat2 RESOLVE_IN_ROOT; without it, refused where its
 * real path leaves the tree: -EXDEV), into out; 0 or -errno. */
int status_in_root(const char *root, const char *path, char *out, size_t size);
/* --- Accounts, read as data (accounts.c): no NSS module in a static binary */
/* uid's name in /etc/passwd; false where it has none there. */
bool account_user_name(uid_t uid, char *out, size_t size);
/* The group name's id in /etc/group; false where it has none there. */
bool account_group_id(const char *name, gid_t *gid);
/* --- Writing in a tree, or on this host (status_tree_write.c) ---------------- */
/* What pmuguard-fleet asks `pmuguard tree` to change: the file (as the tree
 * names it: absolute, physical, no link on its way), under root (NULL or
 * "/": this host).  Every write goes through descriptors of directories
 * opened O_NOFOLLOW from the root, to an O_EXCL temporary renamed in place. */
struct status_edit_args {
	const char *root;
	const char *file;   /* the preload file (the one the loader reads), or the policy */
	const char *backup; /* where the old preload file is kept, or NULL */
	const char *lib;    /* the entry */
	bool add;           /* preload: add (else remove) */
	bool keep_empty;    /* preload remove: an emptied file stays (a link's) */
	bool drop_created;  /* policy: remove the file install created, unchanged */
	bool dry_run;       /* say what would be done; change nothing */
};
struct status_edit {
	/* preload: already, added, created, not-listed, removed, emptied,
	 * deleted; policy: already, set, added, created, replaced,
	 * not-regular, dir-unsafe; drop: deleted, kept, absent */
	char action[16];
	char backup[PATH_MAX];    /* the backup written, as the tree names it */
	char untrusted[96];       /* why others could change the policy replaced */
	bool locked;              /* the policy reads lock = yes now */
	char why[PATH_MAX + 256]; /* why it failed (nothing changed) */
};
/* 0 done (or nothing to do), -1 nothing changed and why. */
int status_preload_edit(const struct status_edit_args *a, struct status_edit *e);
int status_policy_edit(const struct status_edit_args *a, struct status_edit *e);
/* The policy file install writes where there is none. */
extern const char status_conf_created[];
/* Does a line of /proc/PID/maps map the file at real or lib (its path
 * column equal to one of them)? */
bool status_maps_line_names(const char *line, const char *real, const char *lib);
/* A non-empty string of decimal digits (a count, a time in seconds). */
bool status_digits(const char *s);
/* The probe's answer: `probe --check`'s exit, and its --keys document
 * (keys is modified). */
void status_gather_probe(struct status_model *m, int exit, char *keys);
/* A child's bounds: a minute (the self-test may take some seconds), 16 MiB
 * of output.  PMUGUARD_STATUS_CHILD_DEADLINE_MS may only shorten the
 * first (status_child_deadline_ms()). */
#define STATUS_CHILD_DEADLINE_MS 60000
#define STATUS_CHILD_OUTPUT_MAX (16u << 20)
int status_child_deadline_ms(void);
/* A bound of bound ms that the variable var may only shorten (the tests'),
 * and the monotonic clock in ms: status_run.c's, for every bound here. */
int status_deadline_ms(const char *var, int bound);
long long status_now_ms(void);
/* Run argv (argv[0] a path) with env, in a session of its own; its stdout
 * (and stderr where with_err) into *out (malloc'd, NUL-terminated, its
 * length in *len where len is not NULL: the output may hold NULs).  Its
 * exit status, or -errno where it gave no answer: -ETIMEDOUT past the
 * deadline, -EFBIG past the output cap (killed with its process group),
 * -ECHILD where it could not be waited for; *out is then NULL. */
int status_run(char *const argv[], char *const env[], bool with_err, bool drop_to_nobody,
	       char **out, size_t *len);
/* What status_run's rc says of the child, for a reason: "exited N", or
 * "gave no answer: " and why (the deadline, the cap, no wait). */
const char *status_run_words(int rc, char *buf, size_t size);
/* The reading half of status_run, for a child forked elsewhere that leads
 * its own process group and writes to fd: the same bounds and answers.
 * Closes fd and reaps pid. */
int status_child_collect(pid_t pid, int fd, char **out, size_t *len);
void status_free(struct status_model *m);

/* The one decision: a pure function of the model. */
void status_decide(struct status_decision *d, const struct status_model *m);

/* Every form of status from one walk (status_doc.c): each fact's key (the
 * document, schema 2) and its words side by side, which ../doc/'s writers
 * print: doc_write_text() the words, doc_write_json_spaced() and
 * doc_write_keys() the document. */
void status_walk(const struct status_model *m, const struct status_decision *d,
		 const char *generated_at, const char *host, const struct doc_sink *sink);
/* The reprobe's result for the textfile: exit < 0 keeps the last
 * reprobe's lines from the file it replaces. */
struct status_reprobe {
	int exit;
	const char *error;
};
/* The one rule for the textfile's directory (status --textfile and the
 * node agent's): a directory, that no group or other may write unless it
 * is sticky and root's.  0, or -errno and why. */
int status_textfile_dir_check(const char *path, char *why, size_t size);
/* What a write saw of the file it replaced: its writer's mark ("host",
 * "agent"; "" where none), how old, and whether that is a second writer
 * of this file (another kind, within 15 minutes): the file then says so
 * (pmuguard_textfile_shared), and the caller says so too. */
struct status_textfile_note {
	char previous_writer[16];
	long long previous_age; /* seconds since it was written */
	bool shared;
};
/* Write the textfile atomically (a temporary in its directory, mode 0644,
 * renamed over it), in a directory status_textfile_dir_check() passes
 * (else its -errno, nothing written); 0 or -errno.  note may be NULL. */
int status_write_textfile(const char *path, const struct status_model *m,
			  const struct status_decision *d, const struct status_reprobe *rp,
			  struct status_textfile_note *note);

#endif
