/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PMUGUARD_LIBC_SYM_H
#define PMUGUARD_LIBC_SYM_H

#include <stdbool.h>

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

/* All of it, or false. */
bool pmug_libc_find(struct pmug_libc *out);

#endif
