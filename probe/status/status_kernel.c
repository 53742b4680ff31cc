// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel layer as `pmuguard enforce status --keys` gives it, read once
 * (status_gather.c runs the child): its state, the word its document
 * says (../enforce/enforce_state.h, or an older pmuguard's exit), checked
 * against its exit and the document's schema, and each key
 * status reads as a field of struct status_kernel_layer, with the guard's
 * calls by encoding and who it denied by program.  The only reader of
 * that document's keys; pure, no I/O.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"

static bool is(const char *v, const char *want)
{
	return v && strcmp(v, want) == 0;
}

/* A count: a number where the value is one (fewer than 20 digits, so it
 * fits), else said but not known. */
static struct status_count count(const char *v)
{
	struct status_count c = {.said = v && *v};
	c.known = status_digits(v) && strlen(v) < 20;
	c.n = c.known ? strtoull(v, NULL, 10) : 0;
	return c;
}

/* An encoding as enforce status writes it: 0x and at most 16 hex digits. */
static bool hex_config(const char *s)
{
	return s && strncmp(s, "0x", 2) == 0 && s[2] && strlen(s) <= 18 &&
	       strspn(s + 2, "0123456789abcdef") == strlen(s + 2);
}

static int by_kenc(const void *a, const void *b)
{
	const struct status_kenc *x = a, *y = b;
	/* As sort(1) orders "DECISION TYPE CONFIG N" lines. */
	char l[64], r[64];
	snprintf(l, sizeof(l), "%s %" PRIu32 " %s %" PRIu64, x->decision, x->pmu_type, x->config,
		 x->calls);
	snprintf(r, sizeof(r), "%s %" PRIu32 " %s %" PRIu64, y->decision, y->pmu_type, y->config,
		 y->calls);
	return strcmp(l, r);
}

/* by_encoding's rows as given (each NULL where absent): row I's field F
 * at rows[I * R_FIELDS + F]. */
enum { R_DECISION, R_PMU_TYPE, R_CONFIG, R_CALLS, R_UID, R_LAST_COMM, R_FIELDS };
static const char *const row_fields[R_FIELDS] = {
	[R_DECISION] = "decision", [R_PMU_TYPE] = "pmu_type", [R_CONFIG] = "config",
	[R_CALLS] = "calls",       [R_UID] = "uid",           [R_LAST_COMM] = "last_comm",
};
/* Per (decision, PMU type, encoding), summed over uids; the encoding as
 * 0x%x, as the preload's reports name it (one spelling of a label value,
 * whichever layer counted it). */
static void kernel_encodings(struct status_kernel_layer *k, const char *const *rows, unsigned n)
{
	k->kenc = calloc(n ? n : 1, sizeof(*k->kenc));
	if (!k->kenc)
		return;
	for (unsigned i = 0; i < n; i++) {
		const char *const *w = &rows[(size_t)i * R_FIELDS];
		if (!(is(w[R_DECISION], "denied") || is(w[R_DECISION], "audited")) ||
		    !status_digits(w[R_PMU_TYPE]) || !status_digits(w[R_CALLS]) ||
		    !hex_config(w[R_CONFIG]))
			continue;
		struct status_kenc e = {0};
		snprintf(e.decision, sizeof(e.decision), "%s", w[R_DECISION]);
		e.pmu_type = (uint32_t)strtoul(w[R_PMU_TYPE], NULL, 10);
		snprintf(e.config, sizeof(e.config), "0x%llx", strtoull(w[R_CONFIG], NULL, 16));
		uint64_t c = strtoull(w[R_CALLS], NULL, 10);
		unsigned j = 0;
		for (; j < k->n_kenc; j++)
			if (!strcmp(k->kenc[j].decision, e.decision) &&
			    k->kenc[j].pmu_type == e.pmu_type &&
			    !strcmp(k->kenc[j].config, e.config))
				break;
		if (j == k->n_kenc)
			k->kenc[k->n_kenc++] = e;
		k->kenc[j].calls += c;
	}
	qsort(k->kenc, k->n_kenc, sizeof(*k->kenc), by_kenc);
}

static int by_calls(const void *a, const void *b)
{
	const struct status_kprog *x = a, *y = b;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	int c = strcmp(x->program, y->program);
	return c ? c : strcmp(x->config, y->config);
}

/* Who the kernel guard denied, by program, from its own map: exact and
 * written by the kernel (bpf_get_current_comm), unlike a journal entry,
 * so it names the kernel layer's blocks where the follower does not run.
 * The map keeps the last program of each (uid, encoding) only. */
static void kernel_programs(struct status_kernel_layer *k, const char *const *rows, unsigned n)
{
	k->kprogs = calloc(n ? n : 1, sizeof(*k->kprogs));
	if (!k->kprogs)
		return;
	for (unsigned i = 0; i < n; i++) {
		const char *const *w = &rows[(size_t)i * R_FIELDS];
		if (!is(w[R_DECISION], "denied") || !status_digits(w[R_UID]) ||
		    !status_digits(w[R_CALLS]) || !w[R_LAST_COMM] || !*w[R_LAST_COMM] ||
		    !hex_config(w[R_CONFIG]))
			continue;
		struct status_kprog *p = &k->kprogs[k->n_kprogs++];
		snprintf(p->program, sizeof(p->program), "%s", w[R_LAST_COMM]);
		p->uid = strtoull(w[R_UID], NULL, 10);
		snprintf(p->config, sizeof(p->config), "0x%llx", strtoull(w[R_CONFIG], NULL, 16));
		p->calls = strtoull(w[R_CALLS], NULL, 10);
	}
	qsort(k->kprogs, k->n_kprogs, sizeof(*k->kprogs), by_calls);
	if (k->n_kprogs > STATUS_LABELS_MAX)
		k->n_kprogs = STATUS_LABELS_MAX;
}

/* The guard's map, by encoding: the rows read once, for both readers. */
static void kernel_map(struct status_kernel_layer *k, const struct status_kv *kv)
{
	unsigned n = status_kv_count(kv, "by_encoding");
	const char **rows = calloc(n ? (size_t)n * R_FIELDS : 1, sizeof(*rows));
	if (!rows)
		return;
	status_kv_rows(kv, "by_encoding", n, row_fields, R_FIELDS, rows);
	kernel_encodings(k, rows, n);
	kernel_programs(k, rows, n);
	free(rows);
}

/* The document's keys, past its exit and schema. */
static void kernel_fields(struct status_kernel_layer *k, const struct status_kv *kv)
{
	k->protects = is(status_kv_get(kv, "protects"), "true");
	const char *v = status_kv_get(kv, "verified");
	k->verified = is(v, "true");
	k->verified_said = is(v, "true") || is(v, "false");
	k->verified_utc = status_kv_get(kv, "verification.checked_utc");
	k->verified_secs = count(status_kv_get(kv, "verification.checked_at"));
	k->verify_why = status_kv_get(kv, "verification.why");
	k->since = status_kv_get(kv, "started_utc");
	k->attach = status_kv_get(kv, "attach");
	k->mode = status_kv_get(kv, "mode");
	k->why = status_kv_get(kv, "why");
	k->policy_would_attach = is(status_kv_get(kv, "policy.would_attach"), "true");
	k->policy_reason = status_kv_get(kv, "policy.reason");
	k->denied = count(status_kv_get(kv, "totals.denied"));
	k->audited = count(status_kv_get(kv, "totals.audited"));
	k->reports_lost = count(status_kv_get(kv, "totals.reports_lost"));
	k->existing_known = is(status_kv_get(kv, "existing.known"), "true");
	k->existing_unguarded = is(status_kv_get(kv, "existing.unguarded"), "true");
	k->existing_hits = count(status_kv_get(kv, "existing.hits"));
	unsigned n = status_kv_count(kv, "existing.events");
	static const char *const event_fields[] = {"pid", "comm"};
	const char **ev = calloc(n ? (size_t)n * 2 : 1, sizeof(*ev));
	k->events = calloc(n ? n : 1, sizeof(*k->events));
	if (ev && k->events) {
		status_kv_rows(kv, "existing.events", n, event_fields, 2, ev);
		for (unsigned i = 0; i < n; i++)
			k->events[i] = (struct status_enf_event){ev[2 * i], ev[2 * i + 1]};
		k->n_events = n;
	}
	free(ev);
	/* Counted by the guard where it is attached, in any mode. */
	if (k->state == ENF_GUARD_ATTACHED || k->state == ENF_GUARD_AUDIT ||
	    k->state == ENF_GUARD_UNVERIFIED)
		kernel_map(k, kv);
}

/* The state, read once: the document's word (`state`, by the table of
 * ../enforce/enforce_state.c) held to the exit the same table gives it,
 * or, from a pmuguard older than the word, the exit alone.  Attached
 * counts only where the document says it protects (verified and
 * denying), whichever said it. */
void status_kernel_read(struct status_kernel_layer *k, int exit, char *text)
{
	struct status_kv kv;
	status_kv_parse(&kv, text);
	k->text = text;
	k->exit = exit;
	k->state = enf_guard_of_exit(exit);
	if (k->state == ENF_GUARD_UNAVAILABLE) /* built without the guard: no document */
		return;
	if (k->state == ENF_GUARD_UNKNOWN) {
		const char *e = status_kv_get(&kv, "error");
		snprintf(k->err, sizeof(k->err), "pmuguard enforce status %s%s%s",
			 status_run_words(exit, (char[64]){0}, 64), e && *e ? ": " : "",
			 e && *e ? e : "");
		return;
	}
	const char *schema = status_kv_get(&kv, "schema");
	char want[16];
	snprintf(want, sizeof(want), "%d", STATUS_ENF_SCHEMA);
	if (!schema || strcmp(schema, want) != 0) {
		k->state = ENF_GUARD_UNKNOWN;
		snprintf(
			k->err, sizeof(k->err),
			"pmuguard enforce status --keys gave schema '%s', pmuguard status reads %d",
			schema ? schema : "", STATUS_ENF_SCHEMA);
		return;
	}
	const char *word = status_kv_get(&kv, "state");
	if (word && enf_guard_parse(word) != (int)k->state) {
		k->state = ENF_GUARD_UNKNOWN;
		snprintf(k->err, sizeof(k->err),
			 "pmuguard enforce status said state '%.32s' and exited %d, which disagree",
			 word, exit);
		return;
	}
	kernel_fields(k, &kv);
	if (k->state == ENF_GUARD_ATTACHED && !k->protects)
		k->state = k->verified ? ENF_GUARD_AUDIT : ENF_GUARD_UNVERIFIED;
}

void status_kernel_free(struct status_kernel_layer *k)
{
	free(k->text);
	free(k->events);
	free(k->kenc);
	free(k->kprogs);
}
