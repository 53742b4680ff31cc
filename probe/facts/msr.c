// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * IA32_PERF_CAPABILITIES (MSR 0x345) through the msr driver, where it is
 * loaded and readable (root, CAP_SYS_RAWIO).  Reads only: the driver uses
 * rdmsr_safe_on_cpu() (arch/x86/kernel/msr.c), so an MSR the hypervisor does
 * not implement comes back as EIO instead of faulting.  Whether the MSR
 * exists at all (CPUID.1:ECX.PDCM) is for the gather to ask (gather.c):
 * this file only reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "probe.h"
#include "sys.h"
#include "text.h"

int probe_msr_read(unsigned cpu, uint32_t msr, uint64_t *val)
{
	char path[48] = "/dev/cpu/";
	size_t n = strlen(path);
	n += probe_utoa(path + n, cpu);
	memcpy(path + n, "/msr", 5);

	long fd = pmug_open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return (int)fd;
	long r = pmug_sys4(SYS_pread64, fd, val, sizeof(*val), msr);
	pmug_close(fd);
	return r == (long)sizeof(*val) ? 0 : r < 0 ? (int)r : -EIO;
}

void probe_msr_live(struct probe_facts *f)
{
	f->msr_err = probe_msr_read(0, PROBE_MSR_PERF_CAPABILITIES, &f->perf_capabilities);
	if (f->msr_err == 0)
		f->known |= PROBE_KNOWN_MSR;
}

/* "0x345 0x0000000000008000": the only MSR a snapshot carries. */
static int msr_line(void *ctx, const char *line, size_t len)
{
	struct probe_facts *f = ctx;
	struct text t = {line, line + len};
	uint64_t msr, v;
	text_skip_space(&t);
	if (!text_hex(&t, &msr, 8))
		return 0;
	text_skip_space(&t);
	if (msr == PROBE_MSR_PERF_CAPABILITIES && text_hex(&t, &v, 16)) {
		f->perf_capabilities = v;
		f->known |= PROBE_KNOWN_MSR;
		f->msr_err = 0;
	}
	return 0;
}

void probe_msr_snapshot(struct probe_facts *f, const char *path)
{
	f->msr_err = -ENOENT;
	int rc = probe_read_lines(path, msr_line, f);
	if (rc < 0)
		f->msr_err = rc;
}
