// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmuguard snapshot DIR: capture this machine in the layout the probe reads
 * back with --snapshot / PMUGUARD_SNAPSHOT, to attach to a report or replay
 * elsewhere:
 *
 *   DIR/cpuid.txt      every CPU, in `cpuid -r` form
 *   DIR/dmesg.txt      the kernel log, when readable
 *   DIR/msr.txt        IA32_PERF_CAPABILITIES, when readable (root, msr driver)
 *   DIR/sys/bus/event_source/devices/<pmu>/...   sysfs, as plain files
 *   DIR/dmi/{sys_vendor,product_name,product_version}   which machine (on EC2
 *                      "Amazon EC2" and the instance type), where readable
 *   DIR/snapshot.txt   what was captured, and what could not be and why
 *
 * The kernel log is root's to read where kernel.dmesg_restrict=1, and root
 * runs this: DIR must be the caller's own and closed to other writers
 * (else its owner could read the log and plant links in DIR while it is
 * written), and everything in it is created relative to directory
 * descriptors, never through a link, private (0700 folders, 0600 files).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "probe.h"
#include "status.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

struct snap {
	const char *dir; /* as given, for messages */
	int dfd;	 /* DIR itself, opened without following a link */
	FILE *meta;
	int problems;
};

__attribute__((format(printf, 2, 3))) static void note(struct snap *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(s->meta, fmt, ap);
	va_end(ap);
	fputc('\n', s->meta);
}

__attribute__((noreturn)) static void appeared(struct snap *s, const char *rel)
{
	die("snapshot %s: %s appeared in it while the snapshot was written: something else "
	    "writes into the directory; stopped, nothing written through it",
	    s->dir, rel);
}

/* Every entry is new: DIR was empty and no one else can write in it, so an
 * entry already there means something else writes into DIR now.  O_EXCL
 * (and O_NOFOLLOW) never follow a link planted in a file's place. */
static FILE *create_at(struct snap *s, int at, const char *name, const char *rel)
{
	int fd = openat(at, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		if (errno == EEXIST)
			appeared(s, rel);
		die_errno("cannot create %s/%s", s->dir, rel);
	}
	FILE *f = fdopen(fd, "w");
	if (!f)
		die_errno("cannot create %s/%s", s->dir, rel);
	return f;
}

static FILE *create(struct snap *s, const char *name)
{
	return create_at(s, s->dfd, name, name);
}

/* The folder name in at, made here (0700) and opened without following a
 * link: one already there (a link, or another's) is never written through. */
static int subdir(struct snap *s, int at, const char *name, const char *rel)
{
	if (mkdirat(at, name, 0700) < 0) {
		if (errno == EEXIST)
			appeared(s, rel);
		die_errno("cannot create %s/%s", s->dir, rel);
	}
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		die_errno("cannot open %s/%s", s->dir, rel);
	return fd;
}

/* rel ("a/b/c") made folder by folder under DIR; the last one's fd. */
static int subdirs(struct snap *s, const char *rel)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof(buf), "%s", rel) >= (int)sizeof(buf))
		die("snapshot %s/%s: path too long", s->dir, rel);
	int at = s->dfd;
	for (char *name = buf, *slash;; name = slash + 1) {
		slash = strchr(name, '/');
		if (slash)
			*slash = '\0';
		int fd = subdir(s, at, name, buf);
		if (at != s->dfd)
			close(at);
		at = fd;
		if (!slash)
			return at;
		*slash = '/';
	}
}

static void finish(FILE *f, const char *what)
{
	if (ferror(f) || fclose(f) != 0)
		die_errno("writing %s", what);
}

#if defined(__x86_64__) || defined(__i386__)
static void leaf(FILE *o, uint32_t l, uint32_t sub)
{
	unsigned a, b, c, d;
	__cpuid_count(l, sub, a, b, c, d);
	fprintf(o, "   0x%08x 0x%02x: eax=0x%08x ebx=0x%08x ecx=0x%08x edx=0x%08x\n", l, sub, a, b,
		c, d);
}

/* The leaves and subleaves `cpuid -r` prints that matter for the PMU and for
 * telling machines apart; subleaf loops follow the SDM's enumeration rules. */
static void dump_cpu(FILE *o)
{
	unsigned a, b, c, d;
	__cpuid_count(0, 0, a, b, c, d);
	uint32_t max = a < 0x40 ? a : 0x40;
	for (uint32_t l = 0; l <= max; l++) {
		leaf(o, l, 0);
		if (l == 4) {
			for (uint32_t s = 1; s < 16; s++) {
				__cpuid_count(4, s, a, b, c, d);
				if ((a & 0x1f) == 0)
					break;
				leaf(o, 4, s);
			}
		} else if (l == 7 || l == 0x23) {
			__cpuid_count(l, 0, a, b, c, d);
			uint32_t subs = l == 7 ? (a < 4 ? a : 4) : 3;
			for (uint32_t s = 1; s <= subs; s++)
				leaf(o, l, s);
		} else if (l == 0xb || l == 0x1f) {
			for (uint32_t s = 1; s < 8; s++) {
				__cpuid_count(l, s, a, b, c, d);
				if (((c >> 8) & 0xff) == 0)
					break;
				leaf(o, l, s);
			}
		} else if (l == 0xd) {
			leaf(o, 0xd, 1);
		}
	}
	__cpuid_count(1, 0, a, b, c, d);
	if ((c >> 31) & 1) {
		__cpuid_count(0x40000000, 0, a, b, c, d);
		uint32_t hmax = a >= 0x40000000 && a < 0x40000010 ? a : 0x40000001;
		for (uint32_t l = 0x40000000; l <= hmax; l++)
			leaf(o, l, 0);
	}
	__cpuid_count(0x80000000, 0, a, b, c, d);
	uint32_t emax = a >= 0x80000000 && a < 0x80000040 ? a : 0x80000000;
	for (uint32_t l = 0x80000000; l <= emax; l++)
		leaf(o, l, 0);
}
#endif

static void snap_cpuid(struct snap *s)
{
#if defined(__x86_64__) || defined(__i386__)
	cpu_set_t orig, one;
	if (sched_getaffinity(0, sizeof(orig), &orig) < 0)
		die_errno("sched_getaffinity");
	FILE *o = create(s, "cpuid.txt");
	int n = 0;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &orig))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) < 0) {
			note(s, "cpuid: CPU %d skipped: %s", cpu, strerror(errno));
			continue;
		}
		fprintf(o, "CPU %d:\n", cpu);
		dump_cpu(o);
		n++;
	}
	sched_setaffinity(0, sizeof(orig), &orig);
	finish(o, "cpuid.txt");
	note(s, "cpuid.txt: %d CPUs", n);
#else
	note(s, "cpuid.txt: not written: CPUID exists only on x86");
	s->problems++;
#endif
}

/* dmesg.txt keeps what the probe needs to judge each record: a /dev/kmsg
 * record is written as `dmesg -r` prints it, "<pri>[ts] text", its
 * priority (the facility: the kernel's or userspace's) and time kept, its
 * text as the kernel escaped it (one record, one line). */
static int copy_line(void *ctx, enum probe_klog_form form, const char *line, size_t len)
{
	unsigned pri;
	uint64_t usec;
	const char *text;
	size_t n;
	if (form == PROBE_KLOG_KMSG) {
		if (!probe_kmsg_record(line, len, &pri, &usec, &text, &n))
			return 0;
		fprintf(ctx, "<%u>[%5" PRIu64 ".%06" PRIu64 "] ", pri, usec / 1000000, usec % 1000000);
		line = text;
		len = n;
	}
	fwrite(line, 1, len, ctx);
	fputc('\n', ctx);
	return 0;
}

static void snap_dmesg(struct snap *s)
{
	FILE *o = create(s, "dmesg.txt");
	int rc = probe_klog_each_line(NULL, copy_line, o);
	finish(o, "dmesg.txt");
	if (rc < 0) {
		/* absent means unknown, an empty file would mean "read, nothing" */
		unlinkat(s->dfd, "dmesg.txt", 0);
		note(s, "dmesg.txt: not written: the kernel log is unreadable: %s%s", strerror(-rc),
		     rc == -EPERM ? " (kernel.dmesg_restrict=1: run as root)" : "");
		s->problems++;
	} else {
		note(s, "dmesg.txt: the kernel log");
	}
}

static void snap_msr(struct snap *s)
{
	uint64_t v;
	int rc = probe_msr_read(0, PROBE_MSR_PERF_CAPABILITIES, &v);
	if (rc < 0) {
		note(s, "msr.txt: not written: /dev/cpu/0/msr: %s", strerror(-rc));
		return;
	}
	FILE *o = create(s, "msr.txt");
	fprintf(o, "0x%x 0x%016" PRIx64 "\n", PROBE_MSR_PERF_CAPABILITIES, v);
	finish(o, "msr.txt");
	note(s, "msr.txt: IA32_PERF_CAPABILITIES");
}

/* The DMI identity (anyone may read these three; the serials are root's
 * and say nothing about the PMU: not copied). */
static void snap_dmi(struct snap *s)
{
	static const char *const names[] = {"sys_vendor", "product_name", "product_version"};
	int n = 0, dmi = -1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char from[PATH_MAX], rel[64], buf[256];
		snprintf(rel, sizeof(rel), "dmi/%s", names[i]);
		if (!probe_join(from, sizeof(from), PROBE_DMI_DIR, names[i]))
			continue;
		long len = probe_read_small(from, buf, sizeof(buf));
		if (len < 0)
			continue;
		if (n++ == 0)
			dmi = subdir(s, s->dfd, "dmi", "dmi");
		FILE *o = create_at(s, dmi, names[i], rel);
		fwrite(buf, 1, (size_t)len, o);
		fputc('\n', o);
		finish(o, rel);
	}
	if (dmi >= 0)
		close(dmi);
	if (n)
		note(s, "dmi/: %d of sys_vendor, product_name, product_version", n);
	else
		note(s, "dmi/: not written: %s is not readable", PROBE_DMI_DIR);
}

/* Copy the readable regular files of src into the new folder name in at
 * (rel under DIR); recurse into the named attribute groups only (format,
 * events, caps), never through links. */
static void copy_dir(struct snap *s, const char *src, int at, const char *name, const char *rel,
		     int depth)
{
	DIR *d = opendir(src);
	if (!d) {
		note(s, "sysfs: %s: %s", src, strerror(errno));
		s->problems++;
		return;
	}
	int dfd = subdir(s, at, name, rel);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "uevent"))
			continue;
		char from[PATH_MAX], to[PATH_MAX];
		if (!probe_join(from, sizeof(from), src, e->d_name) ||
		    !probe_join(to, sizeof(to), rel, e->d_name))
			continue;
		struct stat st;
		if (lstat(from, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth == 0 && (!strcmp(e->d_name, "format") ||
					   !strcmp(e->d_name, "events") ||
					   !strcmp(e->d_name, "caps")))
				copy_dir(s, from, dfd, e->d_name, to, depth + 1);
			continue;
		}
		if (!S_ISREG(st.st_mode) || !(st.st_mode & 0444))
			continue;
		char buf[8192]; /* a sysfs attribute is at most a page */
		long n = probe_read_small(from, buf, sizeof(buf));
		if (n < 0)
			continue; /* write-only or failing attributes */
		FILE *o = create_at(s, dfd, e->d_name, to);
		fwrite(buf, 1, (size_t)n, o);
		fputc('\n', o);
		finish(o, to);
	}
	closedir(d);
	close(dfd);
}

static void snap_sysfs(struct snap *s)
{
	static const char root[] = "sys/bus/event_source/devices";
	int rfd = subdirs(s, root);
	DIR *d = opendir(PROBE_SYSFS_DEVICES);
	if (!d) {
		note(s, "sys/: %s: %s", PROBE_SYSFS_DEVICES, strerror(errno));
		s->problems++;
		close(rfd);
		return;
	}
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char from[PATH_MAX], to[PATH_MAX];
		if (!probe_join(from, sizeof(from), PROBE_SYSFS_DEVICES, e->d_name) ||
		    !probe_join(to, sizeof(to), root, e->d_name))
			continue;
		copy_dir(s, from, rfd, e->d_name, to, 0);
		n++;
	}
	closedir(d);
	close(rfd);
	note(s, "sys/bus/event_source/devices: %d PMUs", n);
}

/* snapshot --list: the reference snapshots --snapshot NAME finds, one a
 * line, for people and scripts alike. */
static int list_reference(void)
{
	const char *dir = cli_snapshot_dir();
	int n = cli_list_snapshots(stdout, dir, "");
	if (n < 0) {
		errno = -n;
		die_errno("reference snapshots %s", dir);
	}
	if (fflush(stdout) != 0)
		die_errno("writing the list");
	return EXIT_OK;
}

/* "uid 65534 (nobody)", or the number alone where no name is known. */
static const char *who(uid_t uid, char *buf, size_t size)
{
	char name[64];
	if (account_user_name(uid, name, sizeof(name)))
		snprintf(buf, size, "uid %u (%s)", (unsigned)uid, name);
	else
		snprintf(buf, size, "uid %u", (unsigned)uid);
	return buf;
}

/* DIR, made 0700 where it is missing, opened without following a link, and
 * refused unless it is the caller's own, closed to other writers and
 * empty.  Its parent is the caller's path, followed as given. */
static int open_target(const char *dir)
{
	char parent[PATH_MAX], base[PATH_MAX];
	size_t len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len >= sizeof(parent))
		die("snapshot %s: path too long", dir);
	memcpy(parent, dir, len);
	parent[len] = '\0';
	char *slash = strrchr(parent, '/');
	if (!slash) {
		snprintf(base, sizeof(base), "%s", parent);
		snprintf(parent, sizeof(parent), ".");
	} else {
		snprintf(base, sizeof(base), "%s", slash[1] ? slash + 1 : ".");
		if (slash == parent)
			slash++; /* "/x": the parent is "/" */
		*slash = '\0';
	}
	int pfd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		die_errno("snapshot %s: cannot open %s, the directory it goes in", dir, parent);
	bool made = mkdirat(pfd, base, 0700) == 0;
	if (!made && errno != EEXIST)
		die_errno("cannot create %s", dir);
	int fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		struct stat lst;
		/* A link gives ELOOP, or ENOTDIR where O_DIRECTORY is checked first. */
		if (errno == ELOOP || (errno == ENOTDIR &&
				       fstatat(pfd, base, &lst, AT_SYMLINK_NOFOLLOW) == 0 &&
				       S_ISLNK(lst.st_mode)))
			die("snapshot %s: refused: it is a symbolic link; give the directory itself, "
			    "or a path that does not exist yet (pmuguard makes it, mode 0700)",
			    dir);
		if (errno == ENOTDIR)
			die("snapshot %s: not a directory", dir);
		die_errno("snapshot %s", dir);
	}
	close(pfd);
	struct stat st;
	if (fstat(fd, &st) < 0)
		die_errno("snapshot %s", dir);
	char owner[96], me[96];
	if (st.st_uid != geteuid())
		die("snapshot %s: refused: the directory belongs to %s, not to %s who runs this: "
		    "its owner could read the kernel log copied into it and plant links in it "
		    "while the snapshot is written; give a path that does not exist yet "
		    "(pmuguard makes it, mode 0700) or a directory of your own",
		    dir, who(st.st_uid, owner, sizeof(owner)), who(geteuid(), me, sizeof(me)));
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		die("snapshot %s: refused: the directory is writable by %s (mode %04o), who could "
		    "plant links in it while the snapshot is written (a sticky bit does not "
		    "prevent that); give a path that does not exist yet (pmuguard makes it, "
		    "mode 0700) or a directory only you can write (chmod go-w)",
		    dir, st.st_mode & S_IWOTH ? "other users" : "its group",
		    (unsigned)(st.st_mode & 07777));
	if (!made) {
		int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
		if (!d)
			die_errno("%s", dir);
		struct dirent *e;
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				closedir(d);
				die("snapshot %s: the directory is not empty", dir);
			}
		closedir(d);
	}
	return fd;
}

int cmd_snapshot(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--list"))
		return list_reference();
	if (argc != 2 || argv[1][0] == '-') {
		if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			printf("Usage: pmuguard snapshot DIR\n"
			       "       pmuguard snapshot --list\n"
			       "\n"
			       "Capture this machine's PMU facts (cpuid, the PMU driver's boot lines,\n"
			       "the core PMUs' sysfs) into DIR, for --snapshot, PMUGUARD_SNAPSHOT or\n"
			       "snapshot = DIR in /etc/pmuguard.conf on another machine.\n"
			       "DIR is made (mode 0700) where it does not exist; an existing one must be\n"
			       "empty, yours, and writable by you alone (not a shared /tmp folder):\n"
			       "it gets the kernel log.  Its folders are 0700 and its files 0600; to\n"
			       "hand it on, pack it: tar -czf pmu-facts.tar.gz -C DIR .\n"
			       "  --list   print the names of the reference snapshots: the folders\n"
			       "           --snapshot NAME and PMUGUARD_SNAPSHOT=NAME find, in\n"
			       "           %s\n"
			       "           (or in PMUGUARD_SNAPSHOT_DIR, where that is set)\n"
			       "\n"
			       "Example: pmuguard snapshot ./pmu-facts\n"
			       "\n"
			       "Exit: 0 written (listed); 1 DIR refused or could not be written (read);\n"
			       "2 usage.\n",
			       probe_snapshot_dir);
			return EXIT_OK;
		}
		die_usage("snapshot: exactly one argument, the directory to create (or --list)");
	}
	struct snap s = {.dir = argv[1]};
	s.dfd = open_target(s.dir);
	s.meta = create(&s, "snapshot.txt");
	struct utsname u;
	uname(&u);
	time_t now = time(NULL);
	char when[64];
	doc_time_utc(when, sizeof(when), now, DOC_TIME_ISO);
	note(&s, "pmuguard %s snapshot of %s, kernel %s %s, taken %s", PMUGUARD_VERSION, u.nodename,
	     u.release, u.machine, when);
	snap_cpuid(&s);
	snap_dmesg(&s);
	snap_msr(&s);
	snap_sysfs(&s);
	snap_dmi(&s);
	finish(s.meta, "snapshot.txt");
	close(s.dfd);
	fprintf(stderr, "pmuguard: snapshot written to %s%s\n", s.dir,
		s.problems ? " (some facts missing: see snapshot.txt)" : "");
	return EXIT_OK;
}
