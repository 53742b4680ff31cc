// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>

#include "denial.h"

void guard_log_errno(struct logline *l, int err)
{
	/* A name in place, not a pointer: no relocation at load. */
	static const struct {
		int err;
		char name[8];
	} names[] = {
		{EPERM, "EPERM"},   {EACCES, "EACCES"}, {ENOSYS, "ENOSYS"}, {EMFILE, "EMFILE"},
		{ENFILE, "ENFILE"}, {ENOMEM, "ENOMEM"}, {ESRCH, "ESRCH"},   {ENOENT, "ENOENT"},
		{EINVAL, "EINVAL"}, {EIO, "EIO"},
	};
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].err == err) {
			log_str(l, names[i].name);
			return;
		}
	log_str(l, "errno ");
	log_dec(l, (uint64_t)(unsigned)err);
}

void guard_format_denial(struct logline *l, const struct guard_policy *p,
			 const struct guard_decision *d, const char *prog, pid_t pid)
{
	l->len = 0;
	log_str(l, "pmuguard: ");
	log_str(l, d->substitute ? "substituted" : d->deny ? "blocked" : "audit: would block");
	if (d->hit == GUARD_HIT_UNREADABLE) {
		log_str(l, " perf_event_open(attr unreadable: ");
		guard_log_errno(l, d->read_err);
	} else {
		log_str(l, " perf_event_open(type=");
		log_dec(l, d->type);
		log_str(l, ", config=");
		log_hex(l, d->config);
	}
	log_str(l, ") in ");
	log_str_safe(l, prog);
	log_str(l, "[");
	log_dec(l, (uint64_t)pid);
	log_str(l, "]: ");
	log_str(l, guard_hit_name(d->hit, d->config));
	log_str(l, ": ");
	log_str_safe(l, p->reason);
	log_str(l, d->substitute ? ". Counted as TOPDOWN.SLOTS_P (config 0x1a4) on a "
				   "general-purpose counter instead (slots = substitute)."
		   : d->deny     ? ". Returned ENOENT: the tool sees the event as not supported."
				 : ". Allowed (audit mode).");
}

void guard_report_fields(struct log_report *r, const struct guard_decision *d,
			 enum guard_layer layer, const char *prog, pid_t pid, uid_t uid)
{
	bool read = d->hit != GUARD_HIT_UNREADABLE;
	*r = (struct log_report){
		.msgid = layer == GUARD_LAYER_KERNEL ? LOG_MSGID_KERNEL : LOG_MSGID_BLOCK,
		.layer = layer == GUARD_LAYER_KERNEL    ? "kernel"
			 : layer == GUARD_LAYER_SECCOMP ? "seccomp"
							: "preload",
		.decision = d->substitute ? "substitute"
			    : d->deny     ? "deny"
					  : "audit",
		.hit = d->hit == GUARD_HIT_SLOTS        ? "slots"
		       : d->hit == GUARD_HIT_METRIC     ? "metric"
		       : d->hit == GUARD_HIT_FIXED      ? "fixed"
		       : d->hit == GUARD_HIT_UNREADABLE ? "unreadable"
							: "none",
		.program = prog,
		.pid = (uint64_t)pid,
		.uid = (uint64_t)uid,
		.has_encoding = read,
		.type = read ? d->type : 0,
		.config = read ? d->config : 0,
	};
}
