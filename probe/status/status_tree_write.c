// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writing in a tree under --root (and on this host): the preload file and
 * the policy, for pmuguard-fleet through `pmuguard tree --preload-add` and
 * the rest.  The reads are status_tree.c's; this is their one writer.
 *
 * A tree's directories may be another user's (a rootless image build):
 * whatever a name in them is now, it may be a link by the time root uses
 * it.  So nothing here writes, chmods or removes by a path:
 *  - a directory is opened from the tree's root one component at a time,
 *    O_NOFOLLOW, and refused where one is a link or "..";
 *  - a file is read through a descriptor opened O_NOFOLLOW (a regular file
 *    only, non-blocking, capped);
 *  - every new file is a temporary made O_EXCL in that directory, its
 *    owner and mode set on the open file, synced, and renamed within the
 *    directory's descriptor over the name: a link someone put at the name
 *    is replaced, never followed;
 *  - a removal is unlinkat() in that descriptor: a link is removed, never
 *    its target.
 * Where a write cannot be made that way, nothing is changed and the
 * reason names the path.  The caller (the fleet script) holds its run's
 * lock, so temporaries of a killed run are removed first.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "status.h"

/* Files we read before rewriting them: no preload list or policy is near
 * this, and a sparse giant must not be read whole. */
#define EDIT_CAP (1u << 20)

const char status_conf_created[] =
	"# Written by pmuguard-fleet install: no user can switch the guard off\n"
	"# (pmuguard.conf(5)).  pmuguard-fleet uninstall removes this file while\n"
	"# it is unchanged.\n"
	"lock = yes\n";

static bool live(const char *root)
{
	return !root || !*root || strcmp(root, "/") == 0;
}

static void say(struct status_edit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct status_edit *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->why, sizeof(e->why), fmt, ap);
	va_end(ap);
}

/* The name of path (as the tree names it) on this host, for the words. */
static const char *host_path(const char *root, const char *path, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", live(root) ? "" : root, path);
	return buf;
}

/*
 * The directory dir (absolute, as the tree names it) opened from the
 * tree's root, O_NOFOLLOW at every step: a link or ".." anywhere is
 * refused, with the path.  The root itself is what the caller named (it
 * may be a link: the caller's own word).  A descriptor, or -1 and why.
 */
static int dir_open(const char *root, const char *dir, struct status_edit *e)
{
	char hp[PATH_MAX];
	int fd = open(live(root) ? "/" : root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		say(e, "cannot open %s: %s", live(root) ? "/" : root, strerror(errno));
		return -1;
	}
	char walked[PATH_MAX] = "";
	const char *p = dir;
	while (*p) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (!n)
			break;
		char comp[NAME_MAX + 1];
		if (n > NAME_MAX) {
			say(e, "a name in %s is too long", dir);
			close(fd);
			return -1;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		size_t w = strlen(walked);
		snprintf(walked + w, sizeof(walked) - w, "/%s", comp);
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			say(e, "%s: a \"..\" is not followed in a write",
			    host_path(root, dir, hp, sizeof(hp)));
			close(fd);
			return -1;
		}
		int next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int err = errno;
		if (next < 0) {
			struct stat st;
			if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				say(e, "%s is a symbolic link: it is not followed in a write%s",
				    host_path(root, walked, hp, sizeof(hp)),
				    live(root)
					    ? ""
					    : " under --root (the tree's links are its builder's)");
			else
				say(e, "cannot open the directory %s: %s",
				    host_path(root, walked, hp, sizeof(hp)), strerror(err));
			close(fd);
			return -1;
		}
		close(fd);
		fd = next;
	}
	return fd;
}

/* The file name in dir (a descriptor) read whole, never through a link,
 * never blocking; -ENOENT where there is none, -EINVAL where it is not a
 * regular file, -ELOOP where it is a link. */
static int file_read(int dir, const char *name, char **out, size_t *len, struct stat *st)
{
	*out = NULL;
	*len = 0;
	/* O_PATH first: a device node in the tree is never opened. */
	int fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if ((fd = status_reopen_regular(fd, O_RDONLY | O_NONBLOCK | O_NOCTTY, dir, name, false)) <
	    0)
		return fd;
	return status_read_fd(fd, EDIT_CAP, true, st, out, len);
}

static const char *read_words(int err)
{
	switch (-err) {
	case ELOOP: return "it is a symbolic link (not followed in a write)";
	case EINVAL: return "it is not a regular file";
	case EFBIG: return "it is larger than 1 MiB";
	case EAGAIN: return "it changed while it was read";
	default: return strerror(-err);
	}
}

/* A temporary beside name in dir, made O_EXCL|O_NOFOLLOW: never an
 * existing name, never through a link.  Its descriptor, its name in tmp. */
static int tmp_create(int dir, const char *name, const char *suffix, char *tmp, size_t size)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
			unsigned long v = (unsigned long)getpid() * 2654435761u ^
					  (unsigned long)time(NULL) ^ (unsigned long)tries * 40503u;
			for (size_t i = 0; i < sizeof(r); i++, v >>= 5)
				r[i] = (unsigned char)v;
		}
		char x[7];
		for (size_t i = 0; i < 6; i++)
			x[i] = abc[r[i] % (sizeof(abc) - 1)];
		x[6] = '\0';
		if (snprintf(tmp, size, "%s%s%s", name, suffix, x) >= (int)size) {
			errno = ENAMETOOLONG;
			return -1;
		}
		int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

/* Remove what a killed run left in dir: names that start with
 * name + suffix (our temporaries).  Only unlinkat(): a link is removed
 * itself. */
static void tmp_clean(int dir, const char *name, const char *suffix)
{
	char pre[NAME_MAX + 32];
	snprintf(pre, sizeof(pre), "%s%s", name, suffix);
	int d = dup(dir);
	DIR *ds = d >= 0 ? fdopendir(d) : NULL;
	if (!ds) {
		if (d >= 0)
			close(d);
		return;
	}
	size_t n = strlen(pre);
	for (struct dirent *de; (de = readdir(ds));)
		if (strncmp(de->d_name, pre, n) == 0 && de->d_name[n])
			unlinkat(dir, de->d_name, 0);
	closedir(ds);
}

/* Is name in dir (never followed) the file st describes? */
static bool same_file(int dir, const char *name, const struct stat *st)
{
	struct stat now;
	return fstatat(dir, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st->st_dev &&
	       now.st_ino == st->st_ino;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -ENOSPC;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* An edited preload list keeps its owner and its mode, but for write by
 * group or others (or a set-id bit): a list anyone may write adds a
 * library to every process. */
static mode_t kept_mode(const struct stat *st)
{
	return st->st_mode & 0755;
}

/*
 * A new file name in dir holding the parts (text, len; up to three),
 * owner uid:gid (-1: the creator's) and mode set on the open file, synced,
 * renamed over name within dir, dir synced before and after.  0, or -1
 * and why, with nothing at name changed.
 */
struct part {
	const char *p;
	size_t n;
};
static int replace(int dir, const char *shown, const char *name, const char *suffix,
		   const struct part *parts, size_t nparts, mode_t mode, uid_t uid, gid_t gid,
		   struct status_edit *e)
{
	char tmp[NAME_MAX + 1];
	int fd = tmp_create(dir, name, suffix, tmp, sizeof(tmp));
	if (fd < 0) {
		say(e, "cannot create a temporary beside %s: %s", shown, strerror(errno));
		return -1;
	}
	int err = 0;
	const char *step = "write";
	for (size_t i = 0; !err && i < nparts; i++)
		err = write_all(fd, parts[i].p, parts[i].n);
	if (!err && (uid != (uid_t)-1 || gid != (gid_t)-1) && fchown(fd, uid, gid) != 0)
		err = -errno, step = "give the owner to";
	if (!err && fchmod(fd, mode) != 0)
		err = -errno, step = "set the mode of";
	if (!err && fsync(fd) != 0)
		err = -errno, step = "sync";
	if (!err)
		fsync(dir);
	/* Where another user owns the directory, they may rename something
	 * of theirs over the temporary: what would be renamed into place is
	 * proved ours first, and again after (nothing was followed either
	 * way: every write above went to the open file). */
	struct stat mine;
	if (!err && (fstat(fd, &mine) != 0 || !same_file(dir, tmp, &mine)))
		err = -ESTALE, step = "rename into place";
	if (!err && renameat(dir, tmp, dir, name) != 0)
		err = -errno, step = "rename into place";
	close(fd);
	if (err) {
		unlinkat(dir, tmp, 0);
		if (err == -ESTALE)
			say(e,
			    "the temporary %s (for %s) was replaced by another while it was written: "
			    "another user changes this directory; nothing was written through it",
			    tmp, shown);
		else
			say(e, "cannot %s the temporary %s (for %s): %s%s", step, tmp, shown,
			    strerror(-err),
			    err == -ENOSPC || err == -EDQUOT ? " (a full file system?)" : "");
		return -1;
	}
	fsync(dir);
	if (!same_file(dir, name, &mine)) {
		say(e,
		    "%s is not the file written: another user renamed something over it at once; "
		    "nothing was written through it, but it is theirs now",
		    shown);
		return -1;
	}
	return 0;
}

/* Split path (absolute, as the tree names it) into its directory and its
 * last name. */
static int split(const char *path, char *dir, size_t dsize, const char **name,
		 struct status_edit *e)
{
	const char *slash = strrchr(path, '/');
	if (path[0] != '/' || !slash || !slash[1] || strcmp(slash + 1, ".") == 0 ||
	    strcmp(slash + 1, "..") == 0 || (size_t)(slash - path) >= dsize) {
		say(e, "%s: not an absolute path to a file", path);
		return -1;
	}
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	if (!*dir)
		snprintf(dir, dsize, "/");
	*name = slash + 1;
	return 0;
}

/* Is line (without its newline) exactly lib? */
static bool is_line(const char *s, size_t n, const char *lib)
{
	return n == strlen(lib) && memcmp(s, lib, n) == 0;
}

/* Does text have a line that is exactly lib?  (The entry stands alone on
 * its line: ours always does.) */
static bool has_line(const char *text, size_t len, const char *lib)
{
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		if (is_line(text + i, n, lib))
			return true;
		i += n + 1;
	}
	return false;
}

int status_preload_edit(const struct status_edit_args *a, struct status_edit *e)
{
	memset(e, 0, sizeof(*e));
	char hp[PATH_MAX], bp[PATH_MAX], dpath[PATH_MAX], bdpath[PATH_MAX];
	const char *name, *bname;
	if (split(a->file, dpath, sizeof(dpath), &name, e) != 0 ||
	    (a->backup && split(a->backup, bdpath, sizeof(bdpath), &bname, e) != 0))
		return -1;
	host_path(a->root, a->file, hp, sizeof(hp));
	int dir = dir_open(a->root, dpath, e);
	if (dir < 0)
		return -1;
	int bdir = -1, rc = -1;
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	if (!a->dry_run)
		tmp_clean(dir, name, ".pmuguard-new.");
	int err = file_read(dir, name, &text, &len, &st);
	if (err && err != -ENOENT) {
		say(e, "%s: %s", hp, read_words(err));
		goto out;
	}
	bool exists = !err;
	bool listed = exists && has_line(text, len, a->lib);
	if (a->add) {
		if (listed) {
			snprintf(e->action, sizeof(e->action), "already");
			rc = 0;
			goto out;
		}
		snprintf(e->action, sizeof(e->action), "%s", exists ? "added" : "created");
		if (a->dry_run) {
			rc = 0;
			goto out;
		}
		if (exists && a->backup) {
			/* The old file, byte for byte, aside first: written
			 * and renamed as the file itself is. */
			bdir = dir_open(a->root, bdpath, e);
			if (bdir < 0)
				goto out;
			tmp_clean(bdir, bname, ".new.");
			host_path(a->root, a->backup, bp, sizeof(bp));
			struct part old = {text, len};
			if (replace(bdir, bp, bname, ".new.", &old, 1, st.st_mode & 07777,
				    (uid_t)-1, (gid_t)-1, e) != 0)
				goto out;
			snprintf(e->backup, sizeof(e->backup), "%s", a->backup);
		}
		struct part parts[3] = {{a->lib, strlen(a->lib)}, {"\n", 1}, {text, len}};
		if (replace(dir, hp, name, ".pmuguard-new.", parts, exists ? 3 : 2,
			    exists ? kept_mode(&st) : 0644, exists ? st.st_uid : (uid_t)-1,
			    exists ? st.st_gid : (gid_t)-1, e) != 0)
			goto out;
		rc = 0;
		goto out;
	}
	/* Remove: exactly the lines that are our entry; every other byte
	 * kept (a last line without its newline as it was). */
	if (!listed) {
		snprintf(e->action, sizeof(e->action), "not-listed");
		rc = 0;
		goto out;
	}
	char *kept = malloc(len + 1);
	if (!kept) {
		say(e, "out of memory");
		goto out;
	}
	size_t k = 0;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		if (!is_line(text + i, n, a->lib)) {
			memcpy(kept + k, text + i, n + (nl ? 1 : 0));
			k += n + (nl ? 1 : 0);
		}
		i += n + 1;
	}
	if (k || a->keep_empty) {
		snprintf(e->action, sizeof(e->action), "%s", k ? "removed" : "emptied");
		struct part p = {kept, k};
		rc = a->dry_run ? 0
				: replace(dir, hp, name, ".pmuguard-new.", &p, 1, kept_mode(&st),
					  st.st_uid, st.st_gid, e);
	} else {
		snprintf(e->action, sizeof(e->action), "deleted");
		rc = 0;
		if (!a->dry_run) {
			if (unlinkat(dir, name, 0) != 0) {
				say(e, "cannot remove %s: %s", hp, strerror(errno));
				rc = -1;
			} else {
				fsync(dir);
			}
		}
	}
	free(kept);
out:
	free(text);
	if (bdir >= 0)
		close(bdir);
	close(dir);
	return rc;
}

/* Every line that sets the lock (whatever its value, as
 * ^[[:space:]]*lock[[:space:]]*= reads it) made "lock = yes"; their count. */
static size_t set_lock_lines(const char *text, size_t len, char *out, size_t *olen)
{
	static const char yes[] = "lock = yes";
	size_t o = 0, hits = 0;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		size_t j = 0;
		while (j < n && strchr(" \t\r\v\f", text[i + j]))
			j++;
		bool hit = n - j >= 4 && memcmp(text + i + j, "lock", 4) == 0;
		if (hit) {
			j += 4;
			while (j < n && strchr(" \t\r\v\f", text[i + j]))
				j++;
			hit = j < n && text[i + j] == '=';
		}
		if (hit) {
			memcpy(out + o, yes, sizeof(yes) - 1);
			o += sizeof(yes) - 1;
			hits++;
		} else {
			memcpy(out + o, text + i, n);
			o += n;
		}
		if (nl)
			out[o++] = '\n';
		i += n + 1;
	}
	*olen = o;
	return hits;
}

/* Why others than root can change the policy (its status st), or NULL. */
static const char *conf_untrusted(const char *root, const struct stat *st, char *buf, size_t size)
{
	if (st->st_mode & 022)
		snprintf(buf, size, "writable by other users (mode %o)",
			 (unsigned)(st->st_mode & 07777));
	else if (live(root) && st->st_uid != 0)
		snprintf(buf, size, "owned by uid %u", (unsigned)st->st_uid);
	else
		return NULL;
	return buf;
}

static bool locks(const char *text, size_t len)
{
	struct guard_conf c;
	memset(&c, 0, sizeof(c));
	guard_conf_parse(&c, text, len, GUARD_CONF_PATH);
	return c.lock;
}

int status_policy_edit(const struct status_edit_args *a, struct status_edit *e)
{
	memset(e, 0, sizeof(*e));
	char hp[PATH_MAX], dpath[PATH_MAX], why[96];
	const char *name;
	const char *file = a->file ? a->file : GUARD_CONF_PATH;
	if (split(file, dpath, sizeof(dpath), &name, e) != 0)
		return -1;
	host_path(a->root, file, hp, sizeof(hp));
	int dir = dir_open(a->root, dpath, e);
	if (dir < 0)
		return -1;
	int rc = -1;
	char *text = NULL, *out = NULL;
	size_t len = 0;
	struct stat st, dst;
	if (!a->dry_run)
		tmp_clean(dir, name, ".pmuguard-new.");
	int err = file_read(dir, name, &text, &len, &st);
	e->locked = !err && locks(text, len);
	if (a->drop_created) {
		/* Uninstall: the file install created, still exactly so, goes. */
		if (err || len != sizeof(status_conf_created) - 1 ||
		    memcmp(text, status_conf_created, len) != 0) {
			snprintf(e->action, sizeof(e->action), "%s", err ? "absent" : "kept");
			rc = 0;
		} else {
			snprintf(e->action, sizeof(e->action), "deleted");
			rc = 0;
			if (!a->dry_run && unlinkat(dir, name, 0) != 0) {
				say(e, "cannot remove %s: %s", hp, strerror(errno));
				rc = -1;
			} else if (!a->dry_run) {
				fsync(dir);
				e->locked = false;
			}
		}
		goto out;
	}
	if (err == -ELOOP || err == -EINVAL) {
		/* A link is the tool's that made it; nothing is written
		 * through it. */
		snprintf(e->action, sizeof(e->action), "not-regular");
		rc = 0;
		goto out;
	}
	if (err && err != -ENOENT) {
		say(e, "%s: %s", hp, read_words(err));
		goto out;
	}
	/* No other user may add, rename or remove an entry where the policy
	 * lives: they could put their own in its place. */
	if (fstat(dir, &dst) != 0 || (dst.st_mode & 022) || (live(a->root) && dst.st_uid != 0)) {
		char dp[PATH_MAX];
		host_path(a->root, dpath, dp, sizeof(dp));
		if (dst.st_mode & 022)
			say(e, "%s is writable by other users (mode %o)", dp,
			    (unsigned)(dst.st_mode & 07777));
		else
			say(e, "%s belongs to uid %u", dp, (unsigned)dst.st_uid);
		snprintf(e->action, sizeof(e->action), "dir-unsafe");
		goto out;
	}
	const char *untrusted = err ? NULL : conf_untrusted(a->root, &st, why, sizeof(why));
	if (untrusted)
		snprintf(e->untrusted, sizeof(e->untrusted), "%s", untrusted);
	if (!err && !untrusted && locks(text, len)) {
		snprintf(e->action, sizeof(e->action), "already");
		rc = 0;
		goto out;
	}
	uid_t root_uid = live(a->root) ? 0 : (uid_t)-1;
	gid_t root_gid = live(a->root) ? 0 : (gid_t)-1;
	struct part parts[3];
	size_t nparts = 0;
	mode_t mode = 0644;
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	if (err || untrusted) {
		snprintf(e->action, sizeof(e->action), "%s", untrusted ? "replaced" : "created");
		parts[nparts++] =
			(struct part){status_conf_created, sizeof(status_conf_created) - 1};
		uid = root_uid, gid = root_gid;
	} else {
		out = malloc(len + 16 * (len / 4 + 1) + 16);
		if (!out) {
			say(e, "out of memory");
			goto out;
		}
		size_t olen;
		if (set_lock_lines(text, len, out, &olen)) {
			snprintf(e->action, sizeof(e->action), "set");
			parts[nparts++] = (struct part){out, olen};
		} else {
			snprintf(e->action, sizeof(e->action), "added");
			parts[nparts++] = (struct part){text, len};
			/* A last line without its newline gets one: ours is a
			 * line of its own. */
			if (len && text[len - 1] != '\n')
				parts[nparts++] = (struct part){"\n", 1};
			parts[nparts++] = (struct part){"lock = yes\n", 11};
		}
		mode = st.st_mode & 07777, uid = st.st_uid, gid = st.st_gid;
	}
	if (a->dry_run) {
		rc = 0;
		goto out;
	}
	/* Never written unless it reads as locked, by the guard's parser. */
	{
		size_t total = 0;
		for (size_t i = 0; i < nparts; i++)
			total += parts[i].n;
		char *all = malloc(total + 1);
		if (!all) {
			say(e, "out of memory");
			goto out;
		}
		for (size_t i = 0, o = 0; i < nparts; o += parts[i].n, i++)
			memcpy(all + o, parts[i].p, parts[i].n);
		bool ok = locks(all, total);
		free(all);
		if (!ok) {
			say(e, "the new %s would not read as lock = yes", hp);
			goto out;
		}
	}
	if (untrusted) {
		/* Its lines may be anyone's: none is adopted as root's.  The
		 * file is kept aside, root's and private, for the admin. */
		char aside[NAME_MAX + 1], ap[PATH_MAX + 32];
		snprintf(aside, sizeof(aside), "%s.pmuguard-untrusted", name);
		snprintf(ap, sizeof(ap), "%s.pmuguard-untrusted", hp);
		struct part old = {text, len};
		if (replace(dir, ap, aside, ".pmuguard-new.", &old, 1, 0600, root_uid, root_gid,
			    e) != 0)
			goto out;
	}
	if (replace(dir, hp, name, ".pmuguard-new.", parts, nparts, mode, uid, gid, e) != 0)
		goto out;
	e->locked = true; /* (a dry run: it reads as it is) */
	rc = 0;
out:
	free(text);
	free(out);
	close(dir);
	return rc;
}
