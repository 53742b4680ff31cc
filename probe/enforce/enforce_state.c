// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel guard's state: its words and its exits in one table (see
 * enforce_state.h).  `enforce status` writes the word as `state` and exits
 * with the code; status reads the word back, or an older pmuguard's exit.
 * The schemas (../doc/schema/) and pmuguard-fleet(8) list the same
 * words: tests/unit/test_enforce.c holds them to this table.
 */
#include <string.h>

#include "enforce_state.h"
#include "exit_codes.h"

/* The exits (../doc/exit_codes.h): attached has two, 7 where events of
 * the class allocated before it escape it.  Every other exit reads as
 * unknown (1: what is pinned could not be read, 2: usage, a signal...). */
static const struct {
	const char *word;
	int exit, exit_escaped;
} guard[ENF_GUARD_N] = {
	[ENF_GUARD_UNAVAILABLE] = {"unavailable", EXIT_NO_ENFORCE, EXIT_NO_ENFORCE},
	[ENF_GUARD_ATTACHED] = {"attached", EXIT_OK, EXIT_EXISTING_EVENTS},
	[ENF_GUARD_AUDIT] = {"audit", EXIT_AUDIT, EXIT_AUDIT},
	[ENF_GUARD_UNVERIFIED] = {"unverified", EXIT_UNVERIFIED, EXIT_UNVERIFIED},
	[ENF_GUARD_DETACHED] = {"detached", EXIT_NOT_ATTACHED, EXIT_NOT_ATTACHED},
	[ENF_GUARD_UNKNOWN] = {"unknown", EXIT_INTERNAL, EXIT_INTERNAL},
};

/* Guarded is what the self-test saw, never the pin alone; audit mode runs
 * and allows every call; an unverified guard is that whatever its mode. */
enum enf_guard enf_guard_decide(bool readable, bool attached, bool verified, bool enforce)
{
	if (!readable)
		return ENF_GUARD_UNKNOWN;
	if (!attached)
		return ENF_GUARD_DETACHED;
	if (!verified)
		return ENF_GUARD_UNVERIFIED;
	return enforce ? ENF_GUARD_ATTACHED : ENF_GUARD_AUDIT;
}

const char *enf_guard_word(enum enf_guard g)
{
	return (unsigned)g < ENF_GUARD_N ? guard[g].word : guard[ENF_GUARD_UNKNOWN].word;
}

int enf_guard_parse(const char *word)
{
	for (int g = 0; word && g < ENF_GUARD_N; g++)
		if (!strcmp(word, guard[g].word))
			return g;
	return -1;
}

int enf_guard_exit(enum enf_guard g, bool escaped)
{
	if ((unsigned)g >= ENF_GUARD_N)
		g = ENF_GUARD_UNKNOWN;
	return escaped ? guard[g].exit_escaped : guard[g].exit;
}

enum enf_guard enf_guard_of_exit(int exit)
{
	for (int g = 0; g < ENF_GUARD_N; g++)
		if (exit == guard[g].exit || exit == guard[g].exit_escaped)
			return (enum enf_guard)g;
	return ENF_GUARD_UNKNOWN;
}
