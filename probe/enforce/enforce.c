// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The loader behind `pmuguard enforce` (see enforce.h): load, attach,
 * self-test, pin, replace and stop.  libbpf opens the embedded object
 * (the skeleton bpftool generated from enforce.bpf.o), relocates it
 * against the running kernel's BTF, loads it and attaches one of its two
 * programs; the self-test's canary is enforce_canary.c's.  What is
 * pinned is read back in enforce_pinned.c, the events that already exist
 * are listed in enforce_iter.c, and libbpf's version, errors and log are
 * enforce_libbpf.c's (enforce_loader.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/magic.h>

#include "enforce.h"
#include "enforce.skel.h"
#include "enforce_loader.h"

/* A fresh nonce for a load, never 0. */
static unsigned long long canary_nonce(void)
{
	unsigned long long n = 0;
	if (getrandom(&n, sizeof(n), GRND_NONBLOCK) != (ssize_t)sizeof(n)) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		n = ((unsigned long long)ts.tv_nsec << 32) ^ (unsigned long long)ts.tv_sec ^
		    ((unsigned long long)getpid() << 16);
	}
	return n ? n : 0x706d756775617264ull;
}

/* Is the directory holding pin_dir a bpffs?  Pins anywhere else fail.
 * Where it is /sys/fs/bpf and nothing is mounted there (a host whose init
 * does not mount it: Amazon Linux 2, a Firecracker guest's minimal init),
 * mount it, as systemd would (*mounted says so). */
static int check_bpffs(const char *pin_dir, char *w, size_t ws, bool *mounted)
{
	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%s", pin_dir);
	char *slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = '\0';
	struct statfs sfs;
	if (statfs(parent, &sfs) < 0) {
		int err = errno;
		why(w, ws, "%s: %s (is bpffs mounted? mount -t bpf bpf %s)", parent, strerror(err),
		    parent);
		return -err;
	}
	/* Only where nothing is mounted (sysfs's own directory): over another
	 * file system someone mounted there, refuse as before. */
	if ((unsigned long)sfs.f_type == SYSFS_MAGIC && !strcmp(parent, ENF_BPFFS)) {
		if (mount("bpf", ENF_BPFFS, "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700") <
		    0) {
			int err = errno;
			why(w, ws,
			    "bpffs is not mounted at %s, and mounting it failed: %s, so the guard "
			    "could not outlive this command",
			    ENF_BPFFS, strerror(err));
			return -err;
		}
		*mounted = true;
		if (statfs(parent, &sfs) < 0)
			sfs.f_type = 0;
	}
	if ((unsigned long)sfs.f_type != BPF_FS_MAGIC) {
		why(w, ws,
		    "bpffs is not mounted at %s, so the guard could not outlive this command "
		    "(mount -t bpf bpf %s)",
		    parent, parent);
		return -ENOTDIR;
	}
	return 0;
}

int enf_securityfs_mount(void)
{
	if (access(ENF_LSM_LIST, R_OK) == 0)
		return 0;
	struct statfs sfs;
	if (statfs(ENF_SECURITYFS, &sfs) < 0)
		return -errno;
	if ((unsigned long)sfs.f_type != SYSFS_MAGIC)
		return -EEXIST; /* something is mounted there, but without the list */
	if (mount("securityfs", ENF_SECURITYFS, "securityfs",
		  MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, NULL) < 0)
		return -errno;
	return 1;
}

/* What /sys/kernel/security/lsm says: 1 bpf listed, 0 not, -errno unknown. */
static int bpf_lsm_active(void)
{
	char buf[512];
	int fd = open(ENF_LSM_LIST, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, sizeof(buf));
	int err = errno;
	close(fd);
	if (n < 0)
		return -err;
	return enf_lsm_listed(buf, (size_t)n) ? 1 : 0;
}

/* One attempt: open, configure, load, attach one program.  On success the
 * skeleton holds the (unpinned) link. */
static int try_attach(const struct pmug_enf_config *cfg, unsigned attach, struct pmug_enforce **out,
		      char *w, size_t ws)
{
	struct pmug_enforce *skel = pmug_enforce__open();
	if (!skel) {
		int err = errno ? errno : EINVAL;
		why(w, ws, "cannot open the embedded BPF object: %s", strerror(err));
		return -err;
	}
	bool lsm = attach == PMUG_ENF_ATTACH_LSM;
	struct bpf_program *use = lsm ? skel->progs.pmug_lsm : skel->progs.pmug_fmod_ret;
	struct bpf_program *other = lsm ? skel->progs.pmug_fmod_ret : skel->progs.pmug_lsm;
	int err = bpf_program__set_autoload(other, false);
	if (err)
		goto fail_msg;
	skel->rodata->cfg = *cfg;
	skel->rodata->cfg.attach = attach;
	skel->rodata->cfg.canary = canary_nonce();
	err = pmug_enforce__load(skel);
	if (err) {
		err = err < 0 ? err : -EINVAL;
		why(w, ws, "the kernel refused to load the %s program: %s", enf_attach_name(attach),
		    strerror(-err));
		goto fail;
	}
	struct bpf_link *link = lsm ? bpf_program__attach_lsm(use) : bpf_program__attach_trace(use);
	if (!link) {
		err = errno ? -errno : -EINVAL;
		why(w, ws, "the kernel refused to attach the %s program: %s",
		    enf_attach_name(attach), strerror(-err));
		goto fail;
	}
	if (lsm)
		skel->links.pmug_lsm = link;
	else
		skel->links.pmug_fmod_ret = link;
	*out = skel;
	return 0;

fail_msg:
	why(w, ws, "cannot prepare the %s program: %s", enf_attach_name(attach), strerror(-err));
fail:
	pmug_enforce__destroy(skel);
	return err < 0 ? err : -EINVAL;
}

static struct bpf_link *skel_link(struct pmug_enforce *s)
{
	return s->links.pmug_lsm ? s->links.pmug_lsm : s->links.pmug_fmod_ret;
}

/* The self-test of a program just attached (not pinned yet): its .bss is
 * mapped into this process, so its count is read directly. */
static void verify_skel(struct pmug_enforce *skel, unsigned attach, struct enf_verify *v)
{
	memset(v, 0, sizeof(*v));
	const volatile unsigned long long *n = &skel->bss->totals.canaries;
	unsigned long long before = *n;
	int ret = enf_canary_open(skel->rodata->cfg.canary);
	unsigned long long after = *n;
	v->at = time(NULL);
	enf_verify_judge(v, ret, true, before, after, attach);
}

static int start(const struct pmug_enf_config *cfg, const char *pin_dir, struct enf_result *r);

/* Is the same configuration attached at pin_dir now, and does it pass
 * the self-test?  Then r says which (its attach, and its rodata: the
 * reason and facts it was started on).  One that does not run is not the
 * same: it is replaced. */
static bool same_attached(const char *pin_dir, const struct pmug_enf_config *cfg,
			  struct enf_result *r)
{
	struct enf_status *st = calloc(1, sizeof(*st));
	if (!st)
		return false;
	bool same = enf_status_read(pin_dir, st, ENF_STATUS_VERIFY) == 0 && st->attached &&
		    enf_config_same(&st->cfg, cfg) &&
		    (cfg->attach == PMUG_ENF_ATTACH_NONE || cfg->attach == st->attach) &&
		    st->verify.verified;
	if (same) {
		r->attach = st->attach;
		r->cfg = st->cfg;
		r->verify = st->verify;
	}
	free(st);
	return same;
}

/* Which program this pmuguard carries: FNV-1a over the embedded object.
 * An upgrade that changes the program changes it, so its start replaces
 * the old program instead of calling it "already attached". */
static unsigned long long object_id(void)
{
	size_t n = 0;
	const unsigned char *p = pmug_enforce__elf_bytes(&n);
	unsigned long long h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

int enf_start(const struct pmug_enf_config *want, const char *pin_dir, bool keep_unverified,
	      struct enf_result *r)
{
	memset(r, 0, sizeof(*r));
	r->keep_unverified = keep_unverified;
	struct pmug_enf_config cfg = *want;
	cfg.object = object_id();
	enf_libbpf_capture(r->log, sizeof(r->log));
	int err = start(&cfg, pin_dir, r);
	enf_libbpf_capture(NULL, 0); /* r->log is the caller's: let go of it */
	return err;
}

/* What a start needs of the kernel: bpffs at pin_dir's parent and BTF. */
static int start_preflight(const char *pin_dir, struct enf_result *r)
{
	int err = check_bpffs(pin_dir, r->why, sizeof(r->why), &r->mounted_bpffs);
	if (err)
		return err;
	if (access(ENF_BTF, R_OK) < 0) {
		err = errno;
		why(r->why, sizeof(r->why),
		    "%s: %s: this kernel has no BTF (CONFIG_DEBUG_INFO_BTF), which the BPF "
		    "program needs",
		    ENF_BTF, strerror(err));
		return -err;
	}
	return 0;
}

/* What is attached already: *had, and 0; or -errno where what is pinned
 * cannot be read. */
static int attached_before(const char *pin_dir, bool *had, struct enf_result *r)
{
	struct enf_status *old = calloc(1, sizeof(*old));
	if (!old) {
		why(r->why, sizeof(r->why), "out of memory");
		return -ENOMEM;
	}
	int err = enf_status_read(pin_dir, old, 0);
	/* A program this pmuguard cannot read (-EPROTO: an older pmuguard's
	 * layout) is replaced like any other configuration: renamed over, so
	 * the host keeps a guard throughout. */
	if (err && err != -EPROTO) {
		why(r->why, sizeof(r->why), "%.400s; `pmuguard enforce stop` removes it", old->why);
		free(old);
		return err;
	}
	*had = old->attached || err == -EPROTO;
	free(old);
	return 0;
}

/* lsm where BPF LSM is listed; fmod_ret first otherwise (not listed, or
 * the list unreadable: securityfs not mounted), then the other.  Each is
 * attached and then proved to run (the self-test) before it is pinned:
 * attached is not running (lsm/ where bpf is not an active LSM loads and
 * attaches, and is never called).  The skeleton that passed (or, with
 * keep_unverified, the last that attached: *unverified), or NULL and why. */
static struct pmug_enforce *attach_verified(const struct pmug_enf_config *cfg, struct enf_result *r,
					    bool *unverified, int *errp)
{
	unsigned order[2] = {PMUG_ENF_ATTACH_FMOD_RET, PMUG_ENF_ATTACH_LSM};
	int lsm = bpf_lsm_active();
	if (cfg->attach != PMUG_ENF_ATTACH_NONE) {
		order[0] = cfg->attach; /* asked for (--attach): that one only */
		order[1] = PMUG_ENF_ATTACH_NONE;
		lsm = 1; /* no remark on the LSM list */
	} else if (lsm == 1) {
		order[0] = PMUG_ENF_ATTACH_LSM;
		order[1] = PMUG_ENF_ATTACH_FMOD_RET;
	}
	struct pmug_enforce *skel = NULL;
	int err = 0;
	for (unsigned i = 0; i < 2 && order[i] != PMUG_ENF_ATTACH_NONE && !skel; i++) {
		bool last = i == 1 || order[i + 1] == PMUG_ENF_ATTACH_NONE;
		err = try_attach(cfg, order[i], &skel, r->why, sizeof(r->why));
		if (!err) {
			r->tried |= 1u << order[i];
			verify_skel(skel, order[i], &r->verify);
			if (r->verify.verified)
				break;
			snprintf(r->why, sizeof(r->why), "%s", r->verify.why);
			if (last && r->keep_unverified) {
				*unverified = true;
				break;
			}
			pmug_enforce__destroy(skel); /* unpinned: this detaches it */
			skel = NULL;
			err = -ENOEXEC;
		}
		if (!last || r->refused[0]) {
			size_t l = strlen(r->refused);
			snprintf(r->refused + l, sizeof(r->refused) - l, "%s%s: %.200s",
				 l ? "; " : "", enf_attach_name(order[i]), r->why);
		}
	}
	if (skel)
		return skel;
	if (r->refused[0]) {
		char all[sizeof(r->why)];
		snprintf(all, sizeof(all), "%.500s", r->refused);
		snprintf(r->why, sizeof(r->why), "%s", all);
	}
	if (lsm != 1) {
		size_t l = strlen(r->why);
		snprintf(r->why + l, sizeof(r->why) - l, " (BPF LSM %s)",
			 lsm == 0 ? "is not active"
				  : "status unknown: " ENF_LSM_LIST " unreadable");
	}
	*errp = err ? err : -EINVAL;
	return NULL;
}

/* Pin: into DIR/link when nothing is there, else into DIR/next and then
 * rename over DIR/link (bpffs: simple_rename), so the host is never
 * without a guard while one configuration replaces another.  The skeleton
 * is gone after it, pinned or not. */
static int pin(struct pmug_enforce *skel, const struct pmug_enf_config *cfg, const char *pin_dir,
	       bool had, const char *link_path, const char *next_path, struct enf_result *r)
{
	int err;
	bool made_dir = false;
	if (mkdir(pin_dir, 0700) == 0)
		made_dir = true;
	else if (errno != EEXIST) {
		err = -errno;
		why(r->why, sizeof(r->why), "cannot create %s: %s", pin_dir, strerror(-err));
		goto undo;
	}
	int fd = bpf_link__fd(skel_link(skel));
	const char *target = had ? next_path : link_path;
	if (had)
		unlink(next_path); /* a leftover of an interrupted replace */
	if (bpf_obj_pin(fd, target) < 0) {
		err = -errno;
		/* Another start won the race to the pin: fine if it attached
		 * what this one would have. */
		if (err == -EEXIST && !had && same_attached(pin_dir, cfg, r)) {
			r->already = true;
			pmug_enforce__destroy(skel);
			return 0;
		}
		why(r->why, sizeof(r->why), "cannot pin the link at %s: %s", target,
		    strerror(-err));
		goto undo;
	}
	if (had && rename(next_path, link_path) < 0) {
		err = -errno;
		why(r->why, sizeof(r->why), "cannot replace %s: %s (the earlier guard stays)",
		    link_path, strerror(-err));
		unlink(next_path);
		goto undo;
	}
	r->replaced = had;
	pmug_enforce__destroy(skel); /* the pin holds the link now */
	return 0;

undo:
	if (made_dir)
		rmdir(pin_dir);
	pmug_enforce__destroy(skel); /* unpinned: closing it detaches it */
	return err;
}

static int start(const struct pmug_enf_config *cfg, const char *pin_dir, struct enf_result *r)
{
	char link_path[PATH_MAX], next_path[PATH_MAX];
	if (!join(link_path, sizeof(link_path), pin_dir, "link") ||
	    !join(next_path, sizeof(next_path), pin_dir, "next")) {
		why(r->why, sizeof(r->why), "%s: path too long", pin_dir);
		return -ENAMETOOLONG;
	}
	int err = start_preflight(pin_dir, r);
	bool had = false;
	if (!err)
		err = attached_before(pin_dir, &had, r);
	if (err)
		return err;
	/* The same configuration attached already is success. */
	if (had && same_attached(pin_dir, cfg, r)) {
		r->already = true;
		return 0;
	}
	bool unverified = false;
	struct pmug_enforce *skel = attach_verified(cfg, r, &unverified, &err);
	if (!skel)
		return err;
	r->attach = skel->rodata->cfg.attach;
	r->cfg = skel->rodata->cfg;
	err = pin(skel, cfg, pin_dir, had, link_path, next_path, r);
	if (err || r->already)
		return err;
	if (unverified) {
		size_t l = strlen(r->why);
		snprintf(
			r->why + l, sizeof(r->why) - l,
			"; pinned all the same (--keep-unverified): it does not protect this host");
		return -ENOEXEC;
	}
	return 0;
}

/* Wait (bounded) until the kernel no longer knows the object: an unpinned
 * link is freed when its last reference goes, and the pin's reference goes
 * from an RCU callback, so from a work item (bpf_link_put in
 * kernel/bpf/syscall.c defers in atomic context; bpffs drops pins in
 * bpf_free_inode).  Without this, stop would return while the program
 * still judges calls for a moment. */
static bool wait_gone(int (*get_fd)(__u32), __u32 id, unsigned max_ms)
{
	for (unsigned waited = 0;; waited += 5) {
		int fd = get_fd(id);
		if (fd < 0 && errno == ENOENT)
			return true;
		if (fd >= 0)
			close(fd);
		if (waited >= max_ms)
			return false;
		struct timespec ts = {0, 5 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

int enf_stop(const char *pin_dir, char *w, size_t ws)
{
	char link_path[PATH_MAX], next_path[PATH_MAX];
	if (!join(link_path, sizeof(link_path), pin_dir, "link") ||
	    !join(next_path, sizeof(next_path), pin_dir, "next")) {
		why(w, ws, "%s: path too long", pin_dir);
		return -ENAMETOOLONG;
	}
	/* The ids, to wait for the detach once unpinned. */
	__u32 link_ids[2] = {0, 0}, prog_ids[2] = {0, 0};
	const char *const paths[] = {next_path, link_path};
	libbpf_print_fn_t old_print = enf_libbpf_quiet();
	for (unsigned i = 0; i < 2; i++) {
		int fd = bpf_obj_get(paths[i]);
		if (fd < 0)
			continue;
		struct bpf_link_info li;
		memset(&li, 0, sizeof(li));
		__u32 len = sizeof(li);
		if (bpf_obj_get_info_by_fd(fd, &li, &len) == 0) {
			link_ids[i] = li.id;
			prog_ids[i] = li.prog_id;
		}
		close(fd);
	}
	libbpf_set_print(old_print);
	bool removed = false;
	int err = 0;
	for (unsigned i = 0; i < 2; i++) {
		if (unlink(paths[i]) == 0)
			removed = true;
		else if (errno != ENOENT && !err) {
			err = -errno;
			why(w, ws, "cannot remove %s: %s", paths[i], strerror(errno));
		}
	}
	if (rmdir(pin_dir) < 0 && errno != ENOENT && errno != ENOTEMPTY && !err) {
		err = -errno;
		why(w, ws, "cannot remove %s: %s", pin_dir, strerror(errno));
	}
	if (err)
		return err;
	if (!removed) {
		why(w, ws, "nothing of pmuguard is pinned at %s", pin_dir);
		return -ENOENT;
	}
	/* The link first (its release detaches the program), then the
	 * program, which only a reader (bpftool, a status) may keep a while. */
	for (unsigned i = 0; i < 2; i++) {
		if (link_ids[i] && !wait_gone(bpf_link_get_fd_by_id, link_ids[i], 10000)) {
			why(w, ws,
			    "unpinned, but link %u is still held by another process: the guard "
			    "stays attached until it lets go",
			    link_ids[i]);
			return -EBUSY;
		}
		if (prog_ids[i])
			wait_gone(bpf_prog_get_fd_by_id, prog_ids[i], 1000);
	}
	return 0;
}
