// SPDX-License-Identifier: GPL-2.0-or-later
/* The `cpuid -r` line parser, and the decoding of whatever it accepts. */
#include <stdlib.h>

#include "fuzz.h"
#include "probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe_facts f;
	memset(&f, 0, sizeof(f));
	f.known = PROBE_KNOWN_CPUID;
	FOR_EACH_LINE(data, size, line, len, {
		struct probe_cpuid_leaf l;
		if (probe_cpuid_parse_line(line, len, &l) == 0 && f.n_leaves < PROBE_MAX_LEAVES)
			f.leaves[f.n_leaves++] = l;
	});
	struct probe_verdict v;
	probe_evaluate(&f, &v);
	return 0;
}
