/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one per-call decision, shared by every enforcer (the preload shim, the
 * seccomp supervisor): (policy, what reading the attr gave) -> allow or
 * deny, and what to report.  Pure; no I/O.
 *
 * The rule (README "What is blocked"): on a machine the policy watches, an
 * attr that lands on fixed counter 3 is denied; so is an attr the guard was
 * refused to read (EPERM, EACCES, ENOSYS, EMFILE, ENOMEM, ...): where the
 * guard could not look on a hazardous machine it fails closed.  EFAULT is
 * not a refusal: the kernel cannot read that address either and answers
 * EFAULT itself.  Where the policy does not watch, everything is allowed.
 * With slots = substitute, TOPDOWN.SLOTS is opened as TOPDOWN.SLOTS_P
 * instead of being denied; the metrics are denied whatever the setting.
 */
#ifndef PMUGUARD_DECIDE_H
#define PMUGUARD_DECIDE_H

#include "attr.h"
#include "classify.h"

struct guard_decision {
	enum guard_hit hit; /* what was hit, GUARD_HIT_NONE when nothing */
	bool deny;          /* answer ENOENT instead of entering the kernel */
	bool substitute;    /* open it as TOPDOWN.SLOTS_P instead (guard_slots_p) */
	bool report;        /* worth one log line (a hit, denied or audited) */
	int read_err;       /* for GUARD_HIT_UNREADABLE: the positive errno */
	uint32_t type;      /* the attr's, when it was read */
	uint64_t config;
};

/*
 * A call an in-process guard answered itself (denied, or opened as
 * TOPDOWN.SLOTS_P) is told to any seccomp supervisor watching the process
 * (`pmuguard run`, its --audit above all), which would otherwise never see
 * it: the same attr, with a group descriptor that cannot exist and this
 * mark in the unused sixth argument.  The kernel refuses such a call with
 * EBADF after copying the attr and before it allocates anything, so where
 * no supervisor watches, it reaches no counter.
 */
#define GUARD_REPORT_GROUP_FD (-2L)
#define GUARD_REPORT_MARK 0x706d756775617264ull /* "pmuguard" */

/*
 * The canary (`pmuguard canary`, which status starts as an unprivileged
 * user): an encoding of the hazardous class with the same impossible group
 * descriptor and this mark in the attr's config1 (read with the attr's
 * first 64 bytes).  A guard in the process answers it as it would answer
 * the hazard (ENOENT where it denies), under its real policy, and says
 * nothing of it; where none answers, the kernel does, with EBADF, and
 * allocates nothing.
 */
#define GUARD_CANARY_MARK 0x63616e6172792121ull /* "canary!!" */

/* read_rc is guard_read_attr()'s result for a (its contents are used only
 * when read_rc is 0). */
void guard_decide(const struct guard_policy *p, int read_rc, const struct guard_attr *a,
		  struct guard_decision *d);

#endif
