/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seccomp notify mode's parts, to each other: the child's report of
 * its setup, and the two sides.
 */
#ifndef FAULTSIM_NOTIFY_H
#define FAULTSIM_NOTIFY_H

#include "faultsim.h"

#include <signal.h>

/* setup stages reported by the child */
enum stage {
	ST_OK = 0,
	ST_PRCTL,
	ST_INIT,
	ST_RULE,
	ST_LOAD,
	ST_NOTIFY_FD,
};

struct setup_msg {
	int32_t stage; /* enum stage */
	int32_t err;   /* negative errno, 0 on success (fd attached) */
};

/* notify_child.c: install the filter, hand the listener over on sock, exec
 * argv; never returns. */
void child_main(int sock, char **argv, const sigset_t *oldmask, const struct sigaction oldact[2]);

/* notify_supervise.c: answer the tree's calls until the child exits or one
 * faults; faultsim's exit status. */
int supervise(const struct world *w, int logfd, int nfd, pid_t child, int sfd);

#endif
