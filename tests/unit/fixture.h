/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PMUGUARD_TEST_FIXTURE_H
#define PMUGUARD_TEST_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>

#include "classify.h"
#include "probe.h"

struct world {
	struct probe_facts f;
	struct probe_verdict v;
};

/* Gather and evaluate the snapshot tests/snapshots/NAME. */
static inline void world_load(struct world *w, const char *name)
{
	char dir[1024];
	cr_assert(probe_join(dir, sizeof(dir), PMUGUARD_FIXTURES, name), "%s: path too long", name);
	probe_gather(&w->f, dir, NULL);
	probe_evaluate(&w->f, &w->v);
}

#endif
