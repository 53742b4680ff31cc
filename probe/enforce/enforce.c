// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The loader behind `pmuguard enforce` (see enforce.h).  libbpf opens the
 * embedded object (the skeleton bpftool generated from enforce.bpf.o),
 * relocates it against the running kernel's BTF, loads it and attaches one
 * of its two programs.  A second object (enforce_iter.bpf.c), loaded only
 * for as long as it is read, lists the perf events that already exist.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdarg.h>
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
#include <linux/perf_event.h>

#include "enforce.h"
#include "enforce.skel.h"
#include "enforce_iter.skel.h"

/* The floor (meson.build: libbpf >= 0.7).  Every check here is written to
 * libbpf 1.0's errors: a failed bpf_program__attach_*() and
 * ring_buffer__new() return NULL with errno set, the rest a negative
 * errno.  Before 1.0 an attach that failed returned ERR_PTR(-err), which
 * is not NULL, so a refused attach read as attached and was pinned.  From
 * 0.7 (which also has bpf_program__set_log_buf()), strict mode gives
 * every call made here 1.0's return: the attaches need it
 * (LIBBPF_STRICT_CLEAN_PTRS); the low-level calls (bpf_obj_pin(),
 * bpf_obj_get(), bpf_map_lookup_elem(), ...) return -1 or -errno and set
 * errno either way, which is what is read here; the skeleton's open and
 * load, ring_buffer__new() and __poll() return 1.0's errors in 0.7
 * already.  LIBBPF_MAJOR_VERSION and _MINOR_VERSION are libbpf_version.h's,
 * which libbpf.h includes from 0.6 on: undefined, older. */
#if !defined(LIBBPF_MAJOR_VERSION) || (LIBBPF_MAJOR_VERSION == 0 && LIBBPF_MINOR_VERSION < 7)
#error "pmuguard enforce needs libbpf 0.7 or later (probe/enforce/README.md, Build)"
#endif
#if LIBBPF_MAJOR_VERSION < 1
/* A constructor: before any libbpf call of any entry point. */
__attribute__((constructor)) static void libbpf_errors_as_1_0(void)
{
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
}
#endif

/* libbpf's messages, kept (the last lines) for the caller instead of
 * printed: the command shows them with PMUGUARD_LOG=debug. */
static char *libbpf_log;
static size_t libbpf_log_size;

static int keep_libbpf_line(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || !libbpf_log || !libbpf_log_size)
		return 0;
	char line[512];
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n <= 0)
		return 0;
	size_t len = strlen(libbpf_log), add = strlen(line);
	if (add >= libbpf_log_size)
		add = libbpf_log_size - 1;
	if (len + add >= libbpf_log_size) {
		/* Keep the newest lines: drop from the front. */
		size_t drop = len + add - (libbpf_log_size - 1);
		memmove(libbpf_log, libbpf_log + drop, len - drop + 1);
		len -= drop;
	}
	memcpy(libbpf_log + len, line, add);
	libbpf_log[len + add] = '\0';
	return n;
}

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static void capture_libbpf(char *buf, size_t size)
{
	libbpf_log = buf;
	libbpf_log_size = size;
	if (size)
		buf[0] = '\0';
	libbpf_set_print(buf ? keep_libbpf_line : silent);
}

static void why(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void why(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

static bool join(char *out, size_t size, const char *dir, const char *name)
{
	int n = snprintf(out, size, "%s/%s", dir, name);
	return n > 0 && (size_t)n < size;
}

_Static_assert(PMUG_ENF_CANARY_TYPE == PERF_TYPE_SOFTWARE, "the canary is a software event");
_Static_assert(PMUG_ENF_CANARY_CONFIG == PERF_COUNT_SW_DUMMY, "the canary counts nothing");
_Static_assert(PMUG_ENF_CANARY_ERRNO == EBADSLT, "the canary's errno is this system's EBADSLT");

/* The self-test's canary (enforce_abi.h) for the program whose nonce is
 * nonce: 1 when it opened (closed again at once: it is disabled and
 * counts nothing), or -errno.  A software event: it can never reach a PMU
 * counter, whatever the guard does. */
static int canary_open(unsigned long long nonce)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_DUMMY;
	a.config1 = nonce;
	a.config2 = (unsigned long long)getpid();
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close((int)fd);
	return 1;
}

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
		why(w, ws, "%s: %s (is bpffs mounted? mount -t bpf bpf %s)", parent,
		    strerror(err), parent);
		return -err;
	}
	/* Only where nothing is mounted (sysfs's own directory): over another
	 * file system someone mounted there, refuse as before. */
	if ((unsigned long)sfs.f_type == SYSFS_MAGIC && !strcmp(parent, ENF_BPFFS)) {
		if (mount("bpf", ENF_BPFFS, "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700") < 0) {
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
static int try_attach(const struct pmug_enf_config *cfg, unsigned attach,
		      struct pmug_enforce **out, char *w, size_t ws)
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
		why(w, ws, "the kernel refused to load the %s program: %s",
		    enf_attach_name(attach), strerror(-err));
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
	int ret = canary_open(skel->rodata->cfg.canary);
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
	capture_libbpf(r->log, sizeof(r->log));
	int err = start(&cfg, pin_dir, r);
	capture_libbpf(NULL, 0); /* r->log is the caller's: let go of it */
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
static struct pmug_enforce *attach_verified(const struct pmug_enf_config *cfg,
					    struct enf_result *r, bool *unverified, int *errp)
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
			 lsm == 0 ? "is not active" : "status unknown: " ENF_LSM_LIST " unreadable");
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
		snprintf(r->why + l, sizeof(r->why) - l,
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
	libbpf_print_fn_t old_print = libbpf_set_print(NULL);
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

/* Read one map's value at key 0 when its name ends in suffix and its
 * value has the size we know. */
static bool read_section(int fd, const struct bpf_map_info *mi, const char *suffix, void *out,
			 size_t size)
{
	size_t nl = strlen(mi->name), sl = strlen(suffix);
	if (nl < sl || strcmp(mi->name + nl - sl, suffix) || mi->value_size != size)
		return false;
	__u32 key = 0;
	return bpf_map_lookup_elem(fd, &key, out) == 0;
}

static void read_counts(int fd, struct enf_status *st)
{
	struct pmug_enf_key key, next;
	void *prev = NULL;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		struct pmug_enf_count val;
		if (bpf_map_lookup_elem(fd, &key, &val) < 0)
			continue;
		st->n_counts_total++;
		if (st->n_counts < sizeof(st->counts) / sizeof(st->counts[0]))
			st->counts[st->n_counts++] = (struct enf_count){key, val};
	}
}

/* The self-test of the pinned program: its .bss read through bss_fd
 * before and after the canary. */
static void verify_pinned(int bss_fd, const struct pmug_enf_config *cfg, unsigned attach,
			  struct enf_verify *v)
{
	memset(v, 0, sizeof(*v));
	struct pmug_enf_totals t0, t1;
	__u32 key = 0;
	bool counted = bss_fd >= 0 && bpf_map_lookup_elem(bss_fd, &key, &t0) == 0;
	int ret = canary_open(cfg->canary);
	counted = counted && bpf_map_lookup_elem(bss_fd, &key, &t1) == 0;
	v->at = time(NULL);
	enf_verify_judge(v, ret, counted, counted ? t0.canaries : 0, counted ? t1.canaries : 0,
			 attach);
}

int enf_status_read(const char *pin_dir, struct enf_status *st, unsigned flags)
{
	bool keep_events = flags & ENF_STATUS_EVENTS;
	int bss_fd = -1;
	memset(st, 0, sizeof(*st));
	st->events_fd = -1;
	char link_path[PATH_MAX];
	if (!join(link_path, sizeof(link_path), pin_dir, "link")) {
		why(st->why, sizeof(st->why), "%s: path too long", pin_dir);
		return -ENAMETOOLONG;
	}
	libbpf_print_fn_t old_print = libbpf_set_print(NULL);
	int link_fd = bpf_obj_get(link_path);
	libbpf_set_print(old_print);
	if (link_fd < 0) {
		int err = errno;
		if (err == ENOENT) {
			why(st->why, sizeof(st->why), "nothing is pinned at %s", link_path);
			return 0;
		}
		why(st->why, sizeof(st->why), "%s: %s", link_path, strerror(err));
		return -err;
	}
	struct bpf_link_info li;
	memset(&li, 0, sizeof(li));
	__u32 len = sizeof(li);
	int err = 0, prog_fd = -1;
	if (bpf_obj_get_info_by_fd(link_fd, &li, &len) < 0) {
		err = -errno;
		why(st->why, sizeof(st->why), "%s: cannot read the link: %s", link_path,
		    strerror(errno));
		goto out;
	}
	st->link_id = li.id;
	st->prog_id = li.prog_id;
	if (li.type == BPF_LINK_TYPE_TRACING)
		st->attach = li.tracing.attach_type == BPF_LSM_MAC	    ? PMUG_ENF_ATTACH_LSM
			     : li.tracing.attach_type == BPF_MODIFY_RETURN ? PMUG_ENF_ATTACH_FMOD_RET
									   : PMUG_ENF_ATTACH_NONE;
	prog_fd = bpf_prog_get_fd_by_id(li.prog_id);
	if (prog_fd < 0) {
		err = -errno;
		why(st->why, sizeof(st->why), "program %u: %s", li.prog_id, strerror(errno));
		goto out;
	}
	__u32 map_ids[16];
	struct bpf_prog_info pi;
	memset(&pi, 0, sizeof(pi));
	pi.nr_map_ids = sizeof(map_ids) / sizeof(map_ids[0]);
	pi.map_ids = (__u64)(unsigned long)map_ids;
	len = sizeof(pi);
	if (bpf_obj_get_info_by_fd(prog_fd, &pi, &len) < 0) {
		err = -errno;
		why(st->why, sizeof(st->why), "program %u: %s", li.prog_id, strerror(errno));
		goto out;
	}
	st->run_cnt = pi.run_cnt;
	st->run_time_ns = pi.run_time_ns;
	st->xlated_insns = pi.xlated_prog_len / 8; /* sizeof(struct bpf_insn) */
	st->jited_bytes = pi.jited_prog_len;
	bool cfg_ok = false;
	unsigned n = pi.nr_map_ids < 16 ? pi.nr_map_ids : 16;
	for (unsigned i = 0; i < n; i++) {
		int mfd = bpf_map_get_fd_by_id(map_ids[i]);
		if (mfd < 0)
			continue;
		struct bpf_map_info mi;
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		if (bpf_obj_get_info_by_fd(mfd, &mi, &len) < 0) {
			close(mfd);
			continue;
		}
		if (read_section(mfd, &mi, ".rodata", &st->cfg, sizeof(st->cfg))) {
			cfg_ok = st->cfg.magic == PMUG_ENF_MAGIC &&
				 st->cfg.version == PMUG_ENF_VERSION;
			/* Our loader wrote them NUL-terminated; trust no more. */
			st->cfg.reason[sizeof(st->cfg.reason) - 1] = '\0';
			st->cfg.facts_from[sizeof(st->cfg.facts_from) - 1] = '\0';
		}
		else if (read_section(mfd, &mi, ".bss", &st->totals, sizeof(st->totals))) {
			if (bss_fd < 0 && (flags & ENF_STATUS_VERIFY)) {
				bss_fd = mfd;
				continue;
			}
		}
		else if (!strcmp(mi.name, "counts"))
			read_counts(mfd, st);
		else if (!strcmp(mi.name, "events") && mi.type == BPF_MAP_TYPE_RINGBUF &&
			 keep_events && st->events_fd < 0) {
			st->events_fd = mfd;
			continue;
		}
		close(mfd);
	}
	if (!cfg_ok) {
		err = -EPROTO;
		why(st->why, sizeof(st->why),
		    "%s holds program %u, which is not one this pmuguard can read (another "
		    "version?)",
		    link_path, li.prog_id);
		goto out;
	}
	st->attached = true;
	if (flags & ENF_STATUS_VERIFY)
		verify_pinned(bss_fd, &st->cfg, st->attach, &st->verify);
out:
	if (bss_fd >= 0)
		close(bss_fd);
	if (prog_fd >= 0)
		close(prog_fd);
	close(link_fd);
	if (err && st->events_fd >= 0) {
		close(st->events_fd);
		st->events_fd = -1;
	}
	return err;
}

struct follow_ctx {
	enf_event_fn fn;
	void *ctx;
};

static int on_record(void *ctx, void *data, size_t size)
{
	struct follow_ctx *f = ctx;
	if (size >= sizeof(struct pmug_enf_event))
		f->fn(f->ctx, data);
	return 0;
}

/* The id of the link pinned at link_path: 0 when nothing is pinned there,
 * UINT32_MAX when it cannot be read just now. */
static uint32_t pinned_link_id(const char *link_path)
{
	int fd = bpf_obj_get(link_path);
	if (fd < 0)
		return errno == ENOENT ? 0 : UINT32_MAX;
	struct bpf_link_info li;
	__u32 len = sizeof(li);
	memset(&li, 0, sizeof(li));
	uint32_t id = bpf_obj_get_info_by_fd(fd, &li, &len) == 0 ? li.id : UINT32_MAX;
	close(fd);
	return id;
}

int enf_follow(int events_fd, uint32_t link_id, const char *pin_dir, enf_event_fn fn, void *ctx,
	       bool (*stop)(void *ctx))
{
	char link_path[PATH_MAX];
	if (!join(link_path, sizeof(link_path), pin_dir, "link"))
		return -ENAMETOOLONG;
	struct follow_ctx f = {fn, ctx};
	libbpf_set_print(NULL);
	struct ring_buffer *rb = ring_buffer__new(events_fd, on_record, &f, NULL);
	if (!rb)
		return errno ? -errno : -EINVAL;
	int err = 0;
	while (!stop(ctx)) {
		int n = ring_buffer__poll(rb, 1000);
		if (n < 0 && n != -EINTR) {
			err = n;
			break;
		}
		/* Stopped (unpinned), or replaced by a start with another
		 * policy (a new link renamed over the pin): this ring buffer
		 * gets nothing more.  Drain what is left and end. */
		uint32_t now = pinned_link_id(link_path);
		if (now == 0 || (now != UINT32_MAX && now != link_id)) {
			ring_buffer__consume(rb);
			err = now == 0 ? -ENOENT : -ESTALE;
			break;
		}
	}
	ring_buffer__free(rb);
	return err;
}

/* The last line of text that is not empty and does not start with one of
 * skip[] (NULL-terminated): [*line, *end), or false. */
static bool last_line(const char *text, const char *const *skip, const char **line,
		      const char **end)
{
	bool found = false;
	for (const char *b = text; *b;) {
		const char *e = b + strcspn(b, "\n");
		bool keep = e > b;
		for (unsigned i = 0; keep && skip[i]; i++)
			keep = strncmp(b, skip[i], strlen(skip[i])) != 0;
		if (keep) {
			*line = b;
			*end = e;
			found = true;
		}
		b = *e ? e + 1 : e;
	}
	return found;
}

/* Why a load failed, in one line: the CO-RE relocation that found no field
 * (libbpf says "relo #N: ..."), else the verifier's last words before its
 * summary, else libbpf's last line. */
static void load_reason(const char *libbpf, const char *verifier, char *out, size_t size)
{
	static const char *const summary[] = {"processed ", "verification time", "stack depth",
					      NULL};
	static const char *const none[] = {NULL};
	const char *line = NULL, *end = NULL;
	const char *relo = strstr(libbpf, "relo #");
	if (relo) {
		line = relo;
		while (line > libbpf && line[-1] != '\n')
			line--;
		end = line + strcspn(line, "\n");
	} else if (!last_line(verifier, summary, &line, &end)) {
		last_line(libbpf, none, &line, &end);
	}
	if (line && end > line)
		snprintf(out, size, "%.*s", (int)(end - line), line);
	else if (size)
		out[0] = '\0';
}

/* Read an iterator's whole output.  0 with *buf (malloc'd, the caller
 * frees) and *len, or -errno. */
static int read_iter(int fd, char **buf, size_t *len)
{
	size_t cap = 64 * 1024, n = 0;
	char *b = malloc(cap);
	if (!b)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			/* 64 bytes per perf event file: 16 MiB is 262144 of them. */
			if (cap >= 16u << 20) {
				free(b);
				return -EFBIG;
			}
			char *nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0) {
			int err = -errno;
			free(b);
			return err;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* security/lockdown/lockdown.c: confidentiality withholds
 * bpf_probe_read_kernel (LOCKDOWN_BPF_READ_KERNEL), which the iterator
 * needs to read an event through its file; the guard itself does not. */
static bool lockdown_confidential(void)
{
	char buf[128];
	return probe_read_small("/sys/kernel/security/lockdown", buf, sizeof(buf)) > 0 &&
	       strstr(buf, "[confidentiality]");
}

int enf_existing_read(struct enf_existing *ex, const struct pmug_enf_config *cfg)
{
	memset(ex, 0, sizeof(*ex));
	char log[1024];
	capture_libbpf(log, sizeof(log));
	struct bpf_link *link = NULL;
	int iter_fd = -1, err = 0;
	char *buf = NULL, *vlog = NULL;
	size_t len = 0;
	struct pmug_enforce_iter *skel = pmug_enforce_iter__open();
	if (!skel) {
		err = errno ? -errno : -EINVAL;
		why(ex->why, sizeof(ex->why), "cannot open the embedded iterator: %s",
		    strerror(-err));
		goto out;
	}
	/* The verifier's words, should it refuse, in a buffer of their own:
	 * libbpf's messages are kept 512 bytes at a time. */
	const size_t vlog_size = 64 * 1024;
	vlog = calloc(1, vlog_size);
	if (vlog)
		bpf_program__set_log_buf(skel->progs.pmug_perf_files, vlog, vlog_size);
	err = pmug_enforce_iter__load(skel);
	if (err) {
		err = err < 0 ? err : -EINVAL;
		char said[160];
		load_reason(log, vlog ? vlog : "", said, sizeof(said));
		why(ex->why, sizeof(ex->why),
		    "the kernel refused the task_file iterator: %s%s%s%s%s", strerror(-err),
		    said[0] ? " (" : "", said, said[0] ? ")" : "",
		    lockdown_confidential() ? "; kernel lockdown is confidentiality, which keeps "
					      "BPF from reading kernel memory"
					    : "");
		goto out;
	}
	link = bpf_program__attach_iter(skel->progs.pmug_perf_files, NULL);
	if (!link) {
		err = errno ? -errno : -EINVAL;
		why(ex->why, sizeof(ex->why), "cannot attach the task_file iterator: %s",
		    strerror(-err));
		goto out;
	}
	iter_fd = bpf_iter_create(bpf_link__fd(link));
	if (iter_fd < 0) {
		err = -errno;
		why(ex->why, sizeof(ex->why), "cannot create the task_file iterator: %s",
		    strerror(-err));
		goto out;
	}
	err = read_iter(iter_fd, &buf, &len);
	if (err) {
		why(ex->why, sizeof(ex->why), "reading the task_file iterator: %s",
		    strerror(-err));
		goto out;
	}
	err = enf_existing_judge(ex, cfg, buf, len);
out:
	free(buf);
	if (iter_fd >= 0)
		close(iter_fd);
	bpf_link__destroy(link);
	pmug_enforce_iter__destroy(skel); /* unloads it: nothing of it stays */
	free(vlog);
	capture_libbpf(NULL, 0);
	if (err)
		ex->known = false;
	return err;
}
