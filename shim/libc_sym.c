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
 *
 * libc_claim.c points libc's own symbol `syscall` at the shim; it walks
 * the objects with what libc_objects.h shares from here.
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "libc_objects.h"
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

/* The most NULL words between the environment's end and the vector: a
 * secure process (setuid, AT_SECURE) has the loader unsetenv() what it
 * must not see (TMPDIR, MALLOC_*, LD_*: UNSECURE_ENVVARS), which moves the
 * later entries down and leaves one more NULL for each variable removed. */
#define ENV_HOLES_MAX 256

/* Where the initial stack's tables are, when p is the kernel's argc. */
struct initial_tables {
	const uintptr_t *auxv; /* the vector, or NULL: p is not argc */
	uintptr_t argv0;       /* argv[0] where argc > 0: the strings start there */
};

/*
 * The vector after the arguments and the environment at p, when p is where
 * the kernel put argc (create_elf_tables(), fs/binfmt_elf.c: argc, argv[],
 * NULL, envp[], NULL, then the vector to AT_NULL; the strings and AT_RANDOM's
 * bytes above all of it).  Every read is the word after one read before,
 * and every walk ends at a word no table holds: a word at or below p where
 * a pointer above the tables must be, a zero, or a type above 4096.  So a
 * walk started below the kernel's argc ends at it at the latest (argc is a
 * small number, no pointer), and one started at it ends inside its tables.
 * Checked to the ABI's letter (pointers above the tables, AT_PHDR and a
 * power-of-two AT_PAGESZ in the vector), so that a frame's locals below
 * are never taken for it; what a loader changes there before the resolvers
 * run is allowed for: the NULLs a secure process's unsetenv() leaves, and
 * one entry of the environment pointing elsewhere (glibc 2.26-2.38 puts a
 * copy of GLIBC_TUNABLES's below the stack: __tunables_init()).
 */
static bool auxv_after_args(const uintptr_t *p, struct initial_tables *t)
{
	const uintptr_t floor = (uintptr_t)p;
	uintptr_t argc = p[0];
	*t = (struct initial_tables){.argv0 = argc ? p[1] : 0};
	if (argc > (1u << 24))
		return false;
	const uintptr_t *q = p + 1;
	for (; argc; argc--, q++)
		if (*q <= floor)
			return false;
	if (*q++ != 0)
		return false;
	const uintptr_t *env = q;
	unsigned elsewhere = 0;
	for (; *q; q++)
		if (*q <= floor && ++elsewhere > 1)
			return false;
	q++;
	for (unsigned holes = 0; *q == 0; q++)
		if (++holes > ENV_HOLES_MAX)
			return false;
	const uintptr_t *auxv = q;
	unsigned found = 0;
	for (; q[0] != AT_NULL; q += 2) {
		if (q[0] > 4096)
			return false;
		if (q[0] == AT_PHDR)
			found |= AUX_PHDR;
		else if (q[0] == AT_PAGESZ && q[1] >= 4096 && !(q[1] & (q[1] - 1)))
			found |= AUX_PAGESZ;
	}
	if (found != (AUX_PHDR | AUX_PAGESZ))
		return false;
	/* The strings lie above the whole table (but the entry that points
	 * elsewhere). */
	for (const uintptr_t *s = p + 1; s < auxv; s++)
		if (*s && *s <= (uintptr_t)q && !(s >= env && *s <= floor))
			return false;
	t->auxv = auxv;
	return true;
}

/* Words from the caller's frame up to the kernel's argc: ld.so's frames
 * at relocation take about 1.3 KiB (glibc 2.36); 64 KiB is far beyond any.
 * Where tables shaped as the kernel's are met and their vector is not the
 * one sought, the scan goes on, but never to the first argument's string
 * or above: the stack's end is above the strings, and no scan may start
 * among them (text words are no smaller than stack addresses). */
#define INITIAL_STACK_SCAN (64u << 10)

void pmug_libc_note_initial_stack(const void *frame)
{
	const uintptr_t *p = (const uintptr_t *)(((uintptr_t)frame + 15) & ~(uintptr_t)15);
	uintptr_t end = (uintptr_t)(p + INITIAL_STACK_SCAN / sizeof(*p));
	/* The ABI aligns the initial stack pointer (argc's address) to 16. */
	for (; (uintptr_t)p + 2 * sizeof(*p) <= end; p += 2) {
		/* argc, then argv[0] above it (or, argc 0, the NULL): most
		 * words of ld.so's frames fail here. */
		if (p[0] > (1u << 24) || (p[1] <= (uintptr_t)p && (p[0] | p[1])))
			continue;
		struct initial_tables t;
		if (auxv_after_args(p, &t)) {
			__atomic_store_n(&g_auxv, t.auxv, __ATOMIC_RELEASE);
			return;
		}
		if (t.argv0 > (uintptr_t)p && t.argv0 < end)
			end = t.argv0;
	}
}

static void auxv_take(struct auxv_want *w, uintptr_t type, uintptr_t val)
{
	if (type == AT_BASE)
		w->base = val, w->found |= AUX_BASE;
	else if (type == AT_PHDR)
		w->phdr = val, w->found |= AUX_PHDR;
	else if (type == AT_PHNUM)
		w->phnum = val, w->found |= AUX_PHNUM;
	else if (type == AT_SECURE)
		w->secure = val, w->found |= AUX_SECURE;
	else if (type == AT_PAGESZ)
		w->pagesz = val, w->found |= AUX_PAGESZ;
}

/* The types are small numbers (AT_MINSIGSTKSZ is 51): anything else means
 * this is not the vector, and /proc/self/auxv is asked instead. */
static bool auxv_from_stack(struct auxv_want *w)
{
	const uintptr_t *a = __atomic_load_n(&g_auxv, __ATOMIC_ACQUIRE);
	if (!a)
		return false;
	for (int i = 0; i < 128 && a[0] != AT_NULL && (w->found & w->want) != w->want;
	     i++, a += 2) {
		if (a[0] > 4096)
			return false;
		auxv_take(w, a[0], a[1]);
	}
	return (w->found & AUX_PHDR) != 0;
}

/* The kernel's copy, through the calls the loader itself makes (openat,
 * pread64, close), never one a sandbox may not expect: a SystemCallFilter=
 * that lets the loader start the program lets this through (prctl's
 * PR_GET_AUXV would need no /proc, but a filter without prctl would kill
 * every process of the service at start). */
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
	return (w->found & AUX_PHDR) != 0;
}

static int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* Inlined, so that a literal name's hash is folded at compile time. */
static inline __attribute__((always_inline)) uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;
	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

/* A defined function or object (never an IFUNC: its address is a
 * resolver's) in the object at base with dynamic section dyn: its entry in
 * the dynamic symbol table, the one the loader's own lookups read. */
static inline __attribute__((always_inline)) const ElfW(Sym) *
lookup_sym(uintptr_t base, const ElfW(Dyn) *dyn, const char *name)
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
		if (gh && symtab && strtab)
			break;
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
			return s;
		if (h2 & 1)
			break;
	}
	return NULL;
}

/* Its address, as the loader computes it (l_addr + st_value, modulo 2^64:
 * so a claimed symbol's value reaches the shim). */
static void *lookup(uintptr_t base, const ElfW(Dyn) *dyn, const char *name)
{
	const ElfW(Sym) *s = lookup_sym(base, dyn, name);
	return s ? (void *)(base + __atomic_load_n(&s->st_value, __ATOMIC_ACQUIRE)) : NULL;
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
	for (unsigned i = 0; i < w->phnum && !(have_base && dynamic); i++) {
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

/* The length of s, a word at a time (aligned loads never cross a page):
 * every process pays at start for the names it walks. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "name_len reads the first zero from the low end");
static size_t name_len(const char *s)
{
	const uintptr_t ones = (uintptr_t)-1 / 0xff, highs = ones << 7;
	uintptr_t off = (uintptr_t)s % sizeof(uintptr_t);
	const uintptr_t *w = (const uintptr_t *)(s - off);
	/* The bytes before s in the first word are made non-zero. */
	uintptr_t v = *w | (off ? ((uintptr_t)1 << (8 * off)) - 1 : 0), z;
	while (!(z = (v - ones) & ~v & highs))
		v = *++w;
	/* Little-endian: the lowest flagged byte is the first zero. */
	return (size_t)((const char *)w - s) + (size_t)__builtin_ctzl(z) / 8;
}

/* glibc's libc, by its file name: .../libc.so.6. */
int pmug_is_libc(const char *path)
{
	static const char want[] = "libc.so.6";
	size_t n = name_len(path), k = sizeof(want) - 1;
	if (n < k || (n > k && path[n - k - 1] != '/'))
		return 0;
	uint64_t got, lit;
	__builtin_memcpy(&got, path + n - 8, 8);
	__builtin_memcpy(&lit, want + k - 8, 8);
	return got == lit && path[n - k] == want[0];
}

/* The loader's list of objects, and the auxiliary vector's facts. */
const struct link_map *pmug_loaded_objects(struct auxv_want *w)
{
	if (!auxv_from_stack(w)) {
		*w = (struct auxv_want){.want = w->want};
		if (!auxv_from_proc(w))
			return NULL;
	}
	/* The program's pointer first; else ld.so's own symbol (AT_BASE is 0
	 * when ld.so is the command, and then the program's is there). */
	const struct r_debug *r = program_r_debug(w);
	if (!r && w->base) {
		const ElfW(Dyn) *dyn = elf_dynamic(w->base);
		r = dyn ? lookup(w->base, dyn, "_r_debug") : NULL;
	}
	return r ? r->r_map : NULL;
}

/* libc's own syscall(), as its symbol gave it before the claim. */
static void *g_libc_syscall;

void pmug_libc_note_original(void *fn)
{
	__atomic_store_n(&g_libc_syscall, fn, __ATOMIC_RELEASE);
}

bool pmug_libc_find(struct pmug_libc *out, const void *ours)
{
	struct auxv_want w = {.want = AUX_BASE | AUX_PHDR | AUX_PHNUM | AUX_SECURE};
	/* The environment pointer is the first definition in the loader's
	 * order: a program that refers to environ holds it itself (a copy
	 * relocation), and libc's own copy then stays NULL. */
	for (const struct link_map *m = pmug_loaded_objects(&w); m; m = m->l_next) {
		if (!out->environ)
			out->environ = lookup(m->l_addr, m->l_ld, "__environ");
		if (!m->l_name || !pmug_is_libc(m->l_name))
			continue;
		out->syscall = lookup(m->l_addr, m->l_ld, "syscall");
		/* Claimed already: libc's symbol is ours now, its function is
		 * what the claim saw (stored before the symbol was written). */
		if ((const void *)out->syscall == ours)
			out->syscall = __atomic_load_n(&g_libc_syscall, __ATOMIC_ACQUIRE);
		out->errno_location = lookup(m->l_addr, m->l_ld, "__errno_location");
		/* Unknown (no vector entry): treated as secure, so the
		 * environment is not read at all. */
		out->secure = !(w.found & AUX_SECURE) || w.secure != 0;
		return out->syscall && out->errno_location && out->environ;
	}
	return false;
}

/* libc's `syscall` entry, its GNU hash folded at compile time. */
ElfW(Sym) *pmug_libc_syscall_sym(uintptr_t base, const ElfW(Dyn) *dyn)
{
	return (ElfW(Sym) *)lookup_sym(base, dyn, "syscall");
}
