// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The DMI identity in words.  The kernel prints it at boot as
 * "DMI: <sys_vendor> <product_name>/<board_name>, BIOS <version> <date>"
 * (dmi_format_ids(), drivers/firmware/dmi_scan.c), so a log that lacks the
 * sysfs files still names the machine; the vendor and the product are split
 * where the vendor is one of the known ones below (the string has no
 * separator of its own).
 */
#include <stdio.h>
#include <string.h>

#include "machine.h"

/* sys_vendor values seen in the captures and on the clouds we guard, and
 * what to call them in a sentence. */
static const struct {
	const char *vendor, *say;
} vendors[] = {
	{"Amazon EC2", "AWS"},
	{"Google", "Google"},
	{"Microsoft Corporation", "Microsoft"},
	{"QEMU", "QEMU"},
	{"innotek GmbH", "VirtualBox"},
	{"VMware, Inc.", "VMware"},
	{"Xen", "Xen"},
	{"Red Hat", "Red Hat"},
	{"OpenStack Foundation", "OpenStack"},
	{"Dell Inc.", "Dell"},
	{"HP", "HP"},
	{"Acer", "Acer"},
	{"LENOVO", "Lenovo"},
};

static void copy(char *dst, size_t size, const char *src, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static const char *say(const char *vendor)
{
	for (size_t i = 0; i < sizeof(vendors) / sizeof(vendors[0]); i++)
		if (!strcmp(vendor, vendors[i].vendor))
			return vendors[i].say;
	return vendor;
}

/* "AWS m6i.16xlarge"; "Google Compute Engine" (its product repeats the
 * vendor); "Microsoft Virtual Machine". */
static void words(struct probe_machine *m)
{
	if (!m->sys_vendor[0]) {
		snprintf(m->words, sizeof(m->words), "%s", m->system);
		return;
	}
	const char *v = say(m->sys_vendor);
	if (!strncmp(m->product_name, v, strlen(v)) || !m->product_name[0])
		snprintf(m->words, sizeof(m->words), "%s",
			 m->product_name[0] ? m->product_name : v);
	else
		snprintf(m->words, sizeof(m->words), "%s %s", v, m->product_name);
}

void probe_machine_build(const struct probe_facts *f, struct probe_machine *m)
{
	memset(m, 0, sizeof(*m));
	const struct probe_dmi *d = &f->dmi;
	if (f->known & PROBE_KNOWN_DMI && (d->sys_vendor[0] || d->product_name[0])) {
		m->source = "dmi";
		memcpy(m->sys_vendor, d->sys_vendor, sizeof(m->sys_vendor));
		memcpy(m->product_name, d->product_name, sizeof(m->product_name));
		memcpy(m->product_version, d->product_version, sizeof(m->product_version));
		snprintf(m->system, sizeof(m->system), "%s%s%s", d->sys_vendor,
			 d->sys_vendor[0] && d->product_name[0] ? " " : "", d->product_name);
		words(m);
		return;
	}
	const char *sys = f->klog.boot.dmi;
	if (!(f->known & PROBE_KNOWN_KLOG) || !sys[0])
		return;
	m->source = "kernel-log";
	snprintf(m->system, sizeof(m->system), "%s", sys);
	for (size_t i = 0; i < sizeof(vendors) / sizeof(vendors[0]); i++) {
		size_t n = strlen(vendors[i].vendor);
		if (!strncmp(sys, vendors[i].vendor, n) && (sys[n] == ' ' || sys[n] == '\0')) {
			copy(m->sys_vendor, sizeof(m->sys_vendor), sys, n);
			copy(m->product_name, sizeof(m->product_name), sys + n + (sys[n] == ' '),
			     strlen(sys + n + (sys[n] == ' ')));
			break;
		}
	}
	words(m);
}
