/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one wording of a denial, shared by the preload shim and the supervisor. */
#ifndef PMUGUARD_DENIAL_H
#define PMUGUARD_DENIAL_H

#include <sys/types.h>

#include "decide.h"
#include "log.h"

/* "pmuguard: blocked perf_event_open(type=4, config=0x400) in perf[123]: ..."
 * or, for an attr that could not be read,
 * "pmuguard: blocked perf_event_open(attr unreadable: EPERM) in tool[123]: ..." */
void guard_format_denial(struct logline *l, const struct guard_policy *p,
			 const struct guard_decision *d, const char *prog, pid_t pid);

/* Which enforcer decided: the journal's PMUGUARD_LAYER. */
enum guard_layer { GUARD_LAYER_PRELOAD, GUARD_LAYER_SECCOMP, GUARD_LAYER_KERNEL };

/* The report's journal fields (log_system); prog must outlive r. */
void guard_report_fields(struct log_report *r, const struct guard_decision *d,
			 enum guard_layer layer, const char *prog, pid_t pid, uid_t uid);

/* "EPERM" for the errnos a refused read gives, else "errno N". */
void guard_log_errno(struct logline *l, int err);

#endif
