// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The claim: libc's own dynamic symbol `syscall` pointed at the shim.
 *
 * The global scope already finds the preloaded library first, but dlsym()
 * on libc's handle (Python's ctypes.CDLL("libc.so.6")), dlvsym() and a
 * plugin loaded with RTLD_DEEPBIND search libc's scope, where the loader
 * computes l_addr + st_value: st_value = shim - l_addr (modulo 2^64) sends
 * all of them here.  One aligned word in a copy-on-write page of libc's
 * table, made writable for the store and read-only again.  Where the table
 * lies in an executable segment (libc linked without -z separate-code:
 * binutils before 2.31), the page is claimed only if it holds tables and
 * no code, and it is never writable and executable at once: it ends
 * read-only.  A dlmopen() namespace, or a second file of libc opened by its
 * path, has a libc of its own and is not claimed (README, Limits).
 *
 * What this relies on in glibc and its linkers, each with the test that
 * fails if it stops being true:
 *
 *   the loader computes a symbol's address as l_addr + st_value, modulo
 *   2^64 (DL_SYMBOL_ADDRESS), for dlsym, dlvsym and a DEEPBIND plugin's
 *   binding                     hostile holes-libc-scope-lookups,
 *                               holes-python-ctypes-libc
 *   those lookups read libc's .dynsym through its GNU hash, the table this
 *   file writes (not a copy)    the same
 *   .dynsym lies in the first PT_LOAD (the ELF header's, offset 0), which
 *   no PT_GNU_RELRO covers      the same, and holes-libc-scope-exec-layout
 *   in that segment every linker lays out the loader's tables (hash,
 *   dynsym, dynstr, versions, relocations) before .init, .plt and .text
 *                               holes-libc-scope-exec-layout
 *   a preloaded library is relocated, and its IFUNC resolvers run, before
 *   any object's constructor, with the list of objects complete
 *                               holes-early-dependency
 *   libc's file is named libc.so.6
 *                               every holes-libc-* case
 *   a second copy of this library finds the symbol claimed (its value
 *   outside libc's code) and forwards to the first
 *                               holes-two-copies
 *   the library stays mapped (-z nodelete): the symbol never dangles
 *                               holes-dlopen-heap-environ
 *
 * No lock, no allocation, no libc call: raw system calls only.
 */
#include <elf.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>

#include "libc_objects.h"
#include "libc_sym.h"
#include "sys.h"

/* The protection the loader gave the page at vaddr (relative to base) of
 * the object whose ELF header is mapped at base, or -1.  The dynamic symbol
 * table lies in the segment that maps the header (offset 0), the first
 * PT_LOAD, which no PT_GNU_RELRO covers: only that one is looked at. */
static long page_prot(uintptr_t base, uintptr_t vaddr)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
	if (eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_MAG1] != ELFMAG1 ||
	    eh->e_phentsize != sizeof(ElfW(Phdr)))
		return -1;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ph[i].p_offset != 0 || vaddr < ph[i].p_vaddr ||
		    vaddr - ph[i].p_vaddr >= ph[i].p_filesz)
			return -1;
		return (ph[i].p_flags & PF_R ? PROT_READ : 0) |
		       (ph[i].p_flags & PF_W ? PROT_WRITE : 0) |
		       (ph[i].p_flags & PF_X ? PROT_EXEC : 0);
	}
	return -1;
}

/* Is vaddr (relative to base) in an executable segment of the object
 * whose ELF header is mapped at base: a function of its own? */
static bool in_text(uintptr_t base, uintptr_t vaddr)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X) && vaddr >= ph[i].p_vaddr &&
		    vaddr - ph[i].p_vaddr < ph[i].p_memsz)
			return true;
	return false;
}

#ifndef DT_RELRSZ
#define DT_RELRSZ 35
#define DT_RELR 36
#endif

/*
 * Does [lo, hi) (relative to base) hold the loader's tables only, no code?
 * On a layout linked without -z separate-code (binutils before 2.31) the
 * symbol table shares its segment, R E, with the code, but not its pages:
 * every linker lays out the tables the loader reads (hash, dynsym, dynstr,
 * versions, relocations) before .init, .plt and .text.  So a page that ends
 * before the first code address (DT_INIT, where there is one) and within
 * those tables holds no instruction a thread may be running.
 */
static bool tables_only(uintptr_t base, const ElfW(Dyn) *dyn, uintptr_t lo, uintptr_t hi)
{
	uintptr_t start[4] = {0}, size[4] = {0}, init = 0;
	for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
		uintptr_t v = d->d_un.d_val;
		switch (d->d_tag) {
		case DT_INIT: init = dyn_ptr(base, v) - base; break;
		case DT_STRTAB: start[0] = dyn_ptr(base, v) - base; break;
		case DT_STRSZ: size[0] = v; break;
		case DT_RELA: start[1] = dyn_ptr(base, v) - base; break;
		case DT_RELASZ: size[1] = v; break;
		case DT_JMPREL: start[2] = dyn_ptr(base, v) - base; break;
		case DT_PLTRELSZ: size[2] = v; break;
		case DT_RELR: start[3] = dyn_ptr(base, v) - base; break;
		case DT_RELRSZ: size[3] = v; break;
		}
	}
	uintptr_t end = 0;
	for (int i = 0; i < 4; i++)
		if (start[i] && start[i] + size[i] > end)
			end = start[i] + size[i];
	return lo < hi && hi <= end && (!init || hi <= init);
}

extern ElfW(Dyn) _DYNAMIC[] __attribute__((visibility("hidden")));

bool pmug_libc_claim(const void *ours)
{
	struct auxv_want w = {.want = AUX_BASE | AUX_PHDR | AUX_PHNUM | AUX_PAGESZ};
	const struct link_map *m = pmug_loaded_objects(&w);
	/* The program (no name) and the shim itself are not libc. */
	while (m &&
	       (m->l_ld == _DYNAMIC || !m->l_name || !m->l_name[0] || !pmug_is_libc(m->l_name)))
		m = m->l_next;
	if (!m)
		return false;
	ElfW(Sym) *s = pmug_libc_syscall_sym(m->l_addr, m->l_ld);
	if (!s)
		return false;
	ElfW(Addr) want = (ElfW(Addr))(uintptr_t)ours - m->l_addr;
	ElfW(Addr) was = __atomic_load_n(&s->st_value, __ATOMIC_ACQUIRE);
	if (was == want)
		return true;
	uintptr_t pagesz = w.pagesz ? w.pagesz : 4096;
	uintptr_t page = (uintptr_t)&s->st_value & ~(pagesz - 1);
	long prot = page_prot(m->l_addr, (uintptr_t)&s->st_value - m->l_addr);
	if (prot < 0)
		return false;
	/* A table in an executable segment (an old layout): never writable
	 * and executable at once, which W^X policies refuse.  Its page holds
	 * no code (tables_only), so it loses the execute bit for good: made
	 * read-write for the store, then read-only (giving the bit back to a
	 * written private page is what SELinux's execmod denies, and logs). */
	uintptr_t rel = page - m->l_addr;
	if ((prot & PROT_EXEC) && !tables_only(m->l_addr, m->l_ld, rel, rel + pagesz))
		return false;
	/* Claimed already by another copy of this library (ld.so.preload's and
	 * a different file in LD_PRELOAD): leave it.  This copy then forwards
	 * to that one, which forwards to libc; two claims would forward to
	 * each other for ever. */
	if (!in_text(m->l_addr, was))
		return false;
	pmug_libc_note_original((void *)(m->l_addr + was));
	long after = prot & ~PROT_EXEC;
	if (!(prot & PROT_WRITE) && pmug_sys3(SYS_mprotect, page, pagesz, after | PROT_WRITE) != 0)
		return false;
	/* One aligned word: a racing lookup sees the old value or the new. */
	__atomic_store_n(&s->st_value, want, __ATOMIC_RELEASE);
	/* The page read-only again; if the kernel refuses, it stays writable
	 * (a private copy of libc's table, no worse for the process than
	 * before), and the claim stands. */
	if (!(prot & PROT_WRITE))
		pmug_sys3(SYS_mprotect, page, pagesz, after);
	return true;
}
