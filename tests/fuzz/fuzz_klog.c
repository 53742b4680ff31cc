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
	if (k.n_corrupted_msr > 4 || k.boot.n_msr_errors > PROBE_MAX_MSR_ERRORS ||
	    (c.mode < -1 || c.mode > 3))
		abort();
	/* Every string the parser keeps is terminated within its buffer. */
	if (!memchr(k.boot.kernel_release, 0, sizeof(k.boot.kernel_release)) ||
	    !memchr(k.boot.hypervisor, 0, sizeof(k.boot.hypervisor)) ||
	    !memchr(k.boot.dmi, 0, sizeof(k.boot.dmi)) ||
	    !memchr(k.boot.cpu_vendor, 0, sizeof(k.boot.cpu_vendor)))
		abort();
	/* A verdict on the log alone is never the guard's. */
	struct probe_facts f;
	memset(&f, 0, sizeof(f));
	f.klog = k;
	f.known = f.tried = PROBE_KNOWN_KLOG;
	struct probe_verdict v;
	probe_evaluate(&f, &v);
	if (v.guard_state != PROBE_UNKNOWN || !v.reason)
		abort();
	return 0;
}
