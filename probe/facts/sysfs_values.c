// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The values perf's sysfs files hold (Documentation/ABI/testing/
 * sysfs-bus-event_source-devices-format and -events):
 *
 *   format/<term>   "config:0-7,32-35"       which bits of which attr word
 *   events/<name>   "event=0x00,umask=0x4"   terms, values hex or decimal
 *
 * Used by the report to say what an event file encodes; bounded parsing of
 * untrusted text (a snapshot from a bug report), fuzzed in tests/fuzz.
 */
#include <errno.h>
#include <string.h>

#include "probe.h"
#include "text.h"

int probe_format_parse(const char *s, size_t len, struct probe_format *out)
{
	struct text t = {s, s + len};
	memset(out, 0, sizeof(*out));
	static const char *const words[] = {"config:", "config1:", "config2:", "config3:"};
	int w = -1;
	for (int i = 0; i < 4 && w < 0; i++)
		if (text_lit(&t, words[i]))
			w = i;
	if (w < 0)
		return -EINVAL;
	out->word = (unsigned)w;
	do {
		uint64_t lo, hi;
		if (!text_dec(&t, &lo, 64))
			return -EINVAL;
		hi = lo;
		if (text_lit(&t, "-") && (!text_dec(&t, &hi, 64) || hi < lo))
			return -EINVAL;
		for (uint64_t b = lo; b <= hi; b++)
			out->mask |= 1ull << b;
	} while (text_lit(&t, ","));
	text_skip_space(&t);
	if (t.p < t.end && *t.p == '\n')
		t.p++;
	return t.p == t.end ? 0 : -EINVAL;
}

/* Place value into the bits of mask, lowest bits first (perf's
 * pmu_format_value()); returns false when it does not fit. */
static bool deposit(uint64_t mask, uint64_t value, uint64_t *into)
{
	for (unsigned b = 0; b < 64; b++) {
		if (!(mask >> b & 1))
			continue;
		if (value & 1)
			*into |= 1ull << b;
		value >>= 1;
	}
	return value == 0;
}

int probe_event_parse(const char *s, size_t len, struct probe_event *out)
{
	struct text t = {s, s + len};
	memset(out, 0, sizeof(*out));
	do {
		if (out->n_terms == PROBE_EVENT_TERMS)
			return -E2BIG;
		struct probe_term *term = &out->terms[out->n_terms];
		size_t n = 0;
		while (t.p < t.end && ((*t.p >= 'a' && *t.p <= 'z') || (*t.p >= '0' && *t.p <= '9') ||
				       *t.p == '_')) {
			if (n + 1 >= sizeof(term->name))
				return -EINVAL;
			term->name[n++] = *t.p++;
		}
		if (n == 0)
			return -EINVAL;
		term->value = 1; /* a bare term ("edge") sets its field to 1 */
		if (text_lit(&t, "=")) {
			bool hex = t.end - t.p >= 2 && t.p[0] == '0' && (t.p[1] == 'x' || t.p[1] == 'X');
			if (!(hex ? text_hex(&t, &term->value, 16) : text_dec(&t, &term->value, UINT64_MAX)))
				return -EINVAL;
		}
		out->n_terms++;
	} while (text_lit(&t, ","));
	if (t.p < t.end && *t.p == '\n')
		t.p++;
	return t.p == t.end ? 0 : -EINVAL;
}

int probe_event_config(const struct probe_event *ev, const struct probe_named_format *fmts,
		       unsigned n_fmts, uint64_t config[4])
{
	memset(config, 0, 4 * sizeof(uint64_t));
	for (unsigned i = 0; i < ev->n_terms; i++) {
		const struct probe_named_format *f = NULL;
		for (unsigned j = 0; j < n_fmts && !f; j++)
			if (!strcmp(fmts[j].name, ev->terms[i].name))
				f = &fmts[j];
		if (!f)
			return -ENOENT;
		if (!deposit(f->format.mask, ev->terms[i].value, &config[f->format.word & 3]))
			return -ERANGE;
	}
	return 0;
}
