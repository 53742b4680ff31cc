// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Finding libc's syscall(), errno and environment without importing them.
 *
 * Every symbol a preloaded library imports costs every process on the host
 * at start: a NEEDED entry to match, a version requirement to check against
 * libc's list of versions (strcmp down the list), and, with BIND_NOW, a full
 * lookup.  An import of _r_debug alone pulled in ld.so as a NEEDED object;
 * together they were ~5,000 instructions of a /bin/true that never calls
 * syscall().  So libpmuguard.so imports nothing, and the few things it needs
 * from libc are found here, the first time syscall() is called:
 *
 *   auxiliary vector (AT_PHDR) -> the program's DT_DEBUG (or, AT_BASE,
 *   ld.so's own _r_debug) -> the loader's list of objects -> libc's GNU
 *   hash table -> the symbol.
 *
 * No lock (the list is walked as debuggers walk it), no allocation, no
 * libc call, errno untouched: async-signal-safe, and repeatable by racing
 * threads, which all find the same answers.  The auxiliary vector is the
 * one the kernel put after the environment on the initial stack (the
 * constructor is handed that environment); where it was not (a library
 * loaded by dlopen(), a constructor that has not run yet), it is read from
 * /proc/self/auxv.  Anything unexpected answers false.
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "libc_sym.h"
#include "sys.h"

/* The auxiliary vector after the environment the constructor was handed,
 * when that is the one on the initial stack (see pmug_libc_note_envp). */
static const uintptr_t *g_auxv;

/* Found now, while the array is as the kernel and ld.so left it (a program
 * may later write NULLs into it); read at the first syscall().  ld.so's
 * unsetenv() of unsafe variables in a secure process shifts the array down
 * in place, leaving extra NULLs: the vector's first type is never AT_NULL,
 * so they are skipped. */
void pmug_libc_note_envp(char **envp)
{
	/* The initial stack lies above every frame of the main thread; an
	 * array that setenv() moved to the heap (a dlopen() after it) lies
	 * below, and what follows it is not the auxiliary vector. */
	char here;
	if (!envp || (uintptr_t)envp <= (uintptr_t)&here)
		return;
	while (*envp)
		envp++;
	for (int i = 0; i < 64 && !*envp; i++)
		envp++;
	__atomic_store_n(&g_auxv, (const uintptr_t *)envp, __ATOMIC_RELEASE);
}

struct auxv_want {
	uintptr_t base;   /* AT_BASE: ld.so, or 0 when it is the program */
	uintptr_t phdr;   /* AT_PHDR */
	uintptr_t phnum;  /* AT_PHNUM */
	uintptr_t secure; /* AT_SECURE */
	unsigned found;
};

static void auxv_take(struct auxv_want *w, uintptr_t type, uintptr_t val)
{
	if (type == AT_BASE)
		w->base = val, w->found |= 1;
	else if (type == AT_PHDR)
		w->phdr = val, w->found |= 2;
	else if (type == AT_PHNUM)
		w->phnum = val;
	else if (type == AT_SECURE)
		w->secure = val, w->found |= 4;
}

/* The types are small numbers (AT_MINSIGSTKSZ is 51): anything else means
 * this is not the vector, and /proc/self/auxv is asked instead. */
static bool auxv_from_stack(struct auxv_want *w)
{
	const uintptr_t *a = __atomic_load_n(&g_auxv, __ATOMIC_ACQUIRE);
	if (!a)
		return false;
	for (int i = 0; i < 128 && a[0] != AT_NULL; i++, a += 2) {
		if (a[0] > 4096)
			return false;
		auxv_take(w, a[0], a[1]);
	}
	return (w->found & 2) != 0;
}

static bool auxv_from_proc(struct auxv_want *w)
{
	long fd = pmug_open("/proc/self/auxv", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	uintptr_t pair[16];
	long off = 0, r;
	bool end = false;
	while (!end && (r = pmug_sys4(SYS_pread64, fd, pair, sizeof(pair), off)) > 0) {
		for (long i = 0; i + 1 < r / (long)sizeof(uintptr_t); i += 2) {
			if (pair[i] == AT_NULL) {
				end = true;
				break;
			}
			auxv_take(w, pair[i], pair[i + 1]);
		}
		off += r - r % (long)(2 * sizeof(uintptr_t));
	}
	pmug_close(fd);
	return (w->found & 2) != 0;
}

/* glibc relocates the d_ptr entries of a loaded object's dynamic section
 * in place (elf/get-dynamic-info.h) except on targets with a read-only
 * dynamic section; take either form. */
static uintptr_t dyn_ptr(uintptr_t base, uintptr_t v)
{
	return v < base ? v + base : v;
}

static int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;
	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

/* A defined function or object (never an IFUNC: its address is a
 * resolver's) in the object at base with dynamic section dyn. */
static void *lookup(uintptr_t base, const ElfW(Dyn) *dyn, const char *name)
{
	const uint32_t *gh = NULL;
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	for (const ElfW(Dyn) *d = dyn; d && d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_GNU_HASH)
			gh = (const uint32_t *)dyn_ptr(base, d->d_un.d_ptr);
		else if (d->d_tag == DT_SYMTAB)
			symtab = (const ElfW(Sym) *)dyn_ptr(base, d->d_un.d_ptr);
		else if (d->d_tag == DT_STRTAB)
			strtab = (const char *)dyn_ptr(base, d->d_un.d_ptr);
	}
	if (!gh || !symtab || !strtab || gh[0] == 0)
		return NULL;
	uint32_t nbuckets = gh[0], symoffset = gh[1], bloom_size = gh[2];
	const ElfW(Addr) *bloom = (const ElfW(Addr) *)(gh + 4);
	const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size);
	const uint32_t *chain = buckets + nbuckets;
	uint32_t h = gnu_hash(name);
	for (uint32_t i = buckets[h % nbuckets]; i >= symoffset; i++) {
		uint32_t h2 = chain[i - symoffset];
		const ElfW(Sym) *s = &symtab[i];
		unsigned type = ELF64_ST_TYPE(s->st_info);
		if ((h | 1) == (h2 | 1) && s->st_shndx != SHN_UNDEF &&
		    (type == STT_FUNC || type == STT_OBJECT) && same(strtab + s->st_name, name))
			return (void *)(base + s->st_value);
		if (h2 & 1)
			break;
	}
	return NULL;
}

/* ld.so's dynamic section from its ELF header at base. */
static const ElfW(Dyn) *elf_dynamic(uintptr_t base)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
	if (eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_MAG1] != ELFMAG1 ||
	    eh->e_ident[EI_MAG2] != ELFMAG2 || eh->e_ident[EI_MAG3] != ELFMAG3 ||
	    eh->e_phentsize != sizeof(ElfW(Phdr)))
		return NULL;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			return (const ElfW(Dyn) *)(base + ph[i].p_vaddr);
	return NULL;
}

/* The program's DT_DEBUG, which the loader points at its r_debug.  AT_PHDR
 * is the program's table also where ld.so was run as the command (ld.so
 * ./prog: it rewrites the vector for the program it loaded). */
static const struct r_debug *program_r_debug(const struct auxv_want *w)
{
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)w->phdr;
	uintptr_t base = 0;
	const ElfW(Phdr) *dynamic = NULL;
	bool have_base = false;
	for (unsigned i = 0; i < w->phnum; i++) {
		if (ph[i].p_type == PT_PHDR)
			base = w->phdr - ph[i].p_vaddr, have_base = true;
		else if (ph[i].p_type == PT_DYNAMIC)
			dynamic = &ph[i];
	}
	if (!have_base || !dynamic)
		return NULL;
	for (const ElfW(Dyn) *d = (const ElfW(Dyn) *)(base + dynamic->p_vaddr);
	     d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_DEBUG)
			return (const struct r_debug *)d->d_un.d_ptr;
	return NULL;
}

static int is_libc(const char *path)
{
	const char *base = path;
	for (const char *p = path; *p; p++)
		if (*p == '/')
			base = p + 1;
	static const char want[] = "libc.so.";
	for (unsigned i = 0; i < sizeof(want) - 1; i++)
		if (base[i] != want[i])
			return 0;
	return 1;
}

bool pmug_libc_find(struct pmug_libc *out)
{
	struct auxv_want w = {0};
	if (!auxv_from_stack(&w)) {
		w = (struct auxv_want){0};
		if (!auxv_from_proc(&w))
			return false;
	}
	/* The program's pointer first; else ld.so's own symbol (AT_BASE is 0
	 * when ld.so is the command, and then the program's is there). */
	const struct r_debug *r = program_r_debug(&w);
	if (!r && w.base) {
		const ElfW(Dyn) *dyn = elf_dynamic(w.base);
		r = dyn ? lookup(w.base, dyn, "_r_debug") : NULL;
	}
	if (!r)
		return false;
	/* The environment pointer is the first definition in the loader's
	 * order: a program that refers to environ holds it itself (a copy
	 * relocation), and libc's own copy then stays NULL. */
	for (const struct link_map *m = r->r_map; m; m = m->l_next) {
		if (!out->environ)
			out->environ = lookup(m->l_addr, m->l_ld, "__environ");
		if (!m->l_name || !is_libc(m->l_name))
			continue;
		out->syscall = lookup(m->l_addr, m->l_ld, "syscall");
		out->errno_location = lookup(m->l_addr, m->l_ld, "__errno_location");
		/* Unknown (no vector entry): treated as secure, so the
		 * environment is not read at all. */
		out->secure = !(w.found & 4) || w.secure != 0;
		return out->syscall && out->errno_location && out->environ;
	}
	return false;
}
