// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `pmuguard status` in words: the lines a person reads, one fact a line,
 * each "PREFIX: ..." (pmuguard-fleet's own name where it asks).  Values
 * from another pmuguard's --keys keep their \xHH escapes as text (a
 * backslash passes); every other byte the one rule (log_plain_len()) does
 * not pass is written as \xHH, so no value can drive the terminal or
 * print a line of its own.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "log.h"
#include "conf.h"
#include "status.h"

__attribute__((format(printf, 3, 4))) static void say(FILE *out, const char *prefix,
						      const char *fmt, ...)
{
	char line[4 * STATUS_LIST];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(out, "%s: ", prefix);
	for (const unsigned char *p = (const unsigned char *)line; *p;) {
		size_t n = *p == '\\' ? 1 : log_plain_len(p);
		if (n) {
			fwrite(p, 1, n, out);
			p += n;
		} else {
			fprintf(out, "\\x%02x", *p++);
		}
	}
	fputc('\n', out);
}

static const char *verdict_word(enum status_verdict v)
{
	return v == STATUS_HAZARD ? "hazard" : v == STATUS_SAFE ? "safe" : "unknown";
}

/* A value of the kernel layer's document where it says one. */
static const char *opt(const char *v)
{
	return v && *v ? v : NULL;
}

static void protected_line(FILE *out, const char *P, const struct status_model *m,
			   const struct status_decision *d)
{
	bool hazard = d->verdict == STATUS_HAZARD;
	if (d->partly && hazard) {
		if (d->escaped == 1)
			say(out, P,
			    "protected: PARTLY, by %s: 1 perf event of the hazardous class opened "
			    "before the guard (%s) is not guarded; restart that process",
			    d->layer, d->escaped_who);
		else
			say(out, P,
			    "protected: PARTLY, by %s: %" PRIu64
			    " perf events of the hazardous class "
			    "opened before the guard (%s) are not guarded; restart those processes",
			    d->layer, d->escaped, d->escaped_who);
	} else if (d->guarded && hazard && *m->containers && !d->containers_covered) {
		say(out, P,
		    "protected: PARTLY, by %s: the containers of %s are not covered (they need the "
		    "kernel layer)",
		    d->layer, m->containers);
	} else if (d->guarded) {
		say(out, P, "protected: yes, by %s", d->layer);
	} else if (hazard && d->pre_unknown) {
		say(out, P, "protected: unknown: %s", m->tree_policy.why);
	} else if (hazard) {
		say(out, P,
		    "protected: NO: the host has the hazard and no layer was seen to guard it");
	} else if (d->verdict == STATUS_SAFE) {
		say(out, P, "protected: no layer, and none is needed (no hazard)");
	} else {
		say(out, P, "protected: no layer was seen to guard it, and the verdict is unknown");
	}
}

static void preload_lines(FILE *out, const char *P, const struct status_model *m)
{
	const char *since = *m->since ? m->since : "?";
	if (!m->listed) {
		say(out, P, "preload: not installed (%s%s%s)%s%s", m->preload, *m->lib ? ", " : "",
		    m->lib, *m->listed_why ? ": " : "", m->listed_why);
		return;
	}
	bool under_root = m->o->root && *m->o->root;
	if (m->loads && under_root && m->tree_policy.state != STATUS_POLICY_GUARDS)
		say(out, P, "preload: LISTED, BUT %s: %s (%s, %s)",
		    m->tree_policy.state == STATUS_POLICY_UNKNOWN ? "WHETHER IT GUARDS IS UNKNOWN"
								  : "IT GUARDS NOTHING",
		    m->tree_policy.why, m->preload, m->lib);
	else if (m->loads && m->canary == STATUS_C_REFUSED)
		say(out, P,
		    "preload: installed since %s (%s, %s); a canary started now as %s was refused",
		    since, m->preload, m->lib, m->canary_as);
	else if (m->loads && under_root)
		say(out, P,
		    "preload: installed since %s (%s, %s); the loader takes the library; %s; %s",
		    since, m->preload, m->lib, m->tree_policy.why, m->canary_why);
	else if (m->loads)
		say(out, P,
		    "preload: LISTED BUT A CANARY WAS NOT REFUSED: %s (%s, %s): it guards nothing "
		    "for such a process",
		    m->canary_why, m->preload, m->lib);
	else
		say(out, P, "preload: LISTED BUT NOT LOADED: %s (%s, %s): it guards nothing",
		    m->load_why, m->preload, m->lib);
	bool risk = false;
	if (m->unreadable > 0 && m->o->me != 0) {
		say(out, P,
		    "preload: %u running processes could not be read as uid %u (other users'): "
		    "which processes map the library is unknown; run status as root to count them "
		    "all",
		    m->unreadable, (unsigned)m->o->me);
		risk = true;
	} else if (m->procs_scanned) {
		char tail[320] = "";
		if (m->unreadable)
			snprintf(tail, sizeof(tail), "; %u could not be read even as root",
				 m->unreadable);
		/* Not read whole is neither: counted apart, as unknown. */
		if (m->not_read)
			snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail),
				 "; %u not read whole (past %u MiB of maps, or the scan's %d s): "
				 "whether they map it is unknown",
				 m->not_read, STATUS_MAPS_MAX >> 20,
				 STATUS_PROCS_DEADLINE_MS / 1000);
		say(out, P,
		    "preload: %u running processes map it; %u do not (started before the install, "
		    "static, or another loader): those stay unguarded by the preload until they "
		    "restart%s",
		    m->mapped, m->unmapped, tail);
		risk = true;
	}
	for (unsigned i = 0; risk && i < m->n_risk; i++)
		say(out, P,
		    "preload:   at risk now: pid %ld (%s) holds %u perf event file(s) and does not "
		    "map the library",
		    m->risk[i].pid, m->risk[i].comm, m->risk[i].fds);
}

static void kernel_lines(FILE *out, const char *P, const struct status_model *m,
			 const struct status_decision *d)
{
	const struct status_kernel_layer *k = &m->kernel;
	switch (d->kernel) {
	case STATUS_K_ATTACHED: {
		const char *at = opt(k->verified_utc);
		const char *since = opt(k->since), *den = opt(k->denied);
		const char *aud = opt(k->audited);
		say(out, P,
		    "kernel: attached and verified %s%s%s(self-test), since %s; denied %s, audited %s "
		    "(pmuguard enforce status)",
		    at ? "at " : "", at ? at : "", at ? " " : "", since ? since : "?",
		    den ? den : "?", aud ? aud : "?");
		if (d->partly)
			say(out, P,
			    "kernel: NOT GUARDED: %s perf event(s) of the hazardous class allocated "
			    "before the guard (%s): the kernel judged them then, so enabled they still "
			    "reach the counter; restart their processes (pmuguard enforce status lists "
			    "them)",
			    opt(k->existing_hits), d->escaped_who);
		break;
	}
	case STATUS_K_AUDIT:
		say(out, P,
		    "kernel: attached in audit mode (verified): it counts and allows, so it guards "
		    "nothing");
		break;
	case STATUS_K_UNVERIFIED:
		say(out, P, "kernel: ATTACHED BUT NOT VERIFIED: %s: it guards nothing",
		    d->verify_why ? d->verify_why : "the self-test failed");
		break;
	case STATUS_K_DETACHED:
		if (d->kernel_err)
			say(out, P, "kernel: not attached (%s)", d->kernel_err);
		else
			say(out, P, "kernel: not attached");
		break;
	case STATUS_K_UNAVAILABLE:
		say(out, P,
		    "kernel: not available (built without enforce, or not asked for under --root)");
		break;
	case STATUS_K_UNKNOWN:
		say(out, P, "kernel: unknown: %s", d->kernel_err ? d->kernel_err : "");
		break;
	}
}

void status_render_text(FILE *out, const char *P, const struct status_model *m,
			const struct status_decision *d)
{
	protected_line(out, P, m, d);
	say(out, P, "layer: %s", d->layer);
	say(out, P, "version: pmuguard %s", m->o->version ? m->o->version : "unknown");
	preload_lines(out, P, m);
	kernel_lines(out, P, m, d);
	if (*m->containers) {
		if (d->containers_covered)
			say(out, P,
			    "containers: %s running (%s): covered by the kernel layer only (the "
			    "preload does not reach into containers)",
			    m->containers, m->containers_seen);
		else
			say(out, P,
			    "containers: %s running (%s): NOT covered: the preload does not reach "
			    "into containers; only the kernel layer does (pmuguard enforce start, or "
			    "the DaemonSet)",
			    m->containers, m->containers_seen);
	}
	if (d->unlocked)
		say(out, P,
		    "policy: NOT LOCKED: any user can switch the preload off in their own processes "
		    "(PMUGUARD_MODE=off, or PMUGUARD_SNAPSHOT naming a healthy machine); lock = yes "
		    "in %s stops that (pmuguard-fleet install sets it, unless --no-lock)",
		    GUARD_CONF_PATH);
	else if (m->listed && m->policy_locked == 1)
		say(out, P, "policy: locked (%s): users cannot switch the guard off",
		    m->policy_lock_why);
	if (*m->policy_bad)
		say(out, P, "policy: ignored: %s (pmuguard.conf(5))", m->policy_bad);
	if (d->verdict == STATUS_UNKNOWN)
		say(out, P, "probe verdict: unknown (pmuguard probe exited %d)", m->probe_exit);
	else
		say(out, P, "probe verdict: %s", verdict_word(d->verdict));
	for (unsigned i = 0; i < m->n_progs; i++) {
		const struct status_prog *p = &m->progs[i];
		if (!strcmp(p->layer, "kernel"))
			say(out, P,
			    "blocked this boot: %s, %" PRIu64
			    " time(s) (kernel layer: the follower's "
			    "entries, from root)",
			    p->program, p->reports);
		else
			say(out, P,
			    "blocked this boot: %s, %" PRIu64
			    " report(s) (%s layer: the process's own "
			    "reports, which any user can write)",
			    p->program, p->reports, p->layer);
	}
	/* Where the follower's entries named none (it does not run, or no
	 * journal), the guard's own map names the last program of each user
	 * and encoding it denied. */
	bool journal_kernel = false;
	for (unsigned i = 0; i < m->n_progs; i++)
		journal_kernel |= !strcmp(m->progs[i].layer, "kernel");
	for (unsigned i = 0; !journal_kernel && i < m->kernel.n_kprogs; i++) {
		const struct status_kprog *k = &m->kernel.kprogs[i];
		say(out, P,
		    "blocked by the kernel guard: %s (uid %" PRIu64 "), config %s, %" PRIu64
		    " time(s) (the guard's own map: the last program of that user and "
		    "encoding)",
		    k->program, k->uid, k->config, k->calls);
	}
	/* A healthy host with no preload listed has no reports to place or
	 * count: those lines would only be noise (the JSON keeps them). */
	if (d->verdict == STATUS_SAFE && !m->listed && (!m->log_counted || !m->blocks))
		return;
	say(out, P, "preload reports go to: %s", m->reports_to);
	if (!m->log_counted) {
		say(out, P, "preload blocks reported since boot: unknown (%s)", m->log_why);
	} else {
		say(out, P,
		    "preload blocks reported since boot: %" PRIu64
		    " (one per encoding per process; from %s%s)",
		    m->blocks, m->log_src,
		    m->log_timeless ? "; the count may span boots: some lines' times could not "
				      "be placed after this boot's start"
				    : "");
		if (m->undelivered)
			say(out, P,
			    "preload reports not delivered (the log was full or away), as later "
			    "reports say: %" PRIu64,
			    m->undelivered);
	}
}
