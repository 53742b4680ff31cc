// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Settings -> facts -> verdict -> policy: the one path every enforcer takes
 * (the shim's first call, `pmuguard run`, `pmuguard enforce start`), so
 * that none of them can gather, judge or fail closed differently.
 */
#include <string.h>

#include "classify.h"
#include "conf.h"
#include "policy.h"

void guard_policy_for(const struct guard_settings *set, struct probe_facts *f,
		      struct probe_verdict *v, struct guard_policy *p)
{
	if (set->mode != GUARD_OFF) {
		probe_gather_verdict(f, set->snapshot);
		probe_evaluate(f, v);
	} else {
		/* Off: no probe work at all. */
		memset(f, 0, sizeof(*f));
		memset(v, 0, sizeof(*v));
		v->state = PROBE_UNKNOWN;
		v->reason = "mode off: nothing is checked";
	}
	guard_policy_init(p, set->mode, f, v);
	if (set->conf_transient)
		guard_policy_fail_closed(p, GUARD_CONF_PATH " could not be read just now (out of "
							    "descriptors or memory): failing "
							    "closed until it can be");
}
