// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A user's name and a group's id from /etc/passwd and /etc/group, read as
 * data.  The command is one static binary for every distribution: glibc's
 * getpwuid() and getgrnam() would load the host's NSS modules, built for
 * another glibc, into it.  The names asked for (a snapshot's owner, the
 * journal's groups: systemd-journal, adm, wheel) are local accounts; one
 * only a directory service knows is said by its number.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"

/* Field n (0-based) of a colon-separated line, into out; false where the
 * line has fewer. */
static bool field(const char *line, unsigned n, char *out, size_t size)
{
	for (; n; n--) {
		line = strchr(line, ':');
		if (!line)
			return false;
		line++;
	}
	size_t len = strcspn(line, ":\n");
	if (len >= size)
		return false;
	memcpy(out, line, len);
	out[len] = '\0';
	return true;
}

/* The first line of path whose field key_field is key: its field
 * want_field into out. */
static bool lookup(const char *path, unsigned key_field, const char *key, unsigned want_field,
		   char *out, size_t size)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	char line[1024], k[256];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '+' || line[0] == '-')
			continue; /* a comment, or NIS's compat entries */
		found = field(line, key_field, k, sizeof(k)) && strcmp(k, key) == 0 &&
			field(line, want_field, out, size);
	}
	fclose(f);
	return found;
}

bool account_user_name(uid_t uid, char *out, size_t size)
{
	char key[24];
	snprintf(key, sizeof(key), "%u", (unsigned)uid);
	return lookup("/etc/passwd", 2, key, 0, out, size) && *out;
}

bool account_group_id(const char *name, gid_t *gid)
{
	char num[24], *end;
	if (!lookup("/etc/group", 0, name, 2, num, sizeof(num)) || !*num)
		return false;
	unsigned long v = strtoul(num, &end, 10);
	if (*end || v > (gid_t)-1)
		return false;
	*gid = (gid_t)v;
	return true;
}
