/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PMUGUARD_LIBC_SYM_H
#define PMUGUARD_LIBC_SYM_H

#include <stdbool.h>
#include <stdint.h>

/* What the shim needs of libc, found without importing it (libc_sym.c). */
struct pmug_libc {
	long (*syscall)(long, ...);
	int *(*errno_location)(void);
	char ***environ; /* &__environ */
	bool secure;     /* AT_SECURE: the environment is not to be trusted */
};

/* From the constructor: the environment it was handed (glibc passes the
 * initial one to a preloaded library), after which lies the auxiliary
 * vector. */
void pmug_libc_note_envp(char **envp);

/*
 * From the IFUNC resolver, while the loader relocates the library at a
 * process's start (never from a dlopen(): the caller checks): the
 * auxiliary vector found on the initial stack above frame (an address in
 * the caller's frame), so that the claim reads no /proc file.  near: the
 * resolver's return address, in ld.so's code (x86_64: the word below the
 * kernel's argc is too), or 0.
 */
void pmug_libc_note_initial_stack(const void *frame, uintptr_t near);

/* That scan alone, nothing kept (tests/hostile/startsweep.c runs it over
 * stacks it builds): the vector found above frame, or NULL; *secure its
 * AT_SECURE (1 where none was found). */
const uintptr_t *pmug_libc_scan_initial_stack(const void *frame, uintptr_t near, uintptr_t *secure);

/* All of it, or false.  ours: the shim's syscall(), which libc's symbol
 * names once pmug_libc_claim() has run (libc's function is then the one
 * the claim saw). */
bool pmug_libc_find(struct pmug_libc *out, const void *ours);

/*
 * Point libc's own dynamic symbol `syscall` at ours, so that every lookup
 * that searches libc's scope (dlsym on libc's handle, dlvsym, a plugin
 * loaded with RTLD_DEEPBIND, lazy binding in it) gets the shim, as the
 * global scope already does.  False where it could not (no libc found, the
 * table on an executable page, mprotect refused): nothing changed then.
 */
bool pmug_libc_claim(const void *ours);

#endif
