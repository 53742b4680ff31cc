// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * IA32_PERF_CAPABILITIES (MSR 0x345) through the msr driver, where it is
 * loaded and readable (root, CAP_SYS_RAWIO).  Reads only: the driver uses
 * rdmsr_safe_on_cpu() (arch/x86/kernel/msr.c), so an MSR the hypervisor does
 * not implement comes back as EIO instead of faulting.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "probe.h"

#define MSR_IA32_PERF_CAPABILITIES 0x345

void probe_msr_live(struct probe_facts *f)
{
	struct probe_cpu cpu;
	probe_decode_cpu(f, &cpu);
	if (!cpu.known || !cpu.pdcm) {
		f->msr_err = -ENODEV; /* CPUID.1:ECX.PDCM clear: no such MSR */
		return;
	}
	int fd = open("/dev/cpu/0/msr", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		f->msr_err = -errno;
		return;
	}
	uint64_t v;
	ssize_t r = pread(fd, &v, sizeof(v), MSR_IA32_PERF_CAPABILITIES);
	if (r == (ssize_t)sizeof(v)) {
		f->perf_capabilities = v;
		f->known |= PROBE_KNOWN_MSR;
	} else {
		f->msr_err = r < 0 ? -errno : -EIO;
	}
	close(fd);
}
