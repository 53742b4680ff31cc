// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The running processes, as `pmuguard status` sees them: which map the
 * library (by the maps' whole path column), and of the others, which hold
 * perf event files (the ones a restart would guard).  Not under --root:
 * a tree has no processes.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "status.h"

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

/* Does the maps file name the library (its resolved path, or lib as
 * listed)?  -1 where its first line cannot be read: not ours to read, gone,
 * or empty (a kernel thread has no maps). */
static int maps_names(const char *pid, const char *real, const char *lib)
{
	char path[300];
	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	char *line = NULL;
	size_t cap = 0;
	int found = -1;
	while (getline(&line, &cap, f) >= 0) {
		found = 0;
		if (status_maps_line_names(line, real, lib)) {
			found = 1;
			break;
		}
	}
	free(line);
	fclose(f);
	return found;
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

static unsigned perf_fds(const char *pid)
{
	char path[300];
	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
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
	struct dirent **ents;
	int n = scandir("/proc", &ents, is_pid, by_name);
	if (n < 0)
		return;
	m->procs_scanned = true;
	for (int i = 0; i < n; i++) {
		const char *pid = ents[i]->d_name;
		int r = maps_names(pid, real, m->lib);
		if (r < 0) {
			if (!is_kthread(pid))
				m->unreadable++;
		} else if (r) {
			m->mapped++;
		} else {
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
		}
		free(ents[i]);
	}
	free(ents);
}
