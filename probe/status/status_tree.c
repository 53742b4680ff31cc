// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A tree under --root is data, never code: the one home of the rules for
 * it (status, and pmuguard-fleet through `pmuguard tree`).
 *
 *  - a path is resolved in the tree as a chroot would (openat2
 *    RESOLVE_IN_ROOT), and one whose real path leaves it is refused;
 *  - a file is read as the preload reads its own (non-blocking, regular
 *    files only, capped): a FIFO cannot hang us, a sparse 8 GiB file is
 *    not read whole;
 *  - the preload file is read as the loader parses it, the policy file by
 *    the guard's own parser and settings (an empty environment: the
 *    tree's processes are not ours), so a tree is judged by the rules of
 *    a live host;
 *  - the tree's library runs only as uid 65534 (no groups, no
 *    capabilities, no new privileges) on a private copy of its bytes, with
 *    an environment of a fixed PATH and nothing of the caller's, and
 *    nothing it starts outlives the check (a PID namespace of its own).
 * The live host (root NULL or "") goes through the same readers.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf.h"
#include "settings.h"
#include "status.h"

#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

static bool live(const char *root)
{
	return !root || !*root;
}

/* Does real (a resolved path) lie in the resolved root? */
static bool in_tree(const char *real, const char *root)
{
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return true;
	return strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

/* path opened in the tree with flags (O_PATH to resolve only), its real
 * path into real; the descriptor or -errno (-EXDEV: it leads out). */
static int open_in_root(const char *root, const char *path, int flags, char *real, size_t size)
{
	char rreal[PATH_MAX];
	if (!realpath(root, rreal))
		return -errno;
	int fd = -1, e = ENOSYS;
#ifdef SYS_openat2
	/* The kernel resolves it as a chroot would: an absolute link or ".."
	 * stays in the tree (fs/namei.c, LOOKUP_IN_ROOT), with no window
	 * between the check and the open. */
	int dir = open(rreal, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC),
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	fd = (int)syscall(SYS_openat2, dir, path, &how, sizeof(how));
	e = errno;
	close(dir);
	if (fd < 0 && e != ENOSYS && e != EPERM)
		return -e;
#endif
	char tmp[PATH_MAX];
	if (fd >= 0) {
		char link[64];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(link, tmp, sizeof(tmp) - 1);
		if (n <= 0) {
			e = errno;
			close(fd);
			return -e;
		}
		tmp[n] = '\0';
	} else {
		/* Without openat2 (before 5.6, or a seccomp filter that
		 * refuses it): the path the host resolves, refused where it
		 * leaves the tree. */
		char joined[PATH_MAX];
		if (snprintf(joined, sizeof(joined), "%s/%s", rreal, path) >= (int)sizeof(joined))
			return -ENAMETOOLONG;
		if (!realpath(joined, tmp))
			return -errno;
		if (!in_tree(tmp, rreal))
			return -EXDEV;
		fd = open(tmp, flags | O_CLOEXEC);
		if (fd < 0)
			return -errno;
	}
	/* Checked still: the name of a file moved out meanwhile. */
	if (!in_tree(tmp, rreal) || snprintf(real, size, "%s", tmp) >= (int)size) {
		close(fd);
		return in_tree(tmp, rreal) ? -ENAMETOOLONG : -EXDEV;
	}
	return fd;
}

int status_in_root(const char *root, const char *path, char *out, size_t size)
{
	int fd = open_in_root(root, path, O_PATH, out, size);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int status_reopen_regular(int pfd, int flags, int dir, const char *path, bool follow)
{
	struct stat st, now;
	int err = fstat(pfd, &st) != 0   ? -errno
		  : S_ISLNK(st.st_mode)  ? -ELOOP
		  : !S_ISREG(st.st_mode) ? -EINVAL
					 : 0;
	int fd = -1;
	if (!err) {
		char link[64];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", pfd);
		fd = open(link, flags | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			/* No /proc (a chroot, as rpm --root runs its scriptlets
			 * in): by name, and it must still be the file checked.
			 * A device swapped in between is opened (a race only a
			 * writer of its directory can run), but never read. */
			fd = openat(dir, path, flags | (follow ? 0 : O_NOFOLLOW) | O_CLOEXEC);
			if (fd >= 0 && (fstat(fd, &now) != 0 || now.st_dev != st.st_dev ||
					now.st_ino != st.st_ino)) {
				close(fd);
				fd = -1;
				errno = EAGAIN;
			}
		}
		if (fd < 0)
			err = -errno;
	}
	close(pfd);
	return err ? err : fd;
}

int status_tree_read(const char *root, const char *path, size_t cap, char **out, size_t *len,
		     struct stat *st)
{
	*out = NULL;
	*len = 0;
	/* O_NONBLOCK: a FIFO put in place of the file must not hang us. */
	const int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY;
	char real[PATH_MAX];
	/* O_PATH first: a device node put in place of the file is never
	 * opened (its driver would run on this host: a watchdog's open arms
	 * it). */
	int fd = live(root) ? open(path, O_PATH | O_CLOEXEC)
			    : open_in_root(root, path, O_PATH, real, sizeof(real));
	if (fd < 0)
		return live(root) ? -errno : fd;
	/* (Without /proc, by name: this host's as the loader reads it, its
	 * last link followed; the tree's as it was resolved, none.) */
	fd = status_reopen_regular(fd, flags, AT_FDCWD, live(root) ? path : real, live(root));
	if (fd < 0)
		return fd;
	struct stat own;
	return status_read_fd(fd, cap, false, st ? st : &own, out, len);
}

int status_read_fd(int fd, size_t cap, bool exact, struct stat *st, char **out, size_t *len)
{
	int err = 0;
	if (fstat(fd, st) != 0)
		err = -errno;
	else if (!S_ISREG(st->st_mode))
		err = -EINVAL; /* a FIFO, a device, a directory: no file of ours */
	else if ((uint64_t)st->st_size > cap)
		err = -EFBIG; /* a sparse giant is not read whole */
	char *buf = err ? NULL : malloc((size_t)st->st_size + 1);
	if (!err && !buf)
		err = -ENOMEM;
	size_t n = 0;
	while (!err) {
		if (n == (size_t)st->st_size) {
			if (!exact)
				break;
			/* Read to the end, not to the size seen: a file that
			 * grew is kept whole or refused. */
			char extra;
			ssize_t k = read(fd, &extra, 1);
			if (k > 0)
				err = -EAGAIN;
			else if (k < 0 && errno == EINTR)
				continue;
			else if (k < 0)
				err = -errno;
			break;
		}
		ssize_t k = read(fd, buf + n, (size_t)st->st_size - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			err = -errno;
		else if (k == 0 && exact)
			err = -EAGAIN; /* it shrank while read */
		else if (k == 0)
			break; /* the end: a file that shrank */
		else
			n += (size_t)k;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/*
 * glibc's rtld.c (dl_main, "/etc/ld.so.preload"): every '#' to the end of
 * its line is blanked, then the names are split at ": \t\n" by strsep()
 * on the text as a C string, so a NUL ends the list: the loader reads no
 * name after it.  A last name without a separator is taken as it is.
 */
bool status_preload_lists(const char *text, size_t len, const char *lib)
{
	size_t want = strlen(lib);
	if (!want)
		return false;
	bool comment = false;
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		char c = i < len ? text[i] : '\0';
		if (c == '\n')
			comment = false;
		else if (c == '#')
			comment = true;
		bool sep = c == '\0' || comment || c == ':' || c == ' ' || c == '\t' || c == '\n';
		if (sep) {
			if (i > start && i - start == want && memcmp(text + start, lib, want) == 0)
				return true;
			start = i + 1;
		}
		if (c == '\0')
			return false;
	}
	return false;
}

/* Where a package puts the library, as the loader reads it: the one list
 * (status, and pmuguard-fleet through `pmuguard tree`). */
static const char *const lib_dirs[] = {
	"/usr/lib/x86_64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu",
	"/usr/lib64",
	"/usr/lib",
	"/usr/local/lib/x86_64-linux-gnu",
	"/usr/local/lib64",
	"/usr/local/lib",
};

bool status_tree_find_lib(const char *root, char *lib, size_t lsize, char *at, size_t asize)
{
	for (size_t i = 0; i < sizeof(lib_dirs) / sizeof(lib_dirs[0]); i++) {
		struct stat st;
		snprintf(lib, lsize, "%s/pmuguard/libpmuguard.so", lib_dirs[i]);
		if (live(root) ? snprintf(at, asize, "%s", lib) >= (int)asize
			       : status_in_root(root, lib, at, asize) != 0)
			continue;
		if (stat(at, &st) == 0 && S_ISREG(st.st_mode))
			return true;
	}
	*lib = *at = '\0';
	return false;
}

/* --- The tree's policy ------------------------------------------------------- */

/* The tree's policy file and its directories (its /etc and its root),
 * judged as guard_conf_judge_trust judges the live host's, by the tree's
 * own names: a directory anyone but root may write lets them put another
 * policy in its place. */
static void judge_tree_trust(struct guard_conf *c, const char *root, const struct stat *file,
			     bool owner_counts)
{
	struct stat f = *file;
	if (!owner_counts)
		f.st_uid = 0;
	if (guard_conf_judge_one(c, GUARD_CONF_PATH, &f))
		return;
	static const char *const dirs[] = {"/etc", "/"};
	for (size_t i = 0; i < 2; i++) {
		char real[PATH_MAX];
		struct stat st;
		if (status_in_root(root, dirs[i], real, sizeof(real)) != 0 || stat(real, &st) != 0)
			continue;
		if (!owner_counts)
			st.st_uid = 0;
		if (guard_conf_judge_one(c, dirs[i], &st))
			return;
	}
}

/* What the guard's own settings make of c (read with err), with nothing
 * of an environment: what every process of the tree gets from the file
 * alone. */
static void judge_policy(struct status_tree_policy *p, const struct guard_conf *c, int err)
{
	struct guard_env env = {.visible = true};
	struct guard_cli cli = {.mode = -1};
	struct guard_settings set;
	guard_settings_resolve(c, err, &env, &cli, true, &set);
	p->mode = set.mode;
	p->locked = set.locked;
	p->untrusted = err == 0 && c->untrusted;
	snprintf(p->untrusted_why, sizeof(p->untrusted_why), "%s",
		 p->untrusted ? c->trust_why : "");
	if (set.mode == GUARD_OFF || set.mode == GUARD_AUDIT) {
		p->state = STATUS_POLICY_LETS_THROUGH;
		snprintf(p->why, sizeof(p->why),
			 "the tree's %s says mode = %s: the library lets the hazard class through "
			 "for every process of the tree",
			 GUARD_CONF_PATH, guard_mode_name(set.mode));
	} else if (set.snapshot) {
		p->state = STATUS_POLICY_UNKNOWN;
		snprintf(p->why, sizeof(p->why),
			 "the tree's %s reads the facts from a snapshot (%s): what the library "
			 "decides there is unknown",
			 GUARD_CONF_PATH, set.snapshot);
	} else {
		p->state = STATUS_POLICY_GUARDS;
		snprintf(p->why, sizeof(p->why), "the tree's policy: mode %s%s%s",
			 guard_mode_name(set.mode), set.locked ? ", locked" : "",
			 err ? " (its policy file could not be read: the defaults, locked)" : "");
	}
}

void status_tree_policy(struct status_tree_policy *p, const char *root)
{
	memset(p, 0, sizeof(*p));
	struct guard_conf *c = calloc(1, sizeof(*c));
	if (!c) {
		p->state = STATUS_POLICY_UNKNOWN;
		snprintf(p->why, sizeof(p->why), "out of memory reading the tree's policy");
		return;
	}
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	int err = status_tree_read(root, GUARD_CONF_PATH, 1u << 20, &text, &len, &st);
	if (err == -ENOENT) {
		guard_conf_parse(c, "", 0, GUARD_CONF_PATH);
		err = 0;
	} else if (err == 0) {
		guard_conf_parse(c, text, len, GUARD_CONF_PATH);
		c->present = true;
		if (live(root))
			guard_conf_judge_trust(c, GUARD_CONF_PATH, &st);
		else
			judge_tree_trust(c, root, &st, true);
	}
	judge_policy(p, c, err);
	/* A tree's owners are its builder's (a rootless build, an unpacked
	 * image): a file that is not root's here may be root's where the tree
	 * is deployed, and say there what it says.  Where the two readings
	 * disagree on whether the library guards, it is not known. */
	if (!live(root) && p->untrusted && p->state == STATUS_POLICY_GUARDS) {
		struct status_tree_policy there;
		c->untrusted = false;
		judge_tree_trust(c, root, &st, false); /* its modes travel with it */
		judge_policy(&there, c, err);
		if (there.state != STATUS_POLICY_GUARDS) {
			p->state = STATUS_POLICY_UNKNOWN;
			snprintf(p->why, sizeof(p->why),
				 "%.200s; where it is root's and no other may write it, %.250s",
				 p->untrusted_why + 2, there.why);
		}
	}
	free(text);
	free(c);
}

/* --- The tree's code, run as nobody ------------------------------------------ */

/* The tree's library copied where uid 65534 can read it (a directory of
 * root's, 0755, in the temporary directory; the file 0644): as root, the
 * loader's check runs as nobody on these bytes, whatever the tree's
 * directories let nobody read.  The copy's path into path; 0 or -errno
 * (nothing left behind). */
/* The largest library copied for a check: pmuguard's is some 200 KiB. */
#define LIB_COPY_MAX (64u << 20)

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
	/* O_PATH first: a device node at the library's place is never opened. */
	int in = open(lib, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	if (in >= 0 &&
	    (in = status_reopen_regular(in, O_RDONLY | O_NONBLOCK, AT_FDCWD, lib, false)) < 0) {
		err = in;
		in = -1;
	}
	int out = in < 0 ? -1
			 : open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	struct stat st;
	if (!err && (in < 0 || out < 0 || fchmod(out, 0644) != 0 || chmod(dir, 0755) != 0 ||
		     fstat(in, &st) != 0))
		err = -errno;
	else if (!err && (uint64_t)st.st_size > LIB_COPY_MAX)
		err = -EFBIG; /* a sparse giant would fill TMPDIR */
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

/* --- Nothing of it outlives the check ------------------------------------------ */

/* The namespace's init: our code, never the tree's.  It runs the check
 * (status_run(): the library as its pid 2, in a session of its own, as
 * nobody where asked) and passes its words and exit on through fd; what
 * the check leaves behind is orphaned to it.  A check that gave no
 * answer is said in words, with exit 125. */
static _Noreturn void pidns_init(char *const argv[], char *const env[], bool as_nobody, int fd)
{
	/* Killed with the caller, and the namespace with it.  (Its parent is
	 * outside the namespace, so getppid() is 0 here and a caller already
	 * gone cannot be seen: the check is bounded by its deadline all the
	 * same.) */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	setsid();
	char *out = NULL, words[128];
	size_t len = 0;
	int rc = status_run(argv, env, true, as_nobody, &out, &len);
	if (rc < 0) {
		dprintf(fd, "%s %s with it preloaded\n", argv[0],
			status_run_words(rc, words, sizeof(words)));
		_exit(125);
	}
	for (size_t done = 0; done < len;) {
		ssize_t n = write(fd, out + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(125);
		done += (size_t)n;
	}
	_exit(rc & 0xff);
}

/* The check in a PID namespace of its own, led by pidns_init().  When a
 * namespace's init exits, the kernel kills every process left in it and
 * waits until all are gone before the init can be reaped
 * (kernel/pid_namespace.c, zap_pid_ns_processes(), from exit_notify()):
 * the wait for it is a wait for all, also where our deadline kills it.
 * status_run()'s answer into *rc and 0, or -errno where no namespace
 * could be made (not root, or refused): then nothing ran. */
static int run_in_pidns(char *const argv[], char *const env[], bool as_nobody, char **out, int *rc)
{
	*out = NULL;
	*rc = -ECHILD;
	int self = open("/proc/thread-self/ns/pid", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return -errno;
	if (unshare(CLONE_NEWPID) != 0) {
		int e = -errno;
		close(self);
		return e;
	}
	/* Only our next child is the namespace's (its init); then our
	 * children are born in our own namespace again. */
	int p[2] = {-1, -1}, err = 0;
	pid_t pid = pipe2(p, O_CLOEXEC) == 0 ? fork() : -1;
	if (pid == 0) {
		close(p[0]);
		pidns_init(argv, env, as_nobody, p[1]);
	}
	if (pid < 0)
		err = -errno;
	if (setns(self, CLONE_NEWPID) != 0 && !err)
		err = -errno; /* root in its own namespace: not seen to fail */
	close(self);
	if (p[1] >= 0)
		close(p[1]);
	if (pid < 0) {
		if (p[0] >= 0)
			close(p[0]);
		return err;
	}
	*rc = status_child_collect(pid, p[0], out, NULL);
	if (err) {
		free(*out);
		*out = NULL;
		*rc = err;
	}
	return 0;
}

/* The children of this process (their /proc/PID/stat's ppid: the
 * children files need CONFIG_PROC_CHILDREN), malloc'd into *pids; their
 * count.  None where /proc cannot be read. */
static size_t children_of_self(pid_t **pids)
{
	*pids = NULL;
	size_t n = 0, cap = 0;
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	pid_t me = getpid();
	for (struct dirent *e; (e = readdir(d));) {
		char path[64], buf[512];
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/stat", e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t k = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (k <= 0)
			continue;
		buf[k] = '\0';
		/* "pid (comm) state ppid ...": comm may hold anything, ')'
		 * included, so the fields start after the last ')'. */
		char *close_paren = strrchr(buf, ')');
		char state;
		int ppid;
		if (!close_paren || sscanf(close_paren + 1, " %c %d", &state, &ppid) != 2 ||
		    ppid != me)
			continue;
		if (n == cap) {
			pid_t *more = realloc(*pids, (cap = cap ? 2 * cap : 16) * sizeof(**pids));
			if (!more)
				break;
			*pids = more;
		}
		(*pids)[n++] = (pid_t)atoi(e->d_name);
	}
	closedir(d);
	return n;
}

static bool listed(const pid_t *pids, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* The check where no PID namespace can be made: we are its subreaper, so
 * whatever it leaves is orphaned to us, and is killed and reaped (and
 * what that orphans in turn) until no child of ours is left but those we
 * had before.  What remains: a process the check had another process
 * start for it (one of its uid it ptraces or writes to, a daemon asked
 * over a socket: cron, at, systemd --user) is no descendant of ours. */
static int run_reaped(char *const argv[], char *const env[], bool as_nobody, char **out)
{
	int was = 0;
	prctl(PR_GET_CHILD_SUBREAPER, &was, 0, 0, 0);
	pid_t *before;
	size_t nb = children_of_self(&before);
	if (!was)
		prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	int rc = status_run(argv, env, true, as_nobody, out, NULL);
	for (bool found = true; found;) {
		found = false;
		pid_t *now;
		size_t n = children_of_self(&now);
		for (size_t i = 0; i < n; i++) {
			if (listed(before, nb, now[i]))
				continue;
			kill(now[i], SIGKILL);
			/* __WALL: a clone with another exit signal is waited
			 * too; one that cannot be waited ends the loop. */
			pid_t w;
			while ((w = waitpid(now[i], NULL, __WALL)) < 0 && errno == EINTR)
				;
			found = found || w == now[i];
		}
		free(now);
	}
	if (!was)
		prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	free(before);
	return rc;
}

/* The first line of text into buf. */
static void first_line(char *buf, size_t size, const char *text)
{
	size_t n = text ? strcspn(text, "\n") : 0;
	snprintf(buf, size, "%.*s", (int)n, text ? text : "");
}

bool status_tree_lib_loads(const char *lib_at, bool as_nobody, char *why, size_t size)
{
	*why = '\0';
	struct stat st;
	if (!lib_at || !*lib_at || stat(lib_at, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, size, "%s does not exist",
			 lib_at && *lib_at ? lib_at : "libpmuguard.so");
		return false;
	}
	char dir[PATH_MAX], copy[PATH_MAX];
	const char *lib = lib_at;
	if (as_nobody) {
		int err = copy_for_nobody(lib_at, dir, sizeof(dir), copy, sizeof(copy));
		if (err) {
			snprintf(why, size,
				 "%s could not be copied for the loader's check as uid 65534: %s",
				 lib_at, strerror(-err));
			return false;
		}
		lib = copy;
	}
	/* Nothing of the caller's environment: the library's constructor is
	 * code we do not own (a tree's, or a file anyone could have put
	 * there), and root's environment holds root's secrets. */
	char pre[PATH_MAX + 16];
	snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", lib);
	char *env[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", pre, NULL};
	char *argv[] = {"/bin/true", NULL};
	char *out = NULL;
	int rc;
	if (run_in_pidns(argv, env, as_nobody, &out, &rc) != 0)
		rc = run_reaped(argv, env, as_nobody, &out);
	if (as_nobody) {
		unlink(copy);
		rmdir(dir);
	}
	bool loads = rc == 0 && out && !*out;
	if (!loads) {
		first_line(why, size, out);
		if (!*why)
			snprintf(why, size, "/bin/true %s with it preloaded",
				 status_run_words(rc, (char[64]){0}, 64));
	}
	free(out);
	return loads;
}
