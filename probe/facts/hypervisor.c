// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which hypervisor, in words: the CPUID 0x40000000 signatures and what to
 * call them, and the DMI system strings only a virtual machine carries.
 * Tables and their lookups, nothing else.  No stdio: the shim links this
 * file.
 */
#include <string.h>

#include "probe.h"

static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* CPUID hypervisor signatures and what to call them.  A signature as
 * cpuid_decode.c keeps it: without its trailing blanks and NULs
 * ("bhyve bhyve ", "KVMKVMKVM\0\0\0"); a leading blank stays. */
/* Arrays, not pointers, here and in the tables below: the loader makes
 * no relocation for them in every process the shim is preloaded into. */
static const struct {
	char signature[16], name[24];
} hv_names[] = {
	{"KVMKVMKVM", "KVM"},		{"Microsoft Hv", "Microsoft Hyper-V"},
	{"VMwareVMware", "VMware"},	{"XenVMMXenVMM", "Xen"},
	{"TCGTCGTCGTCG", "QEMU TCG"},	{"bhyve bhyve", "bhyve"},
	{"ACRNACRNACRN", "ACRN"},	{" lrpepyh  vr", "Parallels"},
	{"VBoxVBoxVBox", "VirtualBox"}, {"Jailhouse", "Jailhouse"},
	{"___ NVMM ___", "NetBSD NVMM"}, {"OpenBSDVMM58", "OpenBSD vmm"},
	{"QNXQVMBSQG", "QNX hypervisor"}, {"HAXMHAXMHAXM", "Intel HAXM"},
};

/* What a name is as a CPUID signature (the remedies compare those):
 * "Hypervisor detected: KVM", "Microsoft Hyper-V", "VMware", "Xen HVM". */
static const char *signature_of(const char *name)
{
	for (size_t i = 0; i < sizeof(hv_names) / sizeof(hv_names[0]); i++)
		if (!strncmp(name, hv_names[i].name, strlen(hv_names[i].name)))
			return hv_names[i].signature;
	return "";
}

void probe_hv_from_name(struct probe_cpu *c, const char *name)
{
	copy_str(c->hv_name, sizeof(c->hv_name), name);
	copy_str(c->hv_vendor, sizeof(c->hv_vendor), signature_of(c->hv_name));
}

void probe_hv_from_signature(struct probe_cpu *c)
{
	if (c->hv_name[0] || !c->hypervisor)
		return;
	for (size_t i = 0; i < sizeof(hv_names) / sizeof(hv_names[0]); i++)
		if (!strcmp(c->hv_vendor, hv_names[i].signature)) {
			copy_str(c->hv_name, sizeof(c->hv_name), hv_names[i].name);
			return; /* the signatures are unique */
		}
}

static size_t put(char *buf, size_t size, size_t at, const char *s)
{
	for (; *s && at + 1 < size; s++)
		buf[at++] = *s;
	buf[at] = '\0';
	return at;
}

void probe_hv_words(const char *name, const char *signature, char *buf, size_t size)
{
	if (!size)
		return;
	size_t at = 0;
	if (name && name[0]) {
		put(buf, size, 0, name);
	} else if (signature && signature[0]) {
		at = put(buf, size, at, "unknown, CPUID signature \"");
		at = put(buf, size, at, signature);
		put(buf, size, at, "\"");
	} else {
		put(buf, size, 0, "unknown");
	}
}

/* DMI system strings ("sys_vendor product_name") only a virtual machine
 * carries, and its hypervisor.  Amazon EC2 names bare metal ".metal". */
static const struct {
	char needle[40], hypervisor[24];
} dmi_guests[] = {
	{"QEMU", "KVM or QEMU"},
	{"VirtualBox", "VirtualBox"},
	{"VMware", "VMware"},
	{"Microsoft Corporation Virtual Machine", "Microsoft Hyper-V"},
	{"BHYVE", "bhyve"},
	{"bhyve", "bhyve"},
	{"HVM domU", "Xen"},
	{"Google Compute Engine", "KVM"},
	{"vServer", "KVM"},
};

const char *probe_dmi_guest(const char *system)
{
	if (!strncmp(system, "Amazon EC2 ", 11))
		return strstr(system, ".metal") ? NULL : "KVM";
	for (size_t i = 0; i < sizeof(dmi_guests) / sizeof(dmi_guests[0]); i++)
		if (strstr(system, dmi_guests[i].needle))
			return dmi_guests[i].hypervisor;
	return NULL;
}
