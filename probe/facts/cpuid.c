// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CPUID facts: live through the cpuid instruction, or from the text that
 * `cpuid -r` prints, e.g.
 *
 *   CPU 0:
 *      0x0000000a 0x00: eax=0x07300802 ebx=0x00000000 ecx=0x00000000 edx=0x00008604
 *
 * Only the leaves the verdict uses are kept; only the first CPU block is read.
 */
#include <errno.h>
#include <string.h>

#include "probe.h"
#include "text.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define PROBE_HAVE_CPUID 1
#endif

/* The leaves the verdict and the report use, in the order gathered. */
static const uint32_t wanted[][2] = {
	{0x0, 0}, {0x1, 0}, {0x7, 0}, {0x7, 1}, {0xa, 0}, {0x23, 0}, {0x23, 1}, {0x40000000, 0},
};
_Static_assert(sizeof(wanted) / sizeof(wanted[0]) <= PROBE_MAX_LEAVES, "every wanted leaf is kept");

static bool is_wanted(uint32_t leaf, uint32_t sub)
{
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		if (wanted[i][0] == leaf && wanted[i][1] == sub)
			return true;
	return false;
}

static void store(struct probe_facts *f, const struct probe_cpuid_leaf *l)
{
	if (!is_wanted(l->leaf, l->subleaf) || probe_leaf(f, l->leaf, l->subleaf))
		return;
	if (f->n_leaves < PROBE_MAX_LEAVES)
		f->leaves[f->n_leaves++] = *l;
}

const struct probe_cpuid_leaf *probe_leaf(const struct probe_facts *f, uint32_t leaf,
					  uint32_t subleaf)
{
	for (unsigned i = 0; i < f->n_leaves && i < PROBE_MAX_LEAVES; i++)
		if (f->leaves[i].leaf == leaf && f->leaves[i].subleaf == subleaf)
			return &f->leaves[i];
	return NULL;
}

/* "0xLEAF 0xSUB: eax=0x.. ebx=0x.. ecx=0x.. edx=0x.." -> 0, else -EINVAL. */
int probe_cpuid_parse_line(const char *line, size_t len, struct probe_cpuid_leaf *out)
{
	struct text t = {line, line + len};
	uint64_t v[6];
	static const char regs[4][8] = {"eax=", "ebx=", "ecx=", "edx="};

	text_skip_space(&t);
	if (!text_hex(&t, &v[0], 8))
		return -EINVAL;
	text_skip_space(&t);
	if (!text_hex(&t, &v[1], 8) || !text_lit(&t, ":"))
		return -EINVAL;
	for (int i = 0; i < 4; i++) {
		text_skip_space(&t);
		if (!text_lit(&t, regs[i]) || !text_hex(&t, &v[2 + i], 8))
			return -EINVAL;
	}
	*out = (struct probe_cpuid_leaf){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2],
					 (uint32_t)v[3], (uint32_t)v[4], (uint32_t)v[5]};
	return 0;
}

struct snap_ctx {
	struct probe_facts *f;
	int cpu_headers;
	bool any;
};

static int snap_line(void *p, const char *line, size_t len)
{
	struct snap_ctx *c = p;
	struct text t = {line, line + len};
	text_skip_space(&t);
	if (text_lit(&t, "CPU")) {
		/* "CPU:" or "CPU 0:"; a second block is another CPU: stop. */
		if (++c->cpu_headers > 1)
			return 1;
		return 0;
	}
	struct probe_cpuid_leaf l;
	if (probe_cpuid_parse_line(line, len, &l) == 0) {
		store(c->f, &l);
		c->any = true;
	}
	return 0;
}

void probe_cpuid_snapshot(struct probe_facts *f, const char *path)
{
	struct snap_ctx c = {f, 0, false};
	int rc = probe_read_lines(path, snap_line, &c);
	if (rc < 0) {
		f->cpuid_err = rc;
		return;
	}
	if (!c.any || !probe_leaf(f, 0, 0)) {
		f->cpuid_err = -EINVAL; /* no leaf 0: not a cpuid -r dump */
		return;
	}
	f->known |= PROBE_KNOWN_CPUID;
}

void probe_cpuid_live(struct probe_facts *f)
{
#ifdef PROBE_HAVE_CPUID
	unsigned a, b, c, d;
	__cpuid_count(0, 0, a, b, c, d);
	uint32_t max = a;
	bool hv = false;
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		uint32_t leaf = wanted[i][0], sub = wanted[i][1];
		if (leaf < 0x40000000 && leaf > max)
			continue;
		/* Hypervisor leaves mean nothing on bare metal (Intel returns
		 * the highest basic leaf's data there). */
		if (leaf >= 0x40000000 && !hv)
			continue;
		__cpuid_count(leaf, sub, a, b, c, d);
		store(f, &(struct probe_cpuid_leaf){leaf, sub, a, b, c, d});
		if (leaf == 1)
			hv = (c >> 31) & 1;
	}
	f->known |= PROBE_KNOWN_CPUID;
#else
	f->cpuid_err = -ENOSYS;
#endif
}
