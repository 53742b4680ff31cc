/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What libc_sym.c (finding libc) shares with libc_claim.c (pointing libc's
 * symbol at the shim): the auxiliary vector's facts, the loader's list of
 * objects, and libc's `syscall` entry.  Hidden: never exported.
 */
#ifndef PMUGUARD_LIBC_OBJECTS_H
#define PMUGUARD_LIBC_OBJECTS_H

#include <link.h>
#include <stdint.h>

struct auxv_want {
	uintptr_t base;   /* AT_BASE: ld.so, or 0 when it is the program */
	uintptr_t phdr;   /* AT_PHDR */
	uintptr_t phnum;  /* AT_PHNUM */
	uintptr_t secure; /* AT_SECURE */
	uintptr_t pagesz; /* AT_PAGESZ */
	unsigned found;   /* AUX_* bits */
	unsigned want;    /* the vector is read until these are found */
};

enum { AUX_BASE = 1, AUX_PHDR = 2, AUX_SECURE = 4, AUX_PHNUM = 8, AUX_PAGESZ = 16 };

/* glibc relocates the d_ptr entries of a loaded object's dynamic section
 * in place (elf/get-dynamic-info.h) except on targets with a read-only
 * dynamic section; take either form. */
static inline uintptr_t dyn_ptr(uintptr_t base, uintptr_t v)
{
	return v < base ? v + base : v;
}

/* The loader's list of objects (the program's DT_DEBUG, else ld.so's own
 * _r_debug), with the auxiliary vector's facts w->want asks for; NULL
 * where either cannot be had. */
const struct link_map *pmug_loaded_objects(struct auxv_want *w);

/* glibc's libc, by its file name: .../libc.so.6. */
int pmug_is_libc(const char *path);

/* libc's dynamic symbol `syscall` in the object at base, or NULL. */
ElfW(Sym) *pmug_libc_syscall_sym(uintptr_t base, const ElfW(Dyn) *dyn);

/* libc's own syscall() as its symbol gave it, noted by the claim
 * (libc_claim.c) before it points the symbol at the shim, so that
 * pmug_libc_find() forwards there. */
void pmug_libc_note_original(void *fn);

#endif
