// SPDX-License-Identifier: GPL-2.0-or-later
/* sysfs values: format/* ("config:0-7,32-35") and events/* ("event=0x00,...")
 * and encoding an event through formats parsed from the same input. */
#include <stdlib.h>

#include "fuzz.h"
#include "probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe_named_format fmts[PROBE_EVENT_TERMS];
	unsigned n_fmts = 0;
	static const char *const names[PROBE_EVENT_TERMS] = {"event", "umask", "edge", "inv",
							     "cmask", "ldlat", "any", "pc"};
	FOR_EACH_LINE(data, size, line, len, {
		struct probe_format f;
		struct probe_event ev;
		if (probe_format_parse(line, len, &f) == 0 && n_fmts < PROBE_EVENT_TERMS) {
			if (f.word > 3)
				abort();
			fmts[n_fmts].name = names[n_fmts];
			fmts[n_fmts].format = f;
			n_fmts++;
		}
		if (probe_event_parse(line, len, &ev) == 0) {
			if (ev.n_terms > PROBE_EVENT_TERMS)
				abort();
			uint64_t cfg[4];
			probe_event_config(&ev, fmts, n_fmts, cfg);
		}
	});
	return 0;
}
