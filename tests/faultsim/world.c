// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * faultsim's world: which PMU types count as core (--core-types), and
 * which perf_event_open calls fault there (README.md: a call faults).
 */
#include "faultsim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int parse_u32(const char *s, const char *end, uint32_t *out)
{
	uint64_t v = 0;

	if (s == end)
		return -EINVAL;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return -ERANGE;
	}
	*out = (uint32_t)v;
	return 0;
}

int parse_core_types(const char *list, struct world *w)
{
	const char *p = list;

	w->n_core_types = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);
		uint32_t v;
		int rc = parse_u32(p, end, &v);

		if (rc < 0)
			return rc;
		if (w->n_core_types >= MAX_CORE_TYPES)
			return -E2BIG;
		w->core_types[w->n_core_types++] = v;
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

bool is_core_type(const struct world *w, uint32_t type)
{
	if (type == PERF_TYPE_RAW_NR)
		return true;
	for (unsigned int i = 0; i < w->n_core_types; i++)
		if (w->core_types[i] == type)
			return true;
	return false;
}

/* TOPDOWN.SLOTS (0x0400) or topdown metric pseudo events (0x8000..0x8700) */
bool is_fixed3_encoding(uint64_t config)
{
	unsigned int event = (unsigned int)(config & 0xff);
	unsigned int umask = (unsigned int)((config >> 8) & 0xff);

	if (event != 0x00)
		return false;
	return umask == 0x04 || (umask >= 0x80 && umask <= 0x87);
}

/*
 * The kernel looks a group descriptor up before it allocates the event: a
 * descriptor the target does not have is EBADF, and nothing reaches a
 * counter (the shim asks the kernel to read an attr that way).
 */
bool group_fd_missing(pid_t pid, uint64_t group_fd)
{
	int fd = (int)group_fd;
	char path[64];

	if (fd == -1)
		return false;
	if (fd < 0)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	return faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT;
}
