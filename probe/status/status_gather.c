// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The facts of `pmuguard status`, read once: the preload file and its
 * entry, whether the loader takes the library, which running processes map
 * it and which of the others hold perf event files, the canary and the
 * kernel layer's document (children run by status_run.c, their documents
 * read by status_kv.c).  What cannot be read is a fact with its reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "status.h"

#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

extern char **environ;

/* --- Paths under --root ---------------------------------------------------- */

/* Does real (a resolved path) lie in the resolved root? */
static bool in_tree(const char *real, const char *root)
{
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return true;
	return strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

int status_in_root(const char *root, const char *path, char *out, size_t size)
{
	char rreal[PATH_MAX];
	if (!realpath(root, rreal))
		return -errno;
	char real[PATH_MAX];
#ifdef SYS_openat2
	/* The kernel resolves it as a chroot would: an absolute link or ".."
	 * stays in the tree (fs/namei.c, LOOKUP_IN_ROOT), with no window
	 * between the check and the open. */
	int dir = open(rreal, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	struct open_how how = {.flags = O_PATH | O_CLOEXEC,
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	int fd = (int)syscall(SYS_openat2, dir, path, &how, sizeof(how));
	int e = errno;
	close(dir);
	if (fd >= 0) {
		char link[64];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(link, real, sizeof(real) - 1);
		e = errno;
		close(fd);
		if (n <= 0)
			return -e;
		real[n] = '\0';
		/* Checked still: the name of a file moved out meanwhile. */
		if (!in_tree(real, rreal))
			return -EXDEV;
		if (snprintf(out, size, "%s", real) >= (int)size)
			return -ENAMETOOLONG;
		return 0;
	}
	if (e != ENOSYS && e != EPERM)
		return -e;
#endif
	/* Without openat2 (before 5.6, or a seccomp filter that refuses
	 * it): the path the host resolves, refused where it leaves the tree. */
	char joined[PATH_MAX];
	if (snprintf(joined, sizeof(joined), "%s/%s", rreal, path) >= (int)sizeof(joined))
		return -ENAMETOOLONG;
	if (!realpath(joined, real))
		return -errno;
	if (!in_tree(real, rreal))
		return -EXDEV;
	if (snprintf(out, size, "%s", real) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

/* The first line of text into buf. */
static void first_line(char *buf, size_t size, const char *text)
{
	size_t n = text ? strcspn(text, "\n") : 0;
	snprintf(buf, size, "%.*s", (int)n, text ? text : "");
}

/* --- The preload --------------------------------------------------------- */

/* Is lib one of the file's lines, exactly (ours always stands alone)? */
static bool has_entry(const char *file, const char *lib)
{
	FILE *f = fopen(file, "re");
	if (!f)
		return false;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	bool found = false;
	while (!found && (n = getline(&line, &cap, f)) >= 0) {
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		found = strcmp(line, lib) == 0;
	}
	free(line);
	fclose(f);
	return found;
}

static void utc_iso(char *buf, size_t size, time_t t)
{
	struct tm tm;
	if (!gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		buf[0] = '\0';
}

static void gather_preload(struct status_model *m)
{
	const struct status_opts *o = m->o;
	snprintf(m->preload, sizeof(m->preload), "%s", o->preload);
	snprintf(m->lib, sizeof(m->lib), "%s", o->lib ? o->lib : "");
	const char *target = o->preload_target ? o->preload_target : o->preload;
	/* An empty target: the caller found none in the tree under --root. */
	m->listed = !o->preload_insane && *m->lib && *target && has_entry(target, m->lib);
	struct stat st;
	/* A file whose time cannot be read says "unknown" (empty), not 1970. */
	if (m->listed && stat(target, &st) == 0)
		utc_iso(m->since, sizeof(m->since), st.st_mtime);
}

/* The tree's library copied where uid 65534 can read it (a directory of
 * root's, 0755, in the temporary directory; the file 0644): under --root,
 * as root, the loader's check runs as nobody on these bytes, whatever the
 * tree's directories let nobody read.  The copy's path into path; 0 or
 * -errno (nothing left behind). */
static int copy_for_nobody(const char *lib, char *dir, size_t dsize, char *path, size_t psize)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || *tmp != '/')
		tmp = "/tmp";
	if (snprintf(dir, dsize, "%s/pmuguard-status-XXXXXX", tmp) >= (int)dsize)
		return -ENAMETOOLONG;
	if (!mkdtemp(dir))
		return -errno;
	if (snprintf(path, psize, "%s/libpmuguard.so", dir) >= (int)psize) {
		rmdir(dir);
		return -ENAMETOOLONG;
	}
	int err = 0;
	int in = open(lib, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	int out = in < 0 ? -1
			 : open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	struct stat st;
	if (in < 0 || out < 0 || fchmod(out, 0644) != 0 || chmod(dir, 0755) != 0 ||
	    fstat(in, &st) != 0)
		err = -errno;
	/* The kernel copies (sendfile(2), file to file since 2.6.33): no
	 * buffer here, and a short copy is continued until st_size. */
	for (off_t left = err ? 0 : st.st_size; left > 0;) {
		ssize_t k = sendfile(out, in, NULL, (size_t)left);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			err = -errno;
		if (k <= 0)
			break; /* an error, or the end (a file that shrank) */
		left -= k;
	}
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) != 0 && !err)
		err = -errno;
	if (err) {
		unlink(path);
		rmdir(dir);
	}
	return err;
}

static void gather_loads(struct status_model *m)
{
	const struct status_opts *o = m->o;
	struct stat st;
	if (!*m->lib || !o->lib_at || !*o->lib_at || stat(o->lib_at, &st) != 0 ||
	    !S_ISREG(st.st_mode)) {
		snprintf(m->load_why, sizeof(m->load_why), "%s%s does not exist",
			 o->lib_at && *o->lib_at ? o->lib_at
			 : o->root               ? o->root
						 : "",
			 o->lib_at && *o->lib_at ? "" : "libpmuguard.so");
		return;
	}
	/* Under --root the library is the tree's code: never run as root.
	 * A private copy of it is loaded as nobody, with no new privileges. */
	bool drop = o->root && *o->root && o->me == 0;
	char dir[PATH_MAX], copy[PATH_MAX];
	const char *lib = o->lib_at;
	if (drop) {
		int err = copy_for_nobody(o->lib_at, dir, sizeof(dir), copy, sizeof(copy));
		if (err) {
			snprintf(m->load_why, sizeof(m->load_why),
				 "%s could not be copied for the loader's check as uid 65534: %s",
				 o->lib_at, strerror(-err));
			return;
		}
		lib = copy;
	}
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 2, sizeof(*env));
	char pre[PATH_MAX + 16];
	snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", lib);
	size_t k = 0;
	for (size_t i = 0; env && i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
			env[k++] = environ[i];
	if (env)
		env[k] = pre;
	char *argv[] = {"/bin/true", NULL};
	char *out = NULL;
	int rc = env ? status_run(argv, env, true, drop, &out, NULL) : -1;
	free(env);
	if (drop) {
		unlink(copy);
		rmdir(dir);
	}
	if (rc == 0 && out && !*out) {
		m->loads = true;
	} else {
		first_line(m->load_why, sizeof(m->load_why), out);
		if (!*m->load_why)
			snprintf(m->load_why, sizeof(m->load_why), "/bin/true %s with it preloaded",
				 status_run_words(rc, (char[64]){0}, 64));
	}
	free(out);
}

/* --- The canary ------------------------------------------------------ */

static void gather_canary(struct status_model *m)
{
	const struct status_opts *o = m->o;
	m->canary = STATUS_C_UNKNOWN;
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
	switch (rc) {
	case 0: m->canary = STATUS_C_REFUSED; break;
	case 3: {
		m->canary = STATUS_C_REACHED;
		const char *mapped = status_kv_get(&kv, "library_mapped");
		if (mapped && strcmp(mapped, "false") == 0)
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
	m->kernel = STATUS_K_UNAVAILABLE;
	m->kernel_asked = !(o->root && *o->root) || o->layer_given || o->kernel_only;
	if (!m->kernel_asked || !o->pmuguard || !*o->pmuguard)
		return;
	char *argv[] = {(char *)o->pmuguard, "enforce", "status", "--keys", NULL};
	char *out = NULL;
	int rc = status_run(argv, environ, false, false, &out, NULL);
	status_kv_parse(&m->enf, out);
	m->kernel_exit = rc;
	switch (rc) {
	case 0:
	case 7: /* attached, and events of the class opened before it exist */
		m->kernel = STATUS_K_ATTACHED;
		break;
	case 8: /* attached, but its self-test failed: it does not run */
		m->kernel = STATUS_K_UNVERIFIED;
		break;
	case 9: /* attached in audit mode: it counts and allows */
		m->kernel = STATUS_K_AUDIT;
		break;
	case 6: m->kernel = STATUS_K_DETACHED; break;
	case 5: return;
	default: {
		m->kernel = STATUS_K_UNKNOWN;
		const char *e = status_kv_get(&m->enf, "error");
		snprintf(m->kernel_err, sizeof(m->kernel_err), "pmuguard enforce status %s%s%s",
			 status_run_words(rc, (char[64]){0}, 64), e && *e ? ": " : "",
			 e && *e ? e : "");
		return;
	}
	}
	const char *schema = status_kv_get(&m->enf, "schema");
	char want[16];
	snprintf(want, sizeof(want), "%d", STATUS_ENF_SCHEMA);
	if (!schema || strcmp(schema, want) != 0) {
		m->kernel = STATUS_K_UNKNOWN;
		snprintf(
			m->kernel_err, sizeof(m->kernel_err),
			"pmuguard enforce status --keys gave schema '%s', pmuguard status reads %d",
			schema ? schema : "", STATUS_ENF_SCHEMA);
	}
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

void status_gather(struct status_model *m, const struct status_opts *o)
{
	m->o = o;
	if (o->kernel_only) {
		m->canary = STATUS_C_UNKNOWN;
		gather_kernel(m);
		return;
	}
	gather_preload(m);
	gather_loads(m);
	status_gather_processes(m);
	gather_kernel(m);
	gather_canary(m);
	status_gather_log(m);
}

void status_gather_probe(struct status_model *m, int exit, char *keys)
{
	m->probe_exit = exit;
	gather_probe_keys(m, keys);
}

void status_free(struct status_model *m, struct status_decision *d)
{
	free(m->risk);
	free(m->enf.text);
	free(m->lenc);
	free(m->progs);
	for (unsigned i = 0; i < m->n_containers; i++)
		free(m->container_list[i]);
	free(d->kenc);
	free(d->kprogs);
}
