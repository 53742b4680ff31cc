/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seccomp supervisor: runs a command under a filter that sends
 * perf_event_open (and nothing else) to us, classifies each attr with the
 * same code as the preload shim, and answers ENOENT or lets the call
 * continue to the kernel.  Covers what LD_PRELOAD cannot: static binaries,
 * Go, inline syscall instructions, setuid steps.
 *
 * A safety guard against accidents, not a security boundary: a racing
 * thread can change the attr between our read and the kernel's.
 */
#ifndef PMUGUARD_SUPERVISE_H
#define PMUGUARD_SUPERVISE_H

#include <stdbool.h>

#include "classify.h"

struct sup_options {
	struct guard_policy policy;
	bool audit;            /* print the summary of every call at exit */
	bool quiet;            /* PMUGUARD_LOG=quiet */
	const char *facts_src; /* "live" or the snapshot directory, for the summary */
	const struct probe_facts *facts;
};

/* Run argv under the supervisor.  Returns the command's exit status
 * (128+signal when it was killed), or -errno with a message already printed
 * when the command could not be started under the filter. */
int sup_run(char *const argv[], const struct sup_options *o);

#endif
