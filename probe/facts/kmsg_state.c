// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel log parser's state: a new parse of one form, and the same
 * over again (a record that starts the text over).  Its own file, so that
 * the readers of the driver's block and of the boot's lines, which start
 * a parse over, call down into it, never back up into kmsg.c.
 */
#include "kmsg_parse.h"
#include "probe.h"

void probe_klog_begin(struct probe_klog *k, enum probe_klog_form form)
{
	*k = (struct probe_klog){.fixed_logged = -1,
				 .version_logged = -1,
				 .gp_logged = -1,
				 .unsupported_family = -1,
				 .unsupported_nr = -1};
	k->parse.form = (unsigned char)form;
}

void probe_klog_reset(struct probe_klog *k)
{
	probe_klog_begin(k, PROBE_KLOG_TEXT);
}
