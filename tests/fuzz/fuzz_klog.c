// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel-log parser, and the policy file parser, over arbitrary text. */
#include <stdlib.h>

#include "conf.h"
#include "fuzz.h"
#include "probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe_klog k;
	struct guard_conf c;
	probe_klog_reset(&k);
	memset(&c, 0, sizeof(c));
	c.mode = -1;
	int n = 0;
	FOR_EACH_LINE(data, size, line, len, {
		probe_klog_line(&k, line, len);
		guard_conf_line(&c, line, len, ++n);
	});
	if (k.n_corrupted_msr > 4 || (c.mode < -1 || c.mode > 3))
		abort();
	return 0;
}
