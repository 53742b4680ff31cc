/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PMUGUARD_POLICY_H
#define PMUGUARD_POLICY_H

#include "classify.h"
#include "probe.h"
#include "settings.h"

/* The probe (none in mode off) and the policy it gives under set, failing
 * closed where the policy file could not be read just now.  Whether TOPDOWN.SLOTS
 * may be substituted is the caller's (only the preload can). */
void guard_policy_for(const struct guard_settings *set, struct probe_facts *f,
		      struct probe_verdict *v, struct guard_policy *p);

#endif
