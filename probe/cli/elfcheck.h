/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which guard fits a program: preload where it reaches perf_event_open
 * through glibc's syscall(), seccomp everywhere else. */
#ifndef PMUGUARD_ELFCHECK_H
#define PMUGUARD_ELFCHECK_H

#include <limits.h>
#include <stdbool.h>

enum elf_guard { ELF_GUARD_PRELOAD, ELF_GUARD_SECCOMP };

struct elf_report {
	char path[PATH_MAX];
	int err;          /* errno when it could not be read; 0 otherwise */
	bool elf;         /* an ELF file at all */
	bool script;      /* starts with #! */
	char interp[PATH_MAX];
	int elfclass;     /* 32 or 64 */
	bool dynamic;     /* has PT_INTERP */
	bool go;          /* .go.buildinfo or a Go build id note */
	bool imports_syscall;
	bool libc;        /* DT_NEEDED libc.so.6 */
	bool setid;       /* setuid/setgid: the loader drops LD_PRELOAD */
	enum elf_guard guard;
	char why[256];
};

/* Resolve cmd through PATH (as execvp would) and analyse it. */
void elf_analyse(const char *cmd, struct elf_report *r);

#endif
