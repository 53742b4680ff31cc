/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which machine this is, in words a person uses ("AWS m6i.16xlarge"): from
 * /sys/class/dmi/id (or a snapshot's dmi/), else from the kernel log's
 * "DMI:" line.  The report's, never the shim's (it uses stdio).
 */
#ifndef PMUGUARD_MACHINE_H
#define PMUGUARD_MACHINE_H

#include "probe.h"

struct probe_machine {
	const char *source;              /* "dmi" (sysfs files), "kernel-log", NULL */
	char sys_vendor[PROBE_DMI_LEN];  /* "" where unknown (a log's vendor the */
	char product_name[PROBE_DMI_LEN]; /* table below does not know stays whole */
	char product_version[PROBE_DMI_LEN]; /* in system) */
	char system[160];                /* "Amazon EC2 m6i.16xlarge" */
	char words[160];                 /* "AWS m6i.16xlarge" */
};

void probe_machine_build(const struct probe_facts *f, struct probe_machine *m);

#endif
