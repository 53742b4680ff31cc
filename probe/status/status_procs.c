// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The running processes, as `pmuguard status` sees them: which map the
 * library (by the maps' whole path column), and of the others, which hold
 * perf event files (the ones a restart would guard).  Not under --root:
 * a tree has no processes.
 *
 * Bounded: a maps file is a line a mapping, with the mapped file's whole
 * path, so any user can make one of hundreds of megabytes (65,000
 * mappings of a long path: 257 MB), and four such processes took status
 * from under 2 s to 23 s.  A maps file is read until the library's line
 * or STATUS_MAPS_MAX bytes, the scan stops at its deadline, and a process
 * not read whole is counted as such (not_read): unknown, never mapped or
 * unmapped.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "status.h"

/* One read(2) of a maps file: the kernel fills it with whole lines where
 * they fit (fs/seq_file.c, seq_read_iter), a few hundred at a time. */
#define MAPS_CHUNK (64u << 10)

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_pid(const struct dirent *e)
{
	return e->d_name[0] >= '0' && e->d_name[0] <= '9';
}

bool status_maps_line_names(const char *line, const char *real, const char *lib)
{
	/* "ADDR PERMS OFFSET DEV INODE   PATH": the path is the sixth column,
	 * whole (a substring would take /home/u/usr/lib/... for the library). */
	int at = -1;
	if (sscanf(line, "%*s %*s %*s %*s %*s %n", &at) != 0 || at < 0 || !line[at])
		return false;
	const char *path = line + at;
	size_t n = strcspn(path, "\n");
	return (strlen(real) == n && strncmp(path, real, n) == 0) ||
	       (strlen(lib) == n && strncmp(path, lib, n) == 0);
}

int status_procs_deadline_ms(void)
{
	return status_deadline_ms("PMUGUARD_STATUS_PROCS_DEADLINE_MS", STATUS_PROCS_DEADLINE_MS);
}

/* What one scan needs: the two names, the deadline, one buffer. */
struct scan {
	const char *real, *lib;
	size_t real_len, lib_len;
	long long deadline;
	char *buf; /* MAPS_CHUNK + 1 */
};

enum maps_answer {
	MAPS_UNREADABLE, /* not a byte: not ours to read, gone, or a kernel thread */
	MAPS_ABSENT,     /* read whole, and no line names the library */
	MAPS_NAMES,      /* a line names it (read no further) */
	MAPS_NOT_READ,   /* stopped before the end: the cap, the deadline, an error */
};

/* Does the line [line, nl) name the library?  Its path column ends the
 * line, so a line that does not end with one of the names is passed over
 * without being parsed. */
static bool line_names(const struct scan *s, char *line, char *nl)
{
	size_t len = (size_t)(nl - line);
	if (!(len > s->real_len && memcmp(nl - s->real_len, s->real, s->real_len) == 0) &&
	    !(len > s->lib_len && memcmp(nl - s->lib_len, s->lib, s->lib_len) == 0))
		return false;
	*nl = '\0';
	return status_maps_line_names(line, s->real, s->lib);
}

/* Does the maps file name the library (its resolved path, or lib as
 * listed)?  Read in chunks, up to STATUS_MAPS_MAX bytes and the scan's
 * deadline; a line longer than a chunk is passed over (the library's path
 * is shorter than PATH_MAX). */
static enum maps_answer maps_names(const struct scan *s, const char *pid)
{
	char path[300];
	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return MAPS_UNREADABLE;
	enum maps_answer a = MAPS_UNREADABLE;
	size_t have = 0, total = 0;
	bool skipping = false; /* within a line longer than a chunk */
	for (;;) {
		/* One byte past the cap says there is more than it. */
		size_t want = MAPS_CHUNK - have;
		if (want > STATUS_MAPS_MAX + 1 - total)
			want = STATUS_MAPS_MAX + 1 - total;
		ssize_t n = read(fd, s->buf + have, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			/* Refused at the first read (a process of another user
			 * that exec'd a set-uid program) is unreadable; cut off
			 * later, the file was not read whole. */
			if (a != MAPS_UNREADABLE)
				a = MAPS_NOT_READ;
			break;
		}
		if (n == 0) {
			/* The end; a last line without its newline is a line. */
			if (have && !skipping) {
				s->buf[have] = '\n';
				if (line_names(s, s->buf, s->buf + have))
					a = MAPS_NAMES;
			}
			break;
		}
		a = MAPS_ABSENT;
		total += (size_t)n;
		char *line = s->buf, *stop = s->buf + have + n, *nl;
		while ((nl = memchr(line, '\n', (size_t)(stop - line)))) {
			if (!skipping && line_names(s, line, nl)) {
				a = MAPS_NAMES;
				goto out;
			}
			skipping = false;
			line = nl + 1;
		}
		have = (size_t)(stop - line);
		if (skipping || have == MAPS_CHUNK) {
			skipping = true;
			have = 0;
		} else {
			memmove(s->buf, line, have);
		}
		if (total > STATUS_MAPS_MAX || status_now_ms() >= s->deadline) {
			a = MAPS_NOT_READ;
			break;
		}
	}
out:
	close(fd);
	return a;
}

static bool is_kthread(const char *pid)
{
	char path[300], buf[1024];
	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true; /* gone: not counted */
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	if (!p)
		return true;
	/* After "PID (COMM) ": state ppid pgrp session tty_nr tpgid flags. */
	unsigned long flags = 0;
	if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return true;
	return flags & 0x00200000; /* PF_KTHREAD */
}

#define STATUS_FDS_MAX 65536
static unsigned perf_fds(const char *pid)
{
	char path[300];
	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	/* Bounded as the maps are: a process with a million descriptors
	 * costs a million readlinks.  Past the cap the count is a floor. */
	unsigned n = 0, seen = 0;
	struct dirent *e;
	while ((e = readdir(d)) && seen++ < STATUS_FDS_MAX) {
		char l[64];
		ssize_t k = readlinkat(dirfd(d), e->d_name, l, sizeof(l) - 1);
		if (k < 0)
			continue;
		l[k] = '\0';
		n += strcmp(l, "anon_inode:[perf_event]") == 0;
	}
	closedir(d);
	return n;
}

/* The comm as a label: no newline, every byte that is not a graphic
 * character a '?', "?" where empty. */
static void comm_of(const char *pid, char *buf, size_t size)
{
	char path[300];
	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	size_t at = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		char c[64];
		ssize_t n = read(fd, c, sizeof(c));
		close(fd);
		for (ssize_t i = 0; i < n && at + 1 < size; i++) {
			unsigned char ch = (unsigned char)c[i];
			if (ch == '\n')
				continue;
			buf[at++] = ch > 0x20 && ch < 0x7f ? (char)ch : '?';
		}
	}
	if (!at)
		buf[at++] = '?';
	buf[at] = '\0';
}

void status_gather_processes(struct status_model *m)
{
	const struct status_opts *o = m->o;
	if ((o->root && *o->root) || !*m->lib)
		return;
	char real[PATH_MAX];
	if (!realpath(m->lib, real))
		snprintf(real, sizeof(real), "%s", m->lib);
	struct scan s = {
		.real = real,
		.lib = m->lib,
		.real_len = strlen(real),
		.lib_len = strlen(m->lib),
		.deadline = status_now_ms() + status_procs_deadline_ms(),
		.buf = malloc(MAPS_CHUNK + 1),
	};
	struct dirent **ents;
	int n = s.buf ? scandir("/proc", &ents, is_pid, by_name) : -1;
	if (n < 0) {
		free(s.buf);
		return;
	}
	m->procs_scanned = true;
	for (int i = 0; i < n; i++) {
		const char *pid = ents[i]->d_name;
		/* Past the deadline a process is not read (its stat only, a
		 * bounded read, to leave kernel threads out of the count). */
		enum maps_answer r =
			status_now_ms() >= s.deadline ? MAPS_NOT_READ : maps_names(&s, pid);
		switch (r) {
		case MAPS_UNREADABLE:
			if (!is_kthread(pid))
				m->unreadable++;
			break;
		case MAPS_NOT_READ:
			if (!is_kthread(pid))
				m->not_read++;
			break;
		case MAPS_NAMES: m->mapped++; break;
		case MAPS_ABSENT: {
			/* Only a process known not to map it is at risk. */
			m->unmapped++;
			unsigned k = perf_fds(pid);
			struct status_risk *nr =
				k ? realloc(m->risk, (m->n_risk + 1) * sizeof(*m->risk)) : NULL;
			if (nr) {
				m->risk = nr;
				struct status_risk *x = &m->risk[m->n_risk++];
				x->pid = strtol(pid, NULL, 10);
				x->fds = k;
				comm_of(pid, x->comm, sizeof(x->comm));
			}
			break;
		}
		}
		free(ents[i]);
	}
	free(ents);
	free(s.buf);
}
