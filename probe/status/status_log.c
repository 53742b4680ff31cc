// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where the preload's block reports go, and what can be counted of them:
 * the journal of this boot (journalctl -o export: data, never the words),
 * a syslog file (only the data a report carries at its end), or nothing.
 * Reports are written by the processes themselves, so anyone can forge
 * one: labels are checked and capped, and a kernel-layer entry counts only
 * from root (_UID=0, what the follower runs as).
 */
#include <limits.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "status.h"

extern char **environ;

/* PATH under the root, or false (with a note) where it leads out of it:
 * then it is taken as absent.  Links are resolved on this host, so one
 * that leaves the tree, absolute or by "..", is never followed out. */
static bool root_look(const struct status_model *m, const char *path, char *buf, size_t size)
{
	const char *root = m->o->root;
	if (!root || !*root) {
		snprintf(buf, size, "%s", path);
		return true;
	}
	snprintf(buf, size, "%s%s", root, path);
	char rr[PATH_MAX], rp[PATH_MAX];
	if (!realpath(root, rr) || !realpath(buf, rp))
		return true; /* absent, or not resolvable: nothing there to read */
	size_t n = strcmp(rr, "/") == 0 ? 0 : strlen(rr);
	if (strncmp(rp, rr, n) == 0 && (rp[n] == '/' || rp[n] == '\0'))
		return true;
	fprintf(stderr, "pmuguard: status: ignoring %s: it leads out of --root %s, to %s\n", buf,
		root, rp);
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

/* One entry's fields, as NUL-terminated "KEY=VALUE" (a binary field's
 * value as it is, cut at its first NUL). */
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

/* Walk text (export format, modified in place), calling fn per entry. */
static void export_walk(char *text, const char *const *names, unsigned nn,
			void (*fn)(void *ctx, const struct entry *e), void *ctx)
{
	if (!text)
		return;
	struct entry e = {0};
	for (unsigned i = 0; i < nn; i++)
		e.names[i] = names[i];
	e.nf = nn;
	char *p = text;
	for (;;) {
		if (!*p || *p == '\n') {
			if (e.cursor)
				fn(ctx, &e);
			e.cursor = false;
			for (unsigned i = 0; i < nn; i++)
				e.f[i] = NULL;
			if (!*p)
				return;
			p++;
			continue;
		}
		char *nl = strchr(p, '\n');
		char *eq = memchr(p, '=', nl ? (size_t)(nl - p) : strlen(p));
		if (!eq && nl) {
			/* A binary field: NAME\n, a little-endian 64-bit size, the
			 * data, \n. */
			*nl = '\0';
			unsigned char *s = (unsigned char *)nl + 1;
			uint64_t len = 0;
			size_t avail = strnlen((char *)s, 8);
			if (avail < 8)
				return;
			for (int i = 7; i >= 0; i--)
				len = len << 8 | s[i];
			char *data = (char *)s + 8;
			if (len > strlen(data))
				return;
			for (unsigned i = 0; i < nn; i++)
				if (strcmp(p, names[i]) == 0)
					e.f[i] = NULL; /* binary: not a value we read */
			p = data + len + (data[len] == '\n');
			continue;
		}
		if (nl)
			*nl = '\0';
		if (eq) {
			*eq = '\0';
			if (strcmp(p, "__CURSOR") == 0)
				e.cursor = true;
			for (unsigned i = 0; i < nn; i++)
				if (strcmp(p, names[i]) == 0)
					e.f[i] = eq + 1;
		}
		if (!nl)
			p += strlen(p);
		else
			p = nl + 1;
	}
}

static char *journal(const struct status_model *m, const char *fields, const char *const *match)
{
	(void)m;
	char jc[PATH_MAX];
	if (!on_path("journalctl", jc, sizeof(jc)))
		return NULL;
	char of[256];
	snprintf(of, sizeof(of), "--output-fields=%s", fields);
	char *argv[12] = {jc, "-b", "-q", "--no-pager", "-o", "export", of};
	unsigned n = 7;
	for (unsigned i = 0; match[i]; i++)
		argv[n++] = (char *)match[i];
	argv[n] = NULL;
	char *out = NULL;
	int rc = status_run(argv, environ, false, false, &out);
	if (rc != 0 && fields && strstr(fields, "PMUGUARD_DECISION")) {
		/* --output-fields needs systemd 236: an older one prints all. */
		free(out);
		for (unsigned i = 6; i < n; i++)
			argv[i] = argv[i + 1];
		rc = status_run(argv, environ, false, false, &out);
	}
	return out;
}

/* --- The reports: deny TYPE CONFIG, and what each could not deliver --------- */

struct reports {
	struct status_model *m;
	char (*keys)[48]; /* "TYPE CONFIG" of each denial that names them */
	size_t n;
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
	char(*k)[48] = realloc(r->keys, (r->n + 1) * sizeof(*r->keys));
	if (!k)
		return;
	r->keys = k;
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

/* A syslog line holds a report as the line its datagram became
 * (probe/guard/log.c, to_syslog): "pmuguard[PID]: ", the words, and the
 * fields as data at its end, " [data: layer=L decision=D type=T config=0xC
 * undelivered=N]".  Only that data is read: the preload's denials. */
static void syslog_reports(struct reports *r, const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	regex_t whole, data;
	if (regcomp(&whole, "pmuguard.[0-9]+.: .* .data: [a-z0-9=x ]+.$",
		    REG_EXTENDED | REG_NOSUB)) {
		fclose(f);
		return;
	}
	if (regcomp(&data, " .data: ([a-z0-9=x ]+).$", REG_EXTENDED)) {
		regfree(&whole);
		fclose(f);
		return;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) >= 0) {
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		regmatch_t g[2];
		if (regexec(&whole, line, 0, NULL, 0) || regexec(&data, line, 2, g, 0))
			continue;
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
	free(line);
	regfree(&whole);
	regfree(&data);
	fclose(f);
}

static int by_string(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Count by label, most first (then by label), at most STATUS_LABELS_MAX
 * named: the rest (and "other") folded into "other". */
static void count_reports(struct status_model *m, struct reports *r)
{
	qsort(r->keys, r->n, sizeof(*r->keys), by_string);
	struct status_lenc *l = calloc(r->n + 1, sizeof(*l));
	if (!l)
		return;
	unsigned nl = 0;
	for (size_t i = 0; i < r->n;) {
		size_t j = i;
		while (j < r->n && strcmp(r->keys[j], r->keys[i]) == 0)
			j++;
		sscanf(r->keys[i], "%15s %23s", l[nl].pmu_type, l[nl].config);
		l[nl++].reports = j - i;
		i = j;
	}
	/* Stable by count: equal counts stay in label order. */
	for (unsigned i = 1; i < nl; i++)
		for (unsigned j = i; j > 0 && l[j].reports > l[j - 1].reports; j--) {
			struct status_lenc t = l[j];
			l[j] = l[j - 1];
			l[j - 1] = t;
		}
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
}

/* --- Blocked, by program (the journal only) -------------------------------- */

struct progs {
	struct status_prog *p;
	unsigned n;
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
	char prog[17];
	const char *src = p ? p : "-";
	size_t k = 0;
	for (; src[k] && k < 16; k++) {
		unsigned char ch = (unsigned char)src[k];
		prog[k] = ch > 0x20 && ch < 0x7f ? (char)ch : '?';
	}
	prog[k] = '\0';
	for (unsigned i = 0; i < ps->n; i++)
		if (!strcmp(ps->p[i].layer, layer) && !strcmp(ps->p[i].program, prog)) {
			ps->p[i].reports++;
			return;
		}
	struct status_prog *np = realloc(ps->p, (ps->n + 1) * sizeof(*np));
	if (!np)
		return;
	ps->p = np;
	snprintf(np[ps->n].layer, sizeof(np[ps->n].layer), "%s", layer);
	snprintf(np[ps->n].program, sizeof(np[ps->n].program), "%s", prog);
	np[ps->n++].reports = 1;
}

static int by_count_then_label(const void *a, const void *b)
{
	const struct status_prog *x = a, *y = b;
	if (x->reports != y->reports)
		return x->reports > y->reports ? -1 : 1;
	int c = strcmp(x->layer, y->layer);
	return c ? c : strcmp(x->program, y->program);
}

static void gather_programs(struct status_model *m)
{
	struct progs ps = {0};
	static const char *const names[] = {"MESSAGE_ID", "PMUGUARD_LAYER", "PMUGUARD_PROGRAM"};
	static const char *const block[] = {"MESSAGE_ID=" LOG_MSGID_BLOCK, NULL};
	static const char *const kernel[] = {"MESSAGE_ID=" LOG_MSGID_KERNEL, "_UID=0", NULL};
	char *out = journal(m, "MESSAGE_ID,PMUGUARD_LAYER,PMUGUARD_PROGRAM", block);
	export_walk(out, names, 3, journal_program, &ps);
	free(out);
	out = journal(m, "MESSAGE_ID,PMUGUARD_LAYER,PMUGUARD_PROGRAM", kernel);
	export_walk(out, names, 3, journal_program, &ps);
	free(out);
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
	if (strcmp(m->log_src, "none") != 0) {
		m->log_counted = true;
		struct reports r = {.m = m};
		if (!strcmp(m->log_src, "journal")) {
			static const char *const names[] = {"PMUGUARD_DECISION", "PMUGUARD_TYPE",
							    "PMUGUARD_CONFIG",
							    "PMUGUARD_UNDELIVERED"};
			static const char *const match[] = {"MESSAGE_ID=" LOG_MSGID_BLOCK,
							    "PMUGUARD_LAYER=preload", NULL};
			char *out = journal(m,
					    "PMUGUARD_DECISION,PMUGUARD_TYPE,PMUGUARD_CONFIG,"
					    "PMUGUARD_UNDELIVERED",
					    match);
			export_walk(out, names, 4, journal_report, &r);
			free(out);
		} else {
			syslog_reports(&r, m->log_src + 5);
		}
		count_reports(m, &r);
		free(r.keys);
	}
	if (!strcmp(m->log_src, "journal"))
		gather_programs(m);
}
