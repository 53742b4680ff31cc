// SPDX-License-Identifier: GPL-2.0-or-later
#include "denial.h"

void guard_format_denial(struct logline *l, const struct guard_policy *p, enum guard_hit hit,
			 uint32_t type, uint64_t config, const char *prog, pid_t pid)
{
	l->len = 0;
	log_str(l, "pmuguard: ");
	log_str(l, p->enforce ? "blocked" : "audit: would block");
	log_str(l, " perf_event_open(type=");
	log_dec(l, type);
	log_str(l, ", config=");
	log_hex(l, config);
	log_str(l, ") in ");
	log_str(l, prog);
	log_str(l, "[");
	log_dec(l, (uint64_t)pid);
	log_str(l, "]: ");
	log_str(l, guard_hit_name(hit, config));
	log_str(l, ": ");
	log_str(l, p->reason);
	log_str(l, p->enforce ? ". Returned ENOENT: the tool sees the event as not supported."
			      : ". Allowed (audit mode).");
}
