// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>

#include "decide.h"

void guard_decide(const struct guard_policy *p, int read_rc, const struct guard_attr *a,
		  struct guard_decision *d)
{
	*d = (struct guard_decision){.hit = GUARD_HIT_NONE};
	if (!p->watch || read_rc == -EFAULT)
		return; /* nothing at risk here / the kernel answers EFAULT itself */
	if (read_rc < 0) {
		d->hit = GUARD_HIT_UNREADABLE;
		d->read_err = -read_rc;
	} else {
		d->type = a->type;
		d->config = a->config;
		/* A size the kernel rejects (E2BIG) never schedules anything. */
		if (!guard_attr_sized(a->size))
			return;
		d->hit = guard_classify(p, a->type, a->config);
	}
	d->report = d->hit != GUARD_HIT_NONE;
	d->substitute = d->hit == GUARD_HIT_SLOTS && p->enforce && p->substitute;
	d->deny = d->report && p->enforce && !d->substitute;
}
