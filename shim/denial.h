/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one wording of a denial, shared by the preload shim and the supervisor. */
#ifndef PMUGUARD_DENIAL_H
#define PMUGUARD_DENIAL_H

#include <sys/types.h>

#include "classify.h"
#include "log.h"

/* "pmuguard: blocked perf_event_open(type=4, config=0x400) in perf[123]: ..." */
void guard_format_denial(struct logline *l, const struct guard_policy *p, enum guard_hit hit,
			 uint32_t type, uint64_t config, const char *prog, pid_t pid);

#endif
