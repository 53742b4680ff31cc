/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PMUGUARD_SELF_MEM_H
#define PMUGUARD_SELF_MEM_H

#include <stddef.h>
#include <stdint.h>

/* guard_read_bytes(0, addr, buf, len), in two system calls once a
 * descriptor is kept (self_mem.c; a process with privilege to drop keeps
 * none: three): 0, -EFAULT where the kernel would say EFAULT, or the
 * -errno of a refusal (the call fails closed). */
int pmug_read_self(uint64_t addr, void *buf, size_t len);

/* This process's pid, without a system call once a read has run in it (a
 * vfork child gets its parent's). */
long pmug_self_pid(void);

#endif
