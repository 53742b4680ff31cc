// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where a snapshot named by --snapshot or PMUGUARD_SNAPSHOT lives: a path,
 * or the NAME of a reference snapshot installed with pmuguard (the worlds
 * of tests/snapshots, under DATADIR/pmuguard/snapshots), so that
 * `pmuguard run --audit --snapshot m6i-16xlarge -- CMD` works from the
 * package alone.  The command and the shim resolve through this one
 * function, so a name means the same folder to both.
 *
 * Trust: the name comes from the environment or the command line, which
 * settings.c takes only where they may point the facts anywhere (not under
 * lock = yes, nothing in a secure process); a name without '/' cannot leave
 * the folder it is looked up in ("." and ".." are directories here, so
 * paths).  Raw system calls, no allocation: the shim runs this.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "probe.h"
#include "sys.h"

#ifndef PMUGUARD_SNAPSHOTDIR /* meson.build passes DATADIR/pmuguard/snapshots */
#define PMUGUARD_SNAPSHOTDIR "/usr/share/pmuguard/snapshots"
#endif
const char probe_snapshot_dir[] = PMUGUARD_SNAPSHOTDIR;

/* 1 where path is a directory (or a link to one), 0 where it is not or
 * cannot be looked at.  O_PATH: no read permission needed, nothing opened
 * for reading (a FIFO named like a snapshot does not block). */
static int is_dir(const char *path)
{
	long fd = pmug_open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	pmug_close(fd);
	return 1;
}

static int copy(char *out, size_t size, const char *s)
{
	size_t n = strlen(s);
	if (n + 1 > size)
		return -ENAMETOOLONG;
	memcpy(out, s, n + 1);
	return 0;
}

int probe_snapshot_find(char *out, size_t size, const char *name, const char *dir)
{
	if (!dir || !*dir)
		dir = probe_snapshot_dir;
	/* memchr: the shim's string functions (shim/str.c) have no strchr. */
	if (!*name || memchr(name, '/', strlen(name)) || is_dir(name))
		return copy(out, size, name);
	if (!probe_join(out, size, dir, name))
		return -ENAMETOOLONG;
	if (is_dir(out))
		return 1;
	(void)copy(out, size, name);
	return -ENOENT;
}
