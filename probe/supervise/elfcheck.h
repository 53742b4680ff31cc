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
	int err;           /* errno when it could not be read; 0 otherwise */
	char problem[160]; /* why it is not a usable program, when err is 0 */
	bool elf;          /* an ELF file at all */
	bool script;       /* starts with #! */
	char interp[PATH_MAX];
	int elfclass; /* 32 or 64 */
	bool dynamic; /* has PT_INTERP */
	bool go;      /* .go.buildinfo or a Go build id note */
	bool imports_syscall;
	bool libc;  /* DT_NEEDED libc.so.6 */
	bool setid; /* setuid/setgid: the loader drops LD_PRELOAD */
	enum elf_guard guard;
	char why[256];
};

/* Resolve cmd through PATH (as execvp would) and analyse it.  Never blocks:
 * a FIFO, a device or a directory is reported, not opened for reading.  A
 * truncated or corrupt ELF sets problem (and elf stays false). */
void elf_analyse(const char *cmd, struct elf_report *r);

/* Is path an ELF shared object this machine's loader can preload, and does
 * it define syscall() (the one symbol libpmuguard.so exports)?  Returns 0,
 * or -1 with the reason in why. */
int elf_check_preload_lib(const char *path, char *why, size_t size);

#endif
