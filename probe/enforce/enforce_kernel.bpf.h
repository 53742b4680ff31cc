/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's types that both programs (enforce.bpf.c, enforce_iter.bpf.c)
 * read the same way, declared by hand with preserve_access_index (no
 * vmlinux.h): libbpf relocates each access against the running kernel's
 * BTF at load time (CO-RE), so hw.config's place inside hw_perf_event's
 * anonymous unions is found on every version.  What only one program
 * reads (the attr's fields, the event's) stays in that program.
 */
#ifndef PMUGUARD_ENFORCE_KERNEL_BPF_H
#define PMUGUARD_ENFORCE_KERNEL_BPF_H

#include <linux/types.h>

struct pmu {
	int type;
} __attribute__((preserve_access_index));

struct hw_perf_event {
	__u64 config;
} __attribute__((preserve_access_index));

#endif
