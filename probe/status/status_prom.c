// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `pmuguard status --textfile FILE`: the node_exporter textfile-collector
 * metrics, from the same model and decision as the words and the document:
 * the model's series one row each (rows[]: name, type, help, when it is
 * written, the field it reads), after the file's own (the build, when,
 * the reprobe, the writer).
 * Written through a temporary in FILE's directory, mode 0644, renamed over
 * it: the collector reads the old file or the new one, never a torn one.
 * The README's alerts ("Metrics and alerts") select these series.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "status.h"

/* The most of a reprobe's error written: a label, not a log. */
#define PROM_ERROR_MAX 200
/* The most of the old file read for the reprobe's lines (a few hundred
 * bytes are written): a larger one is not ours. */
#define PROM_KEEP_MAX (1 << 20)

/* A label value, at most max bytes of s (0: all), by the one rule
 * (log_plain_len()): what passes as it is, but '"' as \" (the exposition
 * format's quote); every other byte (a control, the backslash, a byte that
 * is not UTF-8) as \xHH, its backslash written \\.  node_exporter
 * refuses a whole file for one label that is not UTF-8. */
static void label_max(FILE *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t done = 0;
	while (*p) {
		size_t n = log_plain_len(p);
		if (max && done + (n ? n : 1) > max)
			break;
		if (!n) {
			fprintf(out, "\\\\x%02x", *p);
			n = 1;
		} else if (*p == '"') {
			fputs("\\\"", out);
		} else {
			fwrite(p, 1, n, out);
		}
		p += n;
		done += n;
	}
}

static void label(FILE *out, const char *s)
{
	label_max(out, s, 0);
}

static void head(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void gauge(FILE *out, const char *name, const char *help, uint64_t v)
{
	head(out, name, "gauge", help);
	fprintf(out, "%s %" PRIu64 "\n", name, v);
}

/* The writer's mark: every file says who wrote it, so that a second
 * writer of the same file (the host's timer and a DaemonSet's agent on
 * one node) is seen by each, not left to a README line: each overwrites
 * the other's series every interval.  A mark older than this is a writer
 * that has gone (a DaemonSet removed), not a second one. */
#define PROM_OTHER_WRITER_MAX_AGE (15 * 60)

static const char *writer_of(const struct status_model *m)
{
	return m->o->kernel_only ? "agent" : "host";
}

/* The file this write replaces: its writer's mark (and age) into note, and
 * with keep, the last reprobe's lines copied to keep, so that the boot's
 * reprobe and the timer's status share one file without a series twice. */
static void read_previous(const char *path, FILE *keep, struct status_textfile_note *note)
{
	/* The directory may be another's to write (a textfile collector's):
	 * no link followed, no FIFO waited on, a regular file of a bounded
	 * size only. */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	struct stat st;
	FILE *f = NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > PROM_KEEP_MAX ||
	    !(f = fdopen(fd, "r"))) {
		close(fd);
		return;
	}
	static const char mark[] = "pmuguard_textfile_writer_info{writer=\"";
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	off_t total = 0;
	while ((got = getline(&line, &cap, f)) >= 0 && (total += got) <= PROM_KEEP_MAX) {
		const char *p = line;
		if (!strncmp(p, mark, sizeof(mark) - 1)) {
			p += sizeof(mark) - 1;
			size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz");
			if (n < sizeof(note->previous_writer) && p[n] == '"') {
				memcpy(note->previous_writer, p, n);
				note->previous_writer[n] = '\0';
				note->previous_age = (long long)time(NULL) - (long long)st.st_mtime;
			}
			continue;
		}
		if (!keep)
			continue;
		if (!strncmp(p, "# HELP ", 7) || !strncmp(p, "# TYPE ", 7))
			p += 7;
		if (strncmp(p, "pmuguard_reprobe_", 17) != 0)
			continue;
		p += 17;
		size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz_");
		if (n && (p[n] == ' ' || p[n] == '{'))
			fputs(line, keep);
	}
	free(line);
	fclose(f);
}

/* Who writes this file, and the other writer seen in it. */
static void writer_lines(FILE *out, const struct status_model *m,
			 const struct status_textfile_note *note)
{
	head(out, "pmuguard_textfile_writer_info", "gauge",
	     "Who wrote this file: host (pmuguard status --textfile: the package's timer, "
	     "pmuguard-fleet) or agent (pmuguard enforce agent --textfile, a node agent).");
	fprintf(out, "pmuguard_textfile_writer_info{writer=\"%s\"} 1\n", writer_of(m));
	if (!note->shared)
		return;
	head(out, "pmuguard_textfile_shared", "gauge",
	     "1: another writer wrote this file within 15 minutes; each overwrites the other's "
	     "series: give each its own file.");
	fprintf(out, "pmuguard_textfile_shared{other_writer=\"%s\"} 1\n", note->previous_writer);
}

/* What every textfile starts with: the build, when it was written, and
 * whether the last reprobe did its work.  Alert on time() -
 * pmuguard_status_timestamp_seconds: a file nobody refreshes keeps its
 * last state. */
static void metrics_head(FILE *out, const char *path, const struct status_model *m,
			 const struct status_reprobe *rp, struct status_textfile_note *note)
{
	/* The last reprobe's lines, kept where this write is no reprobe's. */
	char *kept = NULL;
	size_t kept_len = 0;
	FILE *keep = rp && rp->exit >= 0 ? NULL : open_memstream(&kept, &kept_len);
	read_previous(path, keep, note);
	if (keep)
		fclose(keep);
	note->shared = note->previous_writer[0] && strcmp(note->previous_writer, writer_of(m)) &&
		       note->previous_age <= PROM_OTHER_WRITER_MAX_AGE;
	long long now = (long long)time(NULL);
	head(out, "pmuguard_build_info", "gauge", "The pmuguard this host runs.");
	fputs("pmuguard_build_info{version=\"", out);
	label(out, m->o->version ? m->o->version : "unknown");
	fputs("\"} 1\n", out);
	head(out, "pmuguard_status_timestamp_seconds", "gauge",
	     "When pmuguard-fleet wrote this file.");
	fprintf(out, "pmuguard_status_timestamp_seconds %lld\n", now);
	if (m->boot_time > 0) {
		head(out, "pmuguard_boot_time_seconds", "gauge",
		     "When this boot started (/proc/stat btime): the kernel guard's counts and the "
		     "preload's reports start again at each boot.");
		fprintf(out, "pmuguard_boot_time_seconds %lld\n", m->boot_time);
	}
	if (rp && rp->exit >= 0) {
		gauge(out, "pmuguard_reprobe_success",
		      "1 if the last reprobe made the host match its verdict, 0 if it failed "
		      "(pmuguard_reprobe_error_info says why).",
		      rp->exit == 0);
		head(out, "pmuguard_reprobe_timestamp_seconds", "gauge",
		     "When the last reprobe ran.");
		fprintf(out, "pmuguard_reprobe_timestamp_seconds %lld\n", now);
		if (rp->exit != 0) {
			head(out, "pmuguard_reprobe_error_info", "gauge",
			     "Why the last reprobe failed.");
			fprintf(out, "pmuguard_reprobe_error_info{exit=\"%d\",error=\"", rp->exit);
			label_max(out, rp->error ? rp->error : "", PROM_ERROR_MAX);
			fputs("\"} 1\n", out);
		}
	} else if (kept) {
		fwrite(kept, 1, kept_len, out);
	}
	free(kept);
	writer_lines(out, m, note);
}

/* --- The model's series: one row each, in the file's order ------------------ */

/* What a row reads. */
struct prom_of {
	const struct status_model *m;
	const struct status_decision *d;
};

/* A series of the textfile: its name, type and help, whether it is
 * written for this model (NULL: always), and what it reads: one sample's
 * value (value), or its labelled samples (samples). */
struct prom_row {
	const char *name, *type, *help;
	bool (*present)(const struct prom_of *o);
	uint64_t (*value)(const struct prom_of *o);
	void (*samples)(FILE *out, const char *name, const struct prom_of *o);
};

/* A 0/1 gauge is written only where it was checked: an unknown verdict
 * has its own series, never "hazard 0" or "unguarded 0". */
static bool verdict_known(const struct prom_of *o)
{
	return o->d->verdict != STATUS_UNKNOWN;
}

static void verdict_samples(FILE *out, const char *name, const struct prom_of *o)
{
	static const char *const states[] = {"hazard", "safe", "unknown"};
	for (unsigned i = 0; i < 3; i++)
		fprintf(out, "%s{state=\"%s\"} %d\n", name, states[i],
			(unsigned)o->d->verdict == i);
}

static uint64_t hazard(const struct prom_of *o)
{
	return o->d->verdict == STATUS_HAZARD;
}

static uint64_t protected_(const struct prom_of *o)
{
	return o->d->protected_;
}

/* Kernel-only (a pod's view): the preload's series are not the node's,
 * so they are left out, never written as 0. */
static bool preload_series(const struct prom_of *o)
{
	return !o->m->o->kernel_only;
}

static void layer_samples(FILE *out, const char *name, const struct prom_of *o)
{
	static const unsigned layers[] = {STATUS_LAYER_KERNEL, STATUS_LAYER_PRELOAD};
	for (unsigned i = 0; i < (preload_series(o) ? 2U : 1U); i++) {
		fprintf(out, "%s{layer=\"", name);
		label(out, status_layer_word(layers[i]));
		fprintf(out, "\"} %d\n", (o->d->layers & layers[i]) != 0);
	}
}

/* Not from a pod (kernel_only): its policy file is not the node's. */
static bool policy_known(const struct prom_of *o)
{
	return preload_series(o) && o->m->policy_locked >= 0;
}

static uint64_t policy_locked(const struct prom_of *o)
{
	return o->m->policy_locked == 1;
}

static bool unguarded_known(const struct prom_of *o)
{
	return verdict_known(o) || o->d->guarded;
}

static uint64_t unguarded(const struct prom_of *o)
{
	return o->d->exit == STATUS_EXIT_NOT_GUARDED;
}

/* The kernel layer's document, where it was read past its exit and
 * schema; its counts a sample only where they are numbers (one bad line
 * makes the collector drop the file). */
static bool verified_known(const struct prom_of *o)
{
	const struct status_kernel_layer *k = &o->m->kernel;
	return k->verified && k->verified_utc && *k->verified_utc && k->verified_secs.known;
}

static uint64_t verified_at(const struct prom_of *o)
{
	return o->m->kernel.verified_secs.n;
}

static bool existing_known(const struct prom_of *o)
{
	const struct status_kernel_layer *k = &o->m->kernel;
	return o->d->kernel == ENF_GUARD_ATTACHED && k->existing_known && k->existing_hits.known;
}

static uint64_t existing_unguarded(const struct prom_of *o)
{
	return o->d->partly ? o->m->kernel.existing_hits.n : 0;
}

static bool procs_counted(const struct prom_of *o)
{
	const struct status_model *m = o->m;
	return m->procs_scanned && m->listed && (m->unreadable == 0 || m->o->me == 0);
}

static uint64_t unmapped(const struct prom_of *o)
{
	return o->m->unmapped;
}

static uint64_t at_risk(const struct prom_of *o)
{
	return o->m->n_risk;
}

static uint64_t not_read(const struct prom_of *o)
{
	return o->m->not_read;
}

/* The node whose kernel refuses the guard is the one that needs an
 * alert: its reason, by the one rule for a label. */
static bool refused(const struct prom_of *o)
{
	return o->m->o && o->m->o->kernel_refusal;
}

static void refused_samples(FILE *out, const char *name, const struct prom_of *o)
{
	fprintf(out, "%s{error=\"", name);
	label_max(out, o->m->o->kernel_refusal, PROM_ERROR_MAX);
	fputs("\"} 1\n", out);
}

static void kernel_calls_samples(FILE *out, const char *name, const struct prom_of *o)
{
	const struct status_kernel_layer *k = &o->m->kernel;
	for (unsigned i = 0; i < k->n_kenc; i++) {
		fprintf(out, "%s{decision=\"", name);
		label(out, k->kenc[i].decision);
		fprintf(out, "\",pmu_type=\"%" PRIu32 "\",config=\"", k->kenc[i].pmu_type);
		label(out, k->kenc[i].config);
		fprintf(out, "\"} %" PRIu64 "\n", k->kenc[i].calls);
	}
}

static void reports_samples(FILE *out, const char *name, const struct prom_of *o)
{
	const struct status_model *m = o->m;
	for (unsigned i = 0; i < m->n_lenc; i++) {
		fprintf(out, "%s{pmu_type=\"", name);
		label(out, m->lenc[i].pmu_type);
		fputs("\",config=\"", out);
		label(out, m->lenc[i].config);
		fprintf(out, "\"} %" PRIu64 "\n", m->lenc[i].reports);
	}
}

static bool log_counted(const struct prom_of *o)
{
	return preload_series(o) && o->m->log_counted;
}

static uint64_t undelivered(const struct prom_of *o)
{
	return o->m->undelivered;
}

/* Whether the preload's reports can be counted matters where it is
 * listed or the host needs a guard: a 0 on a healthy host with no
 * preload would be an alarm about nothing. */
static bool countable_matters(const struct prom_of *o)
{
	return preload_series(o) && (o->m->listed || o->d->verdict != STATUS_SAFE);
}

static void countable_samples(FILE *out, const char *name, const struct prom_of *o)
{
	fprintf(out, "%s{source=\"", name);
	label(out, o->m->log_src);
	fprintf(out, "\"} %d\n", o->m->log_counted);
}

static const struct prom_row rows[] = {
	{"pmuguard_verdict", "gauge",
	 "The probe's verdict: 1 for the state it gave (hazard, safe or unknown).", NULL, NULL,
	 verdict_samples},
	{"pmuguard_hazard", "gauge",
	 "1 if pmuguard probe finds the fixed-counter-3 hazard, 0 if not (absent when the verdict "
	 "is unknown).",
	 verdict_known, hazard, NULL},
	{"pmuguard_protected", "gauge",
	 "1 if a layer was seen to guard the host (the kernel guard's self-test passed; the "
	 "preload refused a canary started as nobody) and no perf event of the class opened "
	 "before the kernel guard escapes it, else 0.",
	 NULL, protected_, NULL},
	{"pmuguard_layer_installed", "gauge",
	 "1 for each layer that was seen to guard the host (kernel: pmuguard enforce, verified; "
	 "preload: /etc/ld.so.preload, loadable).",
	 NULL, NULL, layer_samples},
	{"pmuguard_policy_locked", "gauge",
	 "1 if the policy locks the guard (lock = yes in /etc/pmuguard.conf, a lock line not "
	 "understood, an unreadable file): no user can switch the preload off; 0 if any user's "
	 "PMUGUARD_MODE=off can, in their own processes.",
	 policy_known, policy_locked, NULL},
	{"pmuguard_unguarded", "gauge",
	 "1 if the host has the hazard and is not guarded: no layer guards it, or perf events "
	 "opened before the kernel guard escape it (absent when the verdict is unknown and "
	 "nothing guards).",
	 unguarded_known, unguarded, NULL},
	{"pmuguard_kernel_verified_timestamp_seconds", "gauge",
	 "When the kernel guard's self-test last passed (this run's check).", verified_known,
	 verified_at, NULL},
	{"pmuguard_kernel_existing_events", "gauge",
	 "Perf events of the hazardous class opened before the kernel guard, which it does not "
	 "guard (restart their processes).",
	 existing_known, existing_unguarded, NULL},
	{"pmuguard_preload_unmapped_processes", "gauge",
	 "Running processes that do not map the preloaded library (started before the install, "
	 "or static).",
	 procs_counted, unmapped, NULL},
	{"pmuguard_preload_at_risk_processes", "gauge",
	 "Of them, those holding perf event files now.", procs_counted, at_risk, NULL},
	{"pmuguard_preload_unread_processes", "gauge",
	 "Running processes whose maps were not read whole (past the scan's bounds): whether "
	 "they map the preloaded library is unknown.",
	 procs_counted, not_read, NULL},
	{"pmuguard_kernel_refused_info", "gauge",
	 "The node agent could not attach the kernel guard: why.", refused, NULL, refused_samples},
	{"pmuguard_kernel_calls_total", "counter",
	 "perf_event_open calls the kernel guard denied or audited, by encoding (exact).", NULL,
	 NULL, kernel_calls_samples},
	{"pmuguard_preload_reports", "gauge",
	 "Block reports of the preload this boot (one per encoding per process), by encoding.",
	 preload_series, NULL, reports_samples},
	{"pmuguard_preload_reports_undelivered", "gauge",
	 "Block reports of the preload this boot that could not be delivered, as later reports "
	 "of the same process say.",
	 log_counted, undelivered, NULL},
	{"pmuguard_preload_reports_countable", "gauge",
	 "1 if the preload's reports reach a log this host can count, 0 if they are dropped or "
	 "unreadable.",
	 countable_matters, NULL, countable_samples},
};

/* The model's series, row by row. */
static void metrics(FILE *out, const struct status_model *m, const struct status_decision *d)
{
	const struct prom_of o = {m, d};
	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		const struct prom_row *r = &rows[i];
		if (r->present && !r->present(&o))
			continue;
		head(out, r->name, r->type, r->help);
		if (r->value)
			fprintf(out, "%s %" PRIu64 "\n", r->name, r->value(&o));
		else
			r->samples(out, r->name, &o);
	}
}

int status_textfile_dir_check(const char *path, char *why, size_t size)
{
	char dir[PATH_MAX];
	if (path[0] != '/' || snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir)) {
		snprintf(why, size, "%s is not an absolute path", path);
		return -EINVAL;
	}
	*strrchr(dir, '/') = '\0';
	const char *d = *dir ? dir : "/";
	struct stat st;
	if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, size, "%s is not a directory", d);
		return -ENOTDIR;
	}
	/* Written as root through a temporary there: a directory others may
	 * write lets them swap files under it (a FIFO, a link) and replace
	 * the metrics; /tmp's kind (sticky, root's) keeps each user's files
	 * their own. */
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !((st.st_mode & S_ISVTX) && st.st_uid == 0)) {
		snprintf(why, size,
			 "%s is writable by group or others (mode %04o): not sticky and root's, "
			 "others could replace the metrics",
			 d, (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int status_write_textfile(const char *path, const struct status_model *m,
			  const struct status_decision *d, const struct status_reprobe *rp,
			  struct status_textfile_note *note)
{
	struct status_textfile_note none;
	if (!note)
		note = &none;
	memset(note, 0, sizeof(*note));
	char why[PATH_MAX + 160];
	int bad = status_textfile_dir_check(path, why, sizeof(why));
	if (bad)
		return bad;
	size_t n = strlen(path);
	char *tmp = malloc(n + 8);
	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, n + 8, "%s.XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		int e = -errno;
		free(tmp);
		return e;
	}
	FILE *out = fdopen(fd, "w");
	if (!out) {
		int e = -errno;
		close(fd);
		unlink(tmp);
		free(tmp);
		return e;
	}
	metrics_head(out, path, m, rp, note);
	metrics(out, m, d);
	int e = 0;
	if (fflush(out) != 0 || fchmod(fd, 0644) != 0 || fsync(fd) != 0)
		e = -errno;
	/* A write that failed earlier and left no errno to fflush. */
	if (!e && ferror(out))
		e = -EIO;
	if (fclose(out) != 0 && !e)
		e = -errno;
	if (!e && rename(tmp, path) != 0)
		e = -errno;
	if (e) {
		unlink(tmp);
	} else {
		/* The rename itself, on disk: after a crash the collector finds
		 * the new file or the old one. */
		char *dir = strdup(tmp);
		int dfd = dir ? open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
		if (dfd < 0 || fsync(dfd) != 0)
			e = -errno;
		if (dfd >= 0)
			close(dfd);
		free(dir);
	}
	free(tmp);
	return e;
}
