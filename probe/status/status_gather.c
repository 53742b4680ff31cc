// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The facts of `pmuguard status`, read once: the preload file and its
 * entry, whether the loader takes the library, which running processes map
 * it and which of the others hold perf event files, the canary and the
 * kernel layer's document (children run by status_run.c; their documents
 * read by status_kv.c, the kernel layer's by status_kernel.c).  What cannot be read is a fact with its reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "conf.h"
#include "status.h"

extern char **environ;

/* The first line of text into buf. */
static void first_line(char *buf, size_t size, const char *text)
{
	size_t n = text ? strcspn(text, "\n") : 0;
	snprintf(buf, size, "%.*s", (int)n, text ? text : "");
}

/* --- The preload --------------------------------------------------------- */

/* The preload file (PRELOAD_CAP at most: the loader reads it whole, and
 * no real one is near it) as the loader parses it; its time. */
#define PRELOAD_CAP (1u << 20)
static void gather_preload(struct status_model *m)
{
	const struct status_opts *o = m->o;
	snprintf(m->preload, sizeof(m->preload), "%s", o->preload);
	snprintf(m->lib, sizeof(m->lib), "%s", o->lib ? o->lib : "");
	const char *target = o->preload_target ? o->preload_target : o->preload;
	/* An empty target: the caller found none in the tree under --root. */
	if (o->preload_insane || !*m->lib || !*target)
		return;
	/* The caller resolved it already (in the tree, where there is one):
	 * read as a file of this host, by the preload's reader. */
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	int err = status_tree_read(NULL, target, PRELOAD_CAP, &text, &len, &st);
	if (err == -EINVAL)
		snprintf(m->listed_why, sizeof(m->listed_why), "%s is not a regular file", target);
	else if (err == -EFBIG)
		snprintf(m->listed_why, sizeof(m->listed_why), "%s is larger than %u KiB: not read",
			 target, PRELOAD_CAP >> 10);
	else if (err && err != -ENOENT)
		snprintf(m->listed_why, sizeof(m->listed_why), "%s cannot be read: %s", target,
			 strerror(-err));
	m->listed = err == 0 && status_preload_lists(text, len, m->lib);
	free(text);
	/* A file whose time cannot be read says "unknown" (empty), not 1970
	 * nor the formatter's "?". */
	if (m->listed && !doc_time_utc(m->since, sizeof(m->since), st.st_mtime, DOC_TIME_ISO))
		m->since[0] = '\0';
}

static void gather_loads(struct status_model *m)
{
	const struct status_opts *o = m->o;
	bool under_root = o->root && *o->root;
	if (!*m->lib || !o->lib_at || !*o->lib_at) {
		/* The tree named as a path joins a name with one '/' (a root
		 * given as "TREE/" too); no library found is said as such, not
		 * as a path nobody looked at. */
		const char *root = under_root ? o->root : "";
		int n = (int)strlen(root);
		while (n > 1 && root[n - 1] == '/')
			n--;
		n = n > 240 ? 240 : n;
		if (o->lib_at && *o->lib_at)
			snprintf(m->load_why, sizeof(m->load_why), "%.480s does not exist",
				 o->lib_at);
		else if (*m->lib)
			snprintf(m->load_why, sizeof(m->load_why), "%.*s%.240s does not exist", n,
				 root, m->lib);
		else if (under_root)
			snprintf(m->load_why, sizeof(m->load_why),
				 "libpmuguard.so is not installed in %.*s (in none of the folders "
				 "the package puts it in)",
				 n, root);
		else
			snprintf(m->load_why, sizeof(m->load_why),
				 "libpmuguard.so is not installed (in none of the folders the "
				 "package puts it in)");
		return;
	}
	/* Under --root the library is the tree's code: never run as root. */
	m->loads = status_tree_lib_loads(o->lib_at, under_root && o->me == 0, m->load_why,
					 sizeof(m->load_why));
}

/* --- The canary ------------------------------------------------------ */

static void gather_canary(struct status_model *m)
{
	const struct status_opts *o = m->o;
	m->canary = STATUS_C_UNKNOWN;
	m->policy_locked = -1;
	if (o->root && *o->root) {
		snprintf(m->canary_why, sizeof(m->canary_why),
			 "no canary ran: the tree under --root is not this host's");
		return;
	}
	/* A clean environment: PATH, and a sanitizer build's runtime options
	 * (the tests'), nothing the guard reads. */
	char *env[4] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL, NULL, NULL};
	char asan[4096], ubsan[4096];
	int k = 1;
	const char *v = getenv("ASAN_OPTIONS");
	if (v && *v) {
		snprintf(asan, sizeof(asan), "ASAN_OPTIONS=%s", v);
		env[k++] = asan;
	}
	v = getenv("UBSAN_OPTIONS");
	if (v && *v) {
		snprintf(ubsan, sizeof(ubsan), "UBSAN_OPTIONS=%s", v);
		env[k++] = ubsan;
	}
	/* It starts in /: a command named relative to here is made absolute. */
	char cmd[PATH_MAX];
	if (o->pmuguard[0] != '/' && strchr(o->pmuguard, '/') && realpath(o->pmuguard, cmd))
		;
	else
		snprintf(cmd, sizeof(cmd), "%s", o->pmuguard);
	bool drop = o->me == 0;
	snprintf(m->canary_as, sizeof(m->canary_as), "uid %u", drop ? 65534U : (unsigned)o->me);
	char *argv[] = {cmd, "canary", NULL};
	char *out = NULL;
	int rc = status_run(argv, env, true, drop, &out, NULL);
	struct status_kv kv;
	char *copy = out ? strdup(out) : NULL;
	status_kv_parse(&kv, copy);
	status_kv_list(&kv, "policy.ignored", m->policy_bad, sizeof(m->policy_bad));
	const char *locked = status_kv_get(&kv, "policy.locked");
	const char *lock_why = status_kv_get(&kv, "policy.lock_why");
	m->policy_locked = !locked                    ? -1
			   : !strcmp(locked, "true")  ? 1
			   : !strcmp(locked, "false") ? 0
						      : -1;
	snprintf(m->policy_lock_why, sizeof(m->policy_lock_why), "%s",
		 m->policy_locked == 1 && lock_why ? lock_why : "");
	switch (rc) {
	case EXIT_OK: m->canary = STATUS_C_REFUSED; break;
	case EXIT_HAZARD: {
		m->canary = STATUS_C_REACHED;
		const char *mapped = status_kv_get(&kv, "library_mapped");
		if (mapped && strcmp(mapped, "false") == 0 && !m->listed)
			/* Not listed is no loader's failure: nothing asked it. */
			snprintf(
				m->canary_why, sizeof(m->canary_why),
				"nothing refused it for %s: %.400s does not list the library, so no "
				"process loads it",
				m->canary_as, m->preload);
		else if (mapped && strcmp(mapped, "false") == 0)
			snprintf(m->canary_why, sizeof(m->canary_why),
				 "the loader did not load the library for %s (unreadable to it, or "
				 "not listed where it looks)",
				 m->canary_as);
		else
			snprintf(m->canary_why, sizeof(m->canary_why),
				 "the library let the hazard class through for %s (its policy or "
				 "verdict: mode off or audit, lock, an unknown verdict)",
				 m->canary_as);
		break;
	}
	default: {
		char line[STATUS_WHY / 2];
		first_line(line, sizeof(line), out);
		snprintf(m->canary_why, sizeof(m->canary_why),
			 "pmuguard canary could not run as %s (it %s): %s", m->canary_as,
			 status_run_words(rc, (char[64]){0}, 64), line);
	}
	}
	free(copy);
	free(out);
}

/* --- The kernel layer ----------------------------------------------------- */

static void gather_kernel(struct status_model *m)
{
	const struct status_opts *o = m->o;
	struct status_kernel_layer *k = &m->kernel;
	k->state = ENF_GUARD_UNAVAILABLE;
	k->asked = !(o->root && *o->root) || o->layer_given || o->kernel_only;
	if (!k->asked || !o->pmuguard || !*o->pmuguard)
		return;
	char *argv[] = {(char *)o->pmuguard, "enforce", "status", "--keys", NULL};
	char *out = NULL;
	int rc = status_run(argv, environ, false, false, &out, NULL);
	status_kernel_read(k, rc, out);
}

/* --- The probe's answer --------------------------------------------------- */

static void gather_probe_keys(struct status_model *m, char *keys)
{
	struct status_kv kv;
	status_kv_parse(&kv, keys);
	const char *g = status_kv_get(&kv, "guard_state");
	m->probe_guard_unknown = g && strcmp(g, "unknown") == 0;
	status_kv_list(&kv, "containers.runtimes", m->containers, sizeof(m->containers));
	status_kv_list(&kv, "containers.evidence", m->containers_seen, sizeof(m->containers_seen));
	unsigned n = status_kv_count(&kv, "containers.runtimes");
	for (unsigned i = 0; i < n && m->n_containers < 8; i++) {
		const char *v = status_kv_row(&kv, "containers.runtimes", i, NULL);
		if (v)
			m->container_list[m->n_containers++] = strdup(v);
	}
}

/* --- This boot ------------------------------------------------------------ */

/* When this boot started, from /proc/stat's btime (the node's, also in a
 * pod: it is not namespaced); 0 under --root, whose tree has no boot of
 * ours, or where it cannot be read.  The kernel guard's counts and the
 * preload's reports start again at every boot: without it a count that
 * comes back to its old value within the hour is no change to an alert. */
static void gather_boot(struct status_model *m)
{
	if (m->o->root && *m->o->root)
		return;
	FILE *f = fopen("/proc/stat", "re");
	char line[256];
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "btime ", 6) != 0)
			continue;
		char *end;
		long long v = strtoll(line + 6, &end, 10);
		if (end != line + 6 && (*end == '\n' || !*end) && v > 0)
			m->boot_time = v;
		break;
	}
	if (f)
		fclose(f);
}

void status_gather(struct status_model *m, const struct status_opts *o)
{
	m->o = o;
	gather_boot(m);
	if (o->kernel_only) {
		m->canary = STATUS_C_UNKNOWN;
		m->policy_locked = -1; /* a pod's policy is not the node's */
		gather_kernel(m);
		return;
	}
	gather_preload(m);
	gather_loads(m);
	if (o->root && *o->root)
		status_tree_policy(&m->tree_policy, o->root);
	status_gather_processes(m);
	gather_kernel(m);
	gather_canary(m);
	if (o->root && *o->root) {
		/* No canary there: the tree's policy, by the guard's settings. */
		m->policy_locked = m->tree_policy.locked;
		if (m->tree_policy.locked)
			snprintf(m->policy_lock_why, sizeof(m->policy_lock_why),
				 "the tree's %s locks it", GUARD_CONF_PATH);
	}
	status_gather_log(m);
}

void status_gather_probe(struct status_model *m, int exit, char *keys)
{
	m->probe_exit = exit;
	gather_probe_keys(m, keys);
}

void status_free(struct status_model *m)
{
	free(m->risk);
	status_kernel_free(&m->kernel);
	free(m->lenc);
	free(m->progs);
	for (unsigned i = 0; i < m->n_containers; i++)
		free(m->container_list[i]);
}
