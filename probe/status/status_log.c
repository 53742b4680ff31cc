// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where the preload's block reports go, and what can be counted of them:
 * the journal of this boot (journalctl -o export: data, never the words),
 * a syslog file (only the data a report carries at its end), or nothing.
 * Reports are written by the processes themselves, so anyone can forge
 * one: labels are checked and capped, and a kernel-layer entry counts only
 * from root (_UID=0, what the follower runs as).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "status.h"

extern char **environ;

/* PATH under the root, or false (with a note) where it leads out of it:
 * then it is taken as absent.  Resolved in the tree by the one rule for it
 * (status_in_root(): a link, absolute or by "..", stays in the tree). */
static bool root_look(const struct status_model *m, const char *path, char *buf, size_t size)
{
	const char *root = m->o->root;
	if (!root || !*root) {
		snprintf(buf, size, "%s", path);
		return true;
	}
	int e = status_in_root(root, path, buf, size);
	if (e == 0)
		return true;
	if (e != -EXDEV) {
		/* Absent, or not resolvable: nothing there to read. */
		snprintf(buf, size, "%s%s", root, path);
		return true;
	}
	/* The paths come from the tree: through the one escaper, so that a
	 * name in it cannot drive the terminal or forge a line. */
	struct logline l = {0};
	log_str(&l, "pmuguard: status: ignoring ");
	log_str_safe(&l, root);
	log_str_safe(&l, path);
	log_str(&l, ": it leads out of --root ");
	log_str_safe(&l, root);
	log_emit(&l, 2);
	return false;
}

static bool is_socket(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISSOCK(st.st_mode);
}

static bool on_path(const char *name, char *buf, size_t size)
{
	const char *path = getenv("PATH");
	if (!path)
		return false;
	while (*path) {
		size_t n = strcspn(path, ":");
		snprintf(buf, size, "%.*s/%s", (int)n, path, name);
		if (n && access(buf, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* --- journalctl -o export -------------------------------------------------- */

/* One entry's fields, as NUL-terminated values ("-" where absent); a value
 * that is not plain text (a binary field, a NUL) with its control bytes
 * made '?', so that it never equals a word we look for nor passes as a
 * label, and the program it names shows as sanitised. */
struct entry {
	bool cursor;
	const char *f[5];
	const char *names[5];
	unsigned nf;
};

static const char *entry_get(const struct entry *e, const char *name)
{
	for (unsigned i = 0; i < e->nf; i++)
		if (strcmp(e->names[i], name) == 0)
			return e->f[i];
	return NULL;
}

static void entry_set(struct entry *e, const char *name, size_t name_len, char *value)
{
	if (name_len == 8 && memcmp(name, "__CURSOR", 8) == 0)
		e->cursor = true;
	for (unsigned i = 0; i < e->nf; i++)
		if (strlen(e->names[i]) == name_len && memcmp(e->names[i], name, name_len) == 0)
			e->f[i] = value;
}

static void untrusted(char *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			v[i] = '?';
}

/* Walk len bytes of export format (modified in place; text[len] must be
 * writable), calling fn per entry.  By length, never by NUL: a field is
 * NAME=VALUE\n, or, where journalctl found a control byte in the value
 * (any user can send one), NAME\n, a little-endian 64-bit size, the data
 * and \n: skipped by exactly that size.  0, or -EBADMSG where the stream
 * is cut short or malformed (then nothing it holds is a count). */
static int export_walk(char *text, size_t len, const char *const *names, unsigned nn,
		       void (*fn)(void *ctx, const struct entry *e), void *ctx)
{
	struct entry e = {0};
	for (unsigned i = 0; i < nn; i++)
		e.names[i] = names[i];
	e.nf = nn;
	char *p = text, *end = text + len;
	for (;;) {
		if (p == end || *p == '\n') {
			if (e.cursor)
				fn(ctx, &e);
			e.cursor = false;
			for (unsigned i = 0; i < nn; i++)
				e.f[i] = NULL;
			if (p == end)
				return 0;
			p++;
			continue;
		}
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *eol = nl ? nl : end;
		char *eq = memchr(p, '=', (size_t)(eol - p));
		if (eq) {
			char *v = eq + 1;
			size_t vn = (size_t)(eol - v);
			if (memchr(v, '\0', vn))
				untrusted(v, vn);
			*eol = '\0';
			entry_set(&e, p, (size_t)(eq - p), v);
			p = nl ? nl + 1 : end;
			continue;
		}
		if (!nl || end - (nl + 1) < 8)
			return -EBADMSG;
		const unsigned char *s = (const unsigned char *)nl + 1;
		uint64_t n = 0;
		for (int i = 7; i >= 0; i--)
			n = n << 8 | s[i];
		char *data = nl + 1 + 8;
		if (n >= (uint64_t)(end - data) || data[n] != '\n')
			return -EBADMSG;
		untrusted(data, (size_t)n);
		data[n] = '\0';
		entry_set(&e, p, (size_t)(nl - p), data);
		p = data + n + 1;
	}
}

/* journalctl's export of this boot's entries that match: its exit status
 * (0 where it answered), or -errno where it gave no answer (status_run);
 * the output in *out, *len. */
static int journal(const char *fields, const char *const *match, char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	char jc[PATH_MAX];
	if (!on_path("journalctl", jc, sizeof(jc)))
		return -ENOENT;
	char of[256];
	snprintf(of, sizeof(of), "--output-fields=%s", fields);
	char *argv[12] = {jc, "-b", "-q", "--no-pager", "-o", "export", of};
	unsigned n = 7;
	for (unsigned i = 0; match[i]; i++)
		argv[n++] = (char *)match[i];
	argv[n] = NULL;
	int rc = status_run(argv, environ, false, false, out, len);
	if (rc > 0) {
		/* --output-fields needs systemd 236: an older one prints all. */
		free(*out);
		for (unsigned i = 6; i < n; i++)
			argv[i] = argv[i + 1];
		rc = status_run(argv, environ, false, false, out, len);
	}
	return rc;
}

/* Can this user read every entry of the journal?  journalctl -q hides
 * "insufficient permissions" and shows a user only its own entries: a
 * count from them would be a low count, not a count. */
static bool journal_readable(const struct status_model *m)
{
	if (m->o->me == 0)
		return true;
	/* systemd's tmpfiles.d/systemd.conf and journald's ACLs: the groups
	 * that may read the system journal. */
	static const char *const groups[] = {"systemd-journal", "adm", "wheel"};
	int n = getgroups(0, NULL);
	gid_t *mine = calloc(n > 0 ? (size_t)n + 1 : 1, sizeof(*mine));
	if (!mine)
		return false;
	n = n > 0 ? getgroups(n, mine) : 0;
	if (n < 0)
		n = 0;
	mine[n++] = getegid();
	bool may = false;
	for (unsigned g = 0; g < 3 && !may; g++) {
		gid_t gid;
		bool known = account_group_id(groups[g], &gid);
		for (int i = 0; known && i < n; i++)
			may |= mine[i] == gid;
	}
	free(mine);
	return may;
}

/* --- The reports: deny TYPE CONFIG, and what each could not deliver --------- */

struct reports {
	struct status_model *m;
	char (*keys)[48]; /* "TYPE CONFIG" of each denial that names them */
	size_t n, cap;
	int err; /* -ENOMEM where one could not be kept: then no count */
};

static bool all_in(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

static void add_report(struct reports *r, const char *decision, const char *type,
		       const char *config, const char *undelivered)
{
	unsigned long long u = undelivered ? strtoull(undelivered, NULL, 10) : 0;
	r->m->undelivered += u > STATUS_UNDELIVERED_MAX ? STATUS_UNDELIVERED_MAX : u;
	if (strcmp(decision, "deny") != 0 || strcmp(type, "-") == 0)
		return;
	/* Any user can write a report: a label is a PMU type and a hex
	 * config, or "other". */
	bool sane = all_in(type, "0123456789") && strlen(type) <= 10 &&
		    strncmp(config, "0x", 2) == 0 && all_in(config + 2, "0123456789abcdef") &&
		    strlen(config) <= 18;
	if (r->n == r->cap) {
		/* Grown geometrically: forged reports are many. */
		size_t cap = r->cap ? r->cap * 2 : 256;
		char(*k)[48] = reallocarray(r->keys, cap, sizeof(*r->keys));
		if (!k) {
			r->err = -ENOMEM;
			return;
		}
		r->keys = k;
		r->cap = cap;
	}
	if (sane)
		snprintf(r->keys[r->n++], 48, "%s %s", type, config);
	else
		snprintf(r->keys[r->n++], 48, "other other");
}

static void journal_report(void *ctx, const struct entry *e)
{
	const char *d = entry_get(e, "PMUGUARD_DECISION"), *t = entry_get(e, "PMUGUARD_TYPE");
	const char *c = entry_get(e, "PMUGUARD_CONFIG");
	add_report(ctx, d ? d : "-", t ? t : "-", c ? c : "-",
		   entry_get(e, "PMUGUARD_UNDELIVERED"));
}

/* This boot's start (/proc/stat's btime, the kernel's), 0 where unknown:
 * under --root the tree's boot is not this host's. */
static time_t boot_time(const struct status_model *m)
{
	if (m->o->root && *m->o->root)
		return 0;
	FILE *f = fopen("/proc/stat", "re");
	if (!f)
		return 0;
	char line[256];
	long long bt = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %lld", &bt) == 1)
			break;
	fclose(f);
	return (time_t)bt;
}

/* A syslog line's time, or -1 where it has none that can be read: RFC
 * 3339 (rsyslog's default since Debian 12: "2026-12-06T21:00:00.123+01:00
 * host ...") or the traditional "Dec  6 21:00:00 host ..." (local time, no
 * year: this year, or the last where that would be in the future). */
static time_t line_time(const char *line, time_t now)
{
	struct tm tm = {0};
	const char *p = strptime(line, "%Y-%m-%dT%H:%M:%S", &tm);
	if (p) {
		while (*p == '.' || (*p >= '0' && *p <= '9'))
			p++;
		long off = 0;
		if (*p == '+' || *p == '-') {
			int hh, mm;
			if (sscanf(p + 1, "%2d:%2d", &hh, &mm) != 2)
				return -1;
			off = (*p == '+' ? 1 : -1) * (hh * 3600L + mm * 60L);
		} else if (*p != 'Z') {
			return -1;
		}
		time_t t = timegm(&tm);
		return t == (time_t)-1 ? -1 : t - off;
	}
	memset(&tm, 0, sizeof(tm));
	if (!strptime(line, "%b %e %H:%M:%S", &tm))
		return -1;
	struct tm n;
	if (!localtime_r(&now, &n))
		return -1;
	tm.tm_year = n.tm_year;
	tm.tm_isdst = -1;
	time_t t = mktime(&tm);
	if (t != (time_t)-1 && t > now + 86400) {
		tm.tm_year--;
		tm.tm_isdst = -1;
		t = mktime(&tm);
	}
	return t;
}

/* A report's line is at most 768 bytes as written (probe/guard/log.h),
 * with the daemon's stamp and host before it; a longer line is no report,
 * and is passed over without being held. */
#define SYSLOG_LINE 4096

/* The file at path, a regular file only (O_PATH first: a FIFO or a device
 * put at /var/log/syslog in a tree is never opened), as a stream. */
static FILE *syslog_open(const char *path, int *err)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd >= 0)
		fd = status_reopen_regular(fd, O_RDONLY | O_NONBLOCK | O_NOCTTY, AT_FDCWD, path,
					   true);
	else
		fd = -errno;
	FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;
	*err = fd < 0 ? fd : f ? 0 : -errno;
	if (fd >= 0 && !f)
		close(fd);
	return f;
}

/* The next line of f into line (its newline gone), or false at the end;
 * *whole false where it was longer than the buffer or held a NUL (no
 * report does): the rest of it is read past, not held. */
static bool syslog_line(FILE *f, char *line, size_t size, bool *whole)
{
	size_t n = 0;
	bool any = false;
	int c;
	*whole = true;
	while ((c = getc_unlocked(f)) != EOF) {
		any = true;
		if (c == '\n')
			break;
		if (c && n + 1 < size)
			line[n++] = (char)c;
		else
			*whole = false;
	}
	line[n] = '\0';
	return any;
}

/* A syslog line holds a report as the line its datagram became
 * (probe/guard/log.c, to_syslog): "pmuguard[PID]: ", the words, and the
 * fields as data at its end, " [data: layer=L decision=D type=T config=0xC
 * undelivered=N]".  Only that data is read: the preload's denials. */
static int syslog_reports(struct reports *r, const char *path)
{
	int err;
	FILE *f = syslog_open(path, &err);
	if (!f)
		return err;
	regex_t whole, data;
	if (regcomp(&whole, "pmuguard.[0-9]+.: .* .data: [a-z0-9=x ]+.$",
		    REG_EXTENDED | REG_NOSUB)) {
		fclose(f);
		return -ENOMEM;
	}
	if (regcomp(&data, " .data: ([a-z0-9=x ]+).$", REG_EXTENDED)) {
		regfree(&whole);
		fclose(f);
		return -ENOMEM;
	}
	char line[SYSLOG_LINE];
	bool entire;
	/* "This boot", as the journal's count: a line older than the boot is
	 * an earlier boot's; one whose time cannot be read is counted and
	 * said (the count may then span boots). */
	time_t boot = boot_time(r->m), now = time(NULL);
	while (syslog_line(f, line, sizeof(line), &entire)) {
		if (!entire)
			continue;
		regmatch_t g[2];
		if (regexec(&whole, line, 0, NULL, 0) || regexec(&data, line, 2, g, 0))
			continue;
		time_t t = boot ? line_time(line, now) : -1;
		if (t >= 0 && t < boot)
			continue;
		if (t < 0)
			r->m->log_timeless++;
		line[g[1].rm_eo] = '\0';
		const char *layer = "", *dec = "", *type = "", *cfg = "", *und = NULL;
		for (char *save, *kv = strtok_r(line + g[1].rm_so, " ", &save); kv;
		     kv = strtok_r(NULL, " ", &save)) {
			char *eq = strchr(kv, '=');
			if (!eq)
				continue;
			*eq = '\0';
			const char *v = eq + 1;
			if (!strcmp(kv, "layer"))
				layer = v;
			else if (!strcmp(kv, "decision"))
				dec = v;
			else if (!strcmp(kv, "type"))
				type = v;
			else if (!strcmp(kv, "config"))
				cfg = v;
			else if (!strcmp(kv, "undelivered"))
				und = v;
		}
		if (!strcmp(layer, "preload") && !strcmp(dec, "deny") && *type)
			add_report(r, "deny", type, cfg, und);
	}
	err = ferror(f) ? -EIO : 0;
	regfree(&whole);
	regfree(&data);
	fclose(f);
	return err;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Most reports first, then by label (type, then config: the order of the
 * "TYPE CONFIG" keys, a blank sorting before any character of a label). */
static int by_reports_then_label(const void *a, const void *b)
{
	const struct status_lenc *x = a, *y = b;
	if (x->reports != y->reports)
		return x->reports > y->reports ? -1 : 1;
	int c = strcmp(x->pmu_type, y->pmu_type);
	return c ? c : strcmp(x->config, y->config);
}

/* Count by label, most first (then by label), at most STATUS_LABELS_MAX
 * named: the rest (and "other") folded into "other".  Sorted, then counted
 * by runs: n log n however many labels forged reports bring.  0 or
 * -ENOMEM. */
static int count_reports(struct status_model *m, struct reports *r)
{
	if (r->err)
		return r->err;
	qsort(r->keys, r->n, sizeof(*r->keys), by_string);
	struct status_lenc *l = calloc(r->n + 1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	unsigned nl = 0;
	for (size_t i = 0; i < r->n;) {
		size_t j = i;
		while (j < r->n && strcmp(r->keys[j], r->keys[i]) == 0)
			j++;
		sscanf(r->keys[i], "%15s %23s", l[nl].pmu_type, l[nl].config);
		l[nl++].reports = j - i;
		i = j;
	}
	qsort(l, nl, sizeof(*l), by_reports_then_label);
	uint64_t rest = 0;
	unsigned out = 0;
	for (unsigned i = 0; i < nl; i++) {
		m->blocks += l[i].reports;
		if (i < STATUS_LABELS_MAX && strcmp(l[i].pmu_type, "other") != 0)
			l[out++] = l[i];
		else
			rest += l[i].reports;
	}
	if (rest) {
		snprintf(l[out].pmu_type, sizeof(l[out].pmu_type), "other");
		snprintf(l[out].config, sizeof(l[out].config), "other");
		l[out++].reports = rest;
	}
	m->lenc = l;
	m->n_lenc = out;
	return 0;
}

int status_log_count_export(struct status_model *m, char *text, size_t len)
{
	static const char *const names[] = {"PMUGUARD_DECISION", "PMUGUARD_TYPE", "PMUGUARD_CONFIG",
					    "PMUGUARD_UNDELIVERED"};
	struct reports r = {.m = m};
	int e = export_walk(text, len, names, 4, journal_report, &r);
	if (!e)
		e = count_reports(m, &r);
	if (e)
		m->undelivered = 0; /* counted only from a stream read whole */
	free(r.keys);
	return e;
}

/* --- Blocked, by program (the journal only) -------------------------------- */

struct progs {
	struct status_prog *p;
	unsigned n, cap;
	int err;
};

static void journal_program(void *ctx, const struct entry *e)
{
	struct progs *ps = ctx;
	const char *id = entry_get(e, "MESSAGE_ID"), *l = entry_get(e, "PMUGUARD_LAYER");
	const char *p = entry_get(e, "PMUGUARD_PROGRAM");
	const char *layer = l ? l : "-";
	/* An entry with the preload's MESSAGE_ID is a process's report about
	 * itself, never the kernel's. */
	if (id && strcmp(id, LOG_MSGID_KERNEL) == 0)
		layer = "kernel";
	else if (strcmp(layer, "preload") != 0 && strcmp(layer, "seccomp") != 0)
		layer = "unknown";
	if (ps->n == ps->cap) {
		/* Collected, then sorted and counted by runs (programs_count):
		 * no search per entry, and geometric growth, however many
		 * names forged reports bring. */
		unsigned cap = ps->cap ? ps->cap * 2 : 256;
		struct status_prog *np = reallocarray(ps->p, cap, sizeof(*np));
		if (!np) {
			ps->err = -ENOMEM;
			return;
		}
		ps->p = np;
		ps->cap = cap;
	}
	struct status_prog *o = &ps->p[ps->n++];
	const char *src = p ? p : "-";
	size_t k = 0;
	for (; src[k] && k < 16; k++) {
		unsigned char ch = (unsigned char)src[k];
		o->program[k] = ch > 0x20 && ch < 0x7f ? (char)ch : '?';
	}
	o->program[k] = '\0';
	snprintf(o->layer, sizeof(o->layer), "%s", layer);
	o->reports = 1;
}

static int by_label(const void *a, const void *b)
{
	const struct status_prog *x = a, *y = b;
	int c = strcmp(x->layer, y->layer);
	return c ? c : strcmp(x->program, y->program);
}

static int by_count_then_label(const void *a, const void *b)
{
	const struct status_prog *x = a, *y = b;
	if (x->reports != y->reports)
		return x->reports > y->reports ? -1 : 1;
	return by_label(a, b);
}

/* One row per (layer, program), summed. */
static void programs_count(struct progs *ps)
{
	qsort(ps->p, ps->n, sizeof(*ps->p), by_label);
	unsigned out = 0;
	for (unsigned i = 0; i < ps->n; i++) {
		if (out && by_label(&ps->p[out - 1], &ps->p[i]) == 0)
			ps->p[out - 1].reports += ps->p[i].reports;
		else
			ps->p[out++] = ps->p[i];
	}
	ps->n = out;
}

int status_log_programs_export(struct status_model *m, char *block, size_t block_len, char *kernel,
			       size_t kernel_len)
{
	struct progs ps = {0};
	static const char *const names[] = {"MESSAGE_ID", "PMUGUARD_LAYER", "PMUGUARD_PROGRAM"};
	int e = export_walk(block, block_len, names, 3, journal_program, &ps);
	if (!e)
		e = export_walk(kernel, kernel_len, names, 3, journal_program, &ps);
	if (!e)
		e = ps.err;
	if (e) {
		free(ps.p);
		return e;
	}
	programs_count(&ps);
	qsort(ps.p, ps.n, sizeof(*ps.p), by_count_then_label);
	/* At most STATUS_LABELS_MAX named; the rest by layer as "(others)". */
	static const char *const layers[] = {"kernel", "preload", "seccomp", "unknown"};
	uint64_t rest[4] = {0};
	unsigned out_n = ps.n < STATUS_LABELS_MAX ? ps.n : STATUS_LABELS_MAX;
	for (unsigned i = STATUS_LABELS_MAX; i < ps.n; i++)
		for (unsigned l = 0; l < 4; l++)
			if (!strcmp(ps.p[i].layer, layers[l]))
				rest[l] += ps.p[i].reports;
	for (unsigned l = 0; l < 4; l++) {
		if (!rest[l])
			continue;
		struct status_prog *o = &ps.p[out_n++];
		snprintf(o->layer, sizeof(o->layer), "%s", layers[l]);
		snprintf(o->program, sizeof(o->program), "(others)");
		o->reports = rest[l];
	}
	m->progs = ps.p;
	m->n_progs = out_n;
	m->progs_known = true;
	return 0;
}

/* journalctl's failure as the reason nothing is counted: unknown, never 0. */
static void journal_failed(struct status_model *m, int rc)
{
	snprintf(m->log_why, sizeof(m->log_why), "journalctl %s",
		 status_run_words(rc, (char[64]){0}, 64));
}

static void gather_programs(struct status_model *m)
{
	static const char *const block[] = {"MESSAGE_ID=" LOG_MSGID_BLOCK, NULL};
	static const char *const kernel[] = {"MESSAGE_ID=" LOG_MSGID_KERNEL, "_UID=0", NULL};
	static const char fields[] = "MESSAGE_ID,PMUGUARD_LAYER,PMUGUARD_PROGRAM";
	char *b = NULL, *k = NULL;
	size_t bn = 0, kn = 0;
	/* Unknown (progs_known false) where either cannot be read whole. */
	if (journal(fields, block, &b, &bn) == 0 && journal(fields, kernel, &k, &kn) == 0)
		status_log_programs_export(m, b, bn, k, kn);
	free(b);
	free(k);
}

void status_gather_log(struct status_model *m)
{
	const struct status_opts *o = m->o;
	const char *root = o->root ? o->root : "";
	char at[PATH_MAX];
	bool reachable = true;
	if (root_look(m, "/run/systemd/journal/socket", at, sizeof(at)) && is_socket(at))
		snprintf(m->reports_to, sizeof(m->reports_to),
			 "journald (%s/run/systemd/journal/socket, MESSAGE_ID=%s)", root,
			 LOG_MSGID_BLOCK);
	else if (root_look(m, "/dev/log", at, sizeof(at)) && is_socket(at))
		snprintf(m->reports_to, sizeof(m->reports_to), "%s/dev/log (a syslog daemon)",
			 root);
	else {
		reachable = false;
		snprintf(m->reports_to, sizeof(m->reports_to),
			 "nowhere: %s/dev/log is absent and no journald listens, so the preload "
			 "drops its reports",
			 root);
	}
	snprintf(m->log_src, sizeof(m->log_src), "none");
	char jc[PATH_MAX];
	if (o->syslog_file) {
		if (access(o->syslog_file, R_OK) == 0)
			snprintf(m->log_src, sizeof(m->log_src), "file:%s", o->syslog_file);
		else
			snprintf(m->log_why, sizeof(m->log_why), "cannot read %s", o->syslog_file);
	} else if (!*root && is_socket("/run/systemd/journal/socket") &&
		   on_path("journalctl", jc, sizeof(jc))) {
		snprintf(m->log_src, sizeof(m->log_src), "journal");
	} else {
		static const char *const files[] = {"/var/log/syslog", "/var/log/messages"};
		for (unsigned i = 0; i < 2; i++)
			if (root_look(m, files[i], at, sizeof(at)) && access(at, R_OK) == 0) {
				snprintf(m->log_src, sizeof(m->log_src), "file:%s", at);
				break;
			}
		if (!strcmp(m->log_src, "none"))
			snprintf(m->log_why, sizeof(m->log_why),
				 "no journal and no readable /var/log/syslog or /var/log/messages");
	}
	if (!reachable && !o->syslog_file) {
		snprintf(m->log_src, sizeof(m->log_src), "none");
		snprintf(m->log_why, sizeof(m->log_why),
			 "%s/dev/log is absent and no journald listens: reports are dropped and "
			 "cannot be counted",
			 root);
	}
	if (!strcmp(m->log_src, "journal") && !journal_readable(m)) {
		snprintf(m->log_src, sizeof(m->log_src), "none");
		snprintf(m->log_why, sizeof(m->log_why),
			 "this user reads only its own journal entries (not root, nor in group "
			 "systemd-journal, adm or wheel): the reports cannot be counted");
		return;
	}
	if (!strcmp(m->log_src, "journal")) {
		static const char *const match[] = {"MESSAGE_ID=" LOG_MSGID_BLOCK,
						    "PMUGUARD_LAYER=preload", NULL};
		char *out = NULL;
		size_t len = 0;
		int rc = journal("PMUGUARD_DECISION,PMUGUARD_TYPE,PMUGUARD_CONFIG,"
				 "PMUGUARD_UNDELIVERED",
				 match, &out, &len);
		int e = rc == 0 ? status_log_count_export(m, out, len) : 0;
		free(out);
		if (rc != 0)
			journal_failed(m, rc);
		else if (e)
			snprintf(m->log_why, sizeof(m->log_why),
				 "journalctl's export could not be read: %s", strerror(-e));
		/* Counted only where it was read whole. */
		m->log_counted = rc == 0 && e == 0;
		gather_programs(m);
	} else if (strcmp(m->log_src, "none") != 0) {
		struct reports r = {.m = m};
		int e = syslog_reports(&r, m->log_src + 5);
		m->log_counted = e == 0 && count_reports(m, &r) == 0;
		if (e)
			snprintf(m->log_why, sizeof(m->log_why), "%s could not be read: %s",
				 m->log_src + 5,
				 e == -EINVAL ? "it is not a regular file" : strerror(-e));
		free(r.keys);
	}
}
