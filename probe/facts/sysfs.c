// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Core PMUs from sysfs (/sys/bus/event_source/devices, or its mirror in a
 * snapshot): their perf type numbers and whether they list slots/topdown-*.
 * The names are known in advance (arch/x86/events/intel/core.c registers
 * "cpu", or "cpu_core"/"cpu_atom"/"cpu_lowpower" on hybrid parts), so no
 * directory is listed: opendir() would allocate.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>

#include "probe.h"
#include "sys.h"
#include "text.h"

/* Arrays, not pointers, here and below: no relocation at load. */
static const char core_names[PROBE_MAX_PMUS][16] = {"cpu", "cpu_core", "cpu_atom", "cpu_lowpower"};

#define SYSFS_NAME(m) "topdown-" m,
const char probe_topdown_names[8][24] = {PROBE_TOPDOWN_METRICS(SYSFS_NAME)};
#undef SYSFS_NAME

/* A readable regular file (its value may be longer than we care to read). */
static bool file_exists(const char *dir, const char *rel)
{
	char path[PROBE_PATH_MAX], buf[64];
	if (!probe_join(path, sizeof(path), dir, rel))
		return false;
	long n = probe_read_small(path, buf, sizeof(buf));
	return n >= 0 || n == -EFBIG;
}

static bool read_type(const char *pmu_dir, uint32_t *type)
{
	char path[PROBE_PATH_MAX], buf[32];
	long n;
	if (!probe_join(path, sizeof(path), pmu_dir, "type") ||
	    (n = probe_read_small(path, buf, sizeof(buf))) <= 0)
		return false;
	struct text t = {buf, buf + n}; /* all of it: "4\0junk" is no number */
	uint64_t v;
	if (!text_dec(&t, &v, UINT32_MAX) || t.p != t.end)
		return false;
	*type = (uint32_t)v;
	return true;
}

void probe_sysfs(struct probe_facts *f, const char *devices_dir, bool events)
{
	f->tried |= PROBE_KNOWN_SYSFS | (events ? PROBE_KNOWN_SYSFS_EVENTS : 0u);
	long dfd = pmug_open(devices_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		/* What an earlier read found stays (the lazy path reads again
		 * with events; failing then must not forget the core PMUs). */
		f->sysfs_err = (int)dfd;
		return;
	}
	pmug_close(dfd);
	/* Looked up again with events: start the list afresh. */
	f->n_pmus = 0;
	f->sysfs_err = 0;
	f->known |= PROBE_KNOWN_SYSFS | (events ? PROBE_KNOWN_SYSFS_EVENTS : 0u);

	for (unsigned i = 0; i < PROBE_MAX_PMUS; i++) {
		char dir[PROBE_PATH_MAX];
		struct probe_pmu *p = &f->pmus[f->n_pmus];
		if (!probe_join(dir, sizeof(dir), devices_dir, core_names[i]) ||
		    !read_type(dir, &p->type))
			continue;
		_Static_assert(sizeof(p->name) >= sizeof(core_names[i]), "a core PMU's name fits");
		memcpy(p->name, core_names[i], sizeof(core_names[i]));
		p->slots_listed = events && file_exists(dir, "events/slots");
		p->topdown_listed = 0;
		for (unsigned m = 0; events && m < 8; m++) {
			char rel[64] = "events/";
			_Static_assert(sizeof(rel) >= 7 + sizeof(probe_topdown_names[m]),
				       "events/ and a metric's name fit");
			memcpy(rel + 7, probe_topdown_names[m], sizeof(probe_topdown_names[m]));
			if (file_exists(dir, rel))
				p->topdown_listed |= (uint16_t)(1u << m);
		}
		f->n_pmus++;
	}
}

/* The DMI identity (drivers/firmware/dmi-id.c: sys_vendor, product_name and
 * product_version are readable by anyone; the serials are root's and are
 * not read).  Known when any of the three could be read. */
void probe_dmi(struct probe_facts *f, const char *dir)
{
	static const struct {
		char name[16];
		size_t off;
	} files[] = {
		{"sys_vendor", offsetof(struct probe_dmi, sys_vendor)},
		{"product_name", offsetof(struct probe_dmi, product_name)},
		{"product_version", offsetof(struct probe_dmi, product_version)},
	};
	f->tried |= PROBE_KNOWN_DMI;
	f->dmi_err = -ENOENT;
	memset(&f->dmi, 0, sizeof(f->dmi));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[PROBE_PATH_MAX], buf[PROBE_DMI_LEN + 1];
		char *dst = (char *)&f->dmi + files[i].off;
		if (!probe_join(path, sizeof(path), dir ? dir : PROBE_DMI_DIR, files[i].name))
			continue;
		long n = probe_read_small(path, buf, sizeof(buf));
		if (n < 0) {
			if (n != -ENOENT)
				f->dmi_err = (int)n;
			continue;
		}
		/* Printable text only (it is printed and put in JSON). */
		size_t k = 0;
		for (long j = 0; j < n && k + 1 < PROBE_DMI_LEN; j++)
			if (buf[j] >= 0x20 && buf[j] < 0x7f)
				dst[k++] = buf[j];
		dst[k] = '\0';
		f->known |= PROBE_KNOWN_DMI;
	}
	if (f->known & PROBE_KNOWN_DMI)
		f->dmi_err = 0;
}
