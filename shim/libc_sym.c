// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Finding libc's syscall() without dlsym().
 *
 * dlsym(RTLD_NEXT, "syscall") costs every preloaded process ~3,300
 * instructions at start (the loader's full lookup, its lock and its error
 * bookkeeping).  The same answer is a GNU hash lookup in libc's own
 * dynamic symbol table, reached through the loader's public list of loaded
 * objects (<link.h>, _r_debug.r_map): a few hundred instructions, no lock,
 * no allocation.  Anything unexpected (no libc in the list, no DT_GNU_HASH,
 * an IFUNC) answers NULL and the caller falls back to dlsym().
 */
#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "libc_sym.h"

/* glibc relocates the d_ptr entries of a loaded object's dynamic section
 * in place (elf_get_dynamic_info(), elf/get-dynamic-info.h) except on
 * targets with a read-only dynamic section; take either form. */
static uintptr_t dyn_ptr(uintptr_t base, uintptr_t v)
{
	return v < base ? v + base : v;
}

/* No strcmp: a call through our PLT would cost a lazy binding (~1,000
 * instructions) at every process start. */
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

static void *lookup(const struct link_map *m, const char *name)
{
	uintptr_t base = m->l_addr;
	const uint32_t *gh = NULL;
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	for (const ElfW(Dyn) *d = m->l_ld; d && d->d_tag != DT_NULL; d++) {
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
		if ((h | 1) == (h2 | 1) && s->st_shndx != SHN_UNDEF &&
		    ELF64_ST_TYPE(s->st_info) == STT_FUNC && same(strtab + s->st_name, name))
			return (void *)(base + s->st_value);
		if (h2 & 1)
			break;
	}
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

void *pmug_libc_symbol(const char *name)
{
	for (const struct link_map *m = _r_debug.r_map; m; m = m->l_next)
		if (m->l_name && is_libc(m->l_name))
			return lookup(m, name);
	return NULL;
}
