// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Is a container runtime on this machine?  Its containers are out of the
 * preload's reach: each image has its own /etc/ld.so.preload, and their
 * processes are no children of a `pmuguard run`, so there only the kernel
 * guard protects anything.  Seen, not assumed: a runtime's process
 * (/proc/PID/comm, which the kernel sets from the executable's name) or
 * its API socket.  Read for a probe of this machine only (never for a
 * snapshot or a log of another).
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"

static const struct {
	const char *comm; /* a process of that name; a trailing '*' matches a prefix */
	const char *runtime;
} procs[] = {
	{"containerd", "containerd"},
	{"containerd-shim*", "containerd"},
	{"dockerd", "dockerd"},
	{"crio", "crio"},
	{"podman", "podman"},
	{"conmon", "podman or crio (conmon)"},
};

static const struct {
	const char *path;
	const char *runtime;
} sockets[] = {
	{"/run/containerd/containerd.sock", "containerd"},
	{"/run/docker.sock", "dockerd"},
	{"/run/crio/crio.sock", "crio"},
	{"/run/podman/podman.sock", "podman"},
};

static void seen(struct report_containers *c, const char *runtime, const char *how)
{
	for (unsigned i = 0; i < c->n; i++)
		if (!strcmp(c->runtime[i], runtime))
			return; /* said once, by its first evidence */
	if (c->n >= REPORT_MAX_RUNTIMES)
		return;
	c->runtime[c->n] = runtime;
	snprintf(c->evidence[c->n], sizeof(c->evidence[c->n]), "%s", how);
	c->n++;
}

static bool comm_match(const char *pattern, const char *comm)
{
	size_t n = strlen(pattern);
	if (n && pattern[n - 1] == '*')
		return strncmp(pattern, comm, n - 1) == 0;
	return strcmp(pattern, comm) == 0;
}

void report_containers_scan(struct report_containers *c)
{
	*c = (struct report_containers){.looked = true};
	DIR *d = opendir("/proc");
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (e->d_name[0] < '1' || e->d_name[0] > '9')
				continue;
			char path[64], comm[32] = "";
			snprintf(path, sizeof(path), "/proc/%.20s/comm", e->d_name);
			FILE *f = fopen(path, "re");
			if (!f)
				continue; /* gone meanwhile */
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
			for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++)
				if (comm_match(procs[i].comm, comm)) {
					char how[96];
					snprintf(how, sizeof(how), "process %.16s, pid %.20s", comm,
						 e->d_name);
					seen(c, procs[i].runtime, how);
				}
		}
		closedir(d);
	} else {
		c->looked = false;
	}
	for (size_t i = 0; i < sizeof(sockets) / sizeof(sockets[0]); i++) {
		struct stat st;
		if (stat(sockets[i].path, &st) == 0 && S_ISSOCK(st.st_mode)) {
			char how[96];
			snprintf(how, sizeof(how), "socket %s", sockets[i].path);
			seen(c, sockets[i].runtime, how);
		}
	}
}
