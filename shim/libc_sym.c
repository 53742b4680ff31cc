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
 * one the kernel put on the initial stack: at a process's start, its facts
 * are read while the loader relocates the library (the IFUNC resolver's
 * scan, below), else after the environment the constructor is handed;
 * where neither is (a library loaded by dlopen(), valgrind), it is read
 * from /proc/self/auxv.  Anything unexpected answers false.
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

/* The vector's facts as the resolver's scan read them (see
 * scan_initial_stack), set before the flag. */
static struct auxv_want g_start_facts;
static bool g_start_facts_set;

/* Found now, while the array is as the kernel and ld.so left it (a program
 * may later write NULLs into it); read at the first syscall().  ld.so's
 * unsetenv() of unsafe variables in a secure process shifts the array down
 * in place, leaving extra NULLs: the vector's first type is never AT_NULL,
 * so they are skipped. */
void pmug_libc_note_envp(char **envp)
{
	/* The initial stack lies above every frame of the main thread; an
	 * array that setenv() moved to the heap (a dlopen() after it) lies
	 * below, and what follows it is not the auxiliary vector.  Where the
	 * resolver's scan kept the vector's facts, nothing is needed. */
	char here;
	if (!envp || (uintptr_t)envp <= (uintptr_t)&here ||
	    __atomic_load_n(&g_start_facts_set, __ATOMIC_ACQUIRE))
		return;
	while (*envp)
		envp++;
	for (int i = 0; i < 64 && !*envp; i++)
		envp++;
	__atomic_store_n(&g_auxv, (const uintptr_t *)envp, __ATOMIC_RELEASE);
}

/*
 * The initial stack, as the kernel leaves it (create_elf_tables(),
 * fs/binfmt_elf.c; bprm_mm_init() and do_execveat_common(), fs/exec.c),
 * from the lowest address up:
 *
 *   argc, argv[argc], NULL, envp[], NULL, the vector's pairs to AT_NULL;
 *   AT_RANDOM's 16 bytes and the platform strings; a random gap; the
 *   argument strings, the environment strings; the file name, copied
 *   first, so that its NUL is the last byte before one NULL word, and that
 *   word is the last of the stack.
 *
 * All of it is one mapping with ld.so's frames below; argc's address is
 * aligned to 16, the top to a page; the tables' pointers are user
 * addresses, below 2^48 (the default window of x86_64 and arm64, where
 * the stack and every mapping made without a hint lie), and the strings
 * lie above the tables.  Before the resolvers run, the loader may have
 * changed the tables in place (each allowed for below; no other change is
 * known):
 *   - a secure start's unsetenv() of what it must not see (TMPDIR,
 *     MALLOC_*, LD_*: UNSECURE_ENVVARS, every occurrence) moves the later
 *     entries down and leaves one more NULL per entry removed;
 *   - glibc 2.26-2.38 points every GLIBC_TUNABLES entry at a copy below
 *     the stack (__tunables_init(): one "elsewhere" entry per occurrence);
 *   - ld.so run as the command (`ld.so [--preload L] [--argv0 N] PROG`)
 *     moves argv, envp and the vector down over its own arguments
 *     (_dl_start_args_adjust(), glibc 2.35+), argv[0] then PROG's or N's
 *     string, and rewrites AT_PHDR, AT_PHNUM and AT_ENTRY for PROG.
 * argc is 0 where an empty argv was passed to a kernel before 5.18 (later
 * ones pass one empty string).
 *
 * Why no read reaches the stack's top, whatever the layout: the word
 * below the final NULL holds the file name's last character in its byte 6
 * and the NUL in byte 7, so it is at least 2^48 and below 2^56: no
 * address, no type, not zero.  Every read is the word after one read
 * before, or the next 16-byte pair of the search, and nothing passes that
 * word: argv and environment entries are addresses below 2^48, the zeros
 * after the environment end at a non-zero word, the vector at a word that
 * is no type (or at a zero type, whose value is not read), and the search
 * stops at the pair (that word, NULL), which it meets, the top being
 * 16-aligned.  No count jumps a read forward.
 */

/* What a vector found on the stack must hold: the kernel puts each in
 * every one. */
enum { AUX_STACK_NEEDS = AUX_PHDR | AUX_PAGESZ | AUX_SECURE };

/* argc is below this: ARG_MAX allows far fewer strings. */
#define ARGC_MAX (1u << 24)

/* Tables' pointers lie below this; the word under the stack's final NULL
 * lies at or above it, and below TOP_WORD_END. */
#define ADDR_END ((uintptr_t)1 << 48)
#define TOP_WORD_END ((uintptr_t)1 << 56)

/* The most pairs a vector has: each type once, the highest 51
 * (AT_MINSIGSTKSZ); a walk reads no further. */
#define AUXV_PAIRS_MAX 128

/* Bytes above the resolver's frame where the kernel's argc may be:
 * ld.so's frames at relocation take about 1.3 KiB (glibc 2.36); 64 KiB is
 * far beyond any. */
#define INITIAL_STACK_SCAN (64u << 10)

/* x86_64's ld.so starts with `mov %rsp, %rdi; call _dl_start` on the
 * kernel's argc (RTLD_START, sysdeps/x86_64/dl-machine.h), so the word
 * below argc is _dl_start_user's address: ld.so's code, as is the return
 * address of the IFUNC resolver that scans (ld.so relocating the shim).
 * A word this far from that return address is none of ld.so's code
 * (its text is some 200 KiB), so the pair above it is no argc. */
#define NEAR_SPAN ((uintptr_t)4 << 20)

/* Bytes of tables a walk reads at most: the strings and their pointers
 * take at most 6 MiB (3/4 of _STK_LIM: bprm_stack_limits(), fs/exec.c),
 * so a start near ARG_MAX is found too. */
#define INITIAL_TABLES_MAX (8u << 20)

/* One walk of the tables a candidate argc at p would head. */
struct walk {
	const uintptr_t *q;   /* the next word to read */
	const uintptr_t *lim; /* a walk this long is none of the kernel's */
	uintptr_t floor;      /* p: the strings lie above it */
	uintptr_t lo;         /* the lowest pointer above floor read so far */
};

/* A word of ld.so's frames that is an address (most are): passed over. */
static inline bool is_address(uintptr_t v)
{
	return v - (ARGC_MAX + 1) < ADDR_END - (ARGC_MAX + 1);
}

/* The pair at p is the stack's last: the file name's last word, then the
 * NULL word (see above).  A pair of ld.so's frame that looks so only ends
 * the search early. */
static inline bool at_top(const uintptr_t *p)
{
	return p[0] >= ADDR_END && p[0] < TOP_WORD_END && p[1] == 0;
}

/* The first pair at or above p (16 bytes apart) whose first word is no
 * address (argc, or the stack's last word), or NULL at end.  Two a turn:
 * p[2] is read only after p[0] proved no part of the top pair. */
static const uintptr_t *next_small(const uintptr_t *p, const uintptr_t *end)
{
	for (; p + 4 <= end; p += 4) {
		if (!is_address(p[0]))
			return p;
		if (!is_address(p[2]))
			return p + 2;
	}
	return p + 2 <= end && !is_address(p[0]) ? p : NULL;
}

/* After argc: argv[0], an address above it or, argc 0, argv's NULL. */
static inline bool may_head_tables(const uintptr_t *p)
{
	return p[0] ? p[1] > (uintptr_t)p && p[1] < ADDR_END : p[1] == 0;
}

/* Where a run of zeros from p (argc 0, argv's NULL, an empty environment
 * and what a secure start's unsetenv() left) ends: where the vector would
 * start; NULL where p heads no such run. */
static inline const uintptr_t *zeros_end(const uintptr_t *p, const uintptr_t *lim)
{
	if (p[0] || p[2])
		return NULL;
	const uintptr_t *z = p + 3;
	while (z < lim && !*z)
		z++;
	return z < lim ? z : NULL;
}

/* The candidate to go on from, zeros from p to z having been walked: the
 * first whose third word is z or above, since every one before, its first
 * three words among the zeros, walks as p did (argc 0, argv's NULL, no
 * environment, the vector at z).  That candidate less one step. */
static const uintptr_t *past_zeros(const uintptr_t *z)
{
	return (const uintptr_t *)(((uintptr_t)(z - 2) + 15) & ~(uintptr_t)15) - 2;
}

/* argc addresses above the candidate, then a NULL. */
static bool walk_argv(struct walk *w, uintptr_t argc)
{
	for (; argc; argc--, w->q++) {
		uintptr_t v = *w->q;
		if (v <= w->floor || v >= ADDR_END || w->q + 1 >= w->lim)
			return false;
		w->lo = v < w->lo ? v : w->lo;
	}
	return *w->q++ == 0;
}

/* Environment entries to a NULL, each an address: a string above or (a
 * loader's copy) elsewhere, never in page 0; then the NULL and any a
 * secure start's unsetenv() left.  Ends at the first word after them. */
static bool walk_env(struct walk *w)
{
	uintptr_t v;
	for (; w->q < w->lim && (v = *w->q) != 0; w->q++) {
		if (v - 4096 >= ADDR_END - 4096)
			return false;
		if (v > w->floor)
			w->lo = v < w->lo ? v : w->lo;
	}
	while (w->q < w->lim && *w->q == 0)
		w->q++;
	return w->q < w->lim;
}

/* One pair of the vector: what the shim needs of it, kept. */
static void auxv_note(struct walk *w, struct auxv_want *f, uintptr_t t, uintptr_t v)
{
	switch (t) {
	case AT_PHDR: f->phdr = v, f->found |= AUX_PHDR; break;
	case AT_PHNUM: f->phnum = v, f->found |= AUX_PHNUM; break;
	case AT_BASE: f->base = v, f->found |= AUX_BASE; break;
	case AT_PAGESZ:
		if (v >= 4096 && !(v & (v - 1)))
			f->pagesz = v, f->found |= AUX_PAGESZ;
		break;
	case AT_SECURE:
		if (v <= 1)
			f->secure = v, f->found |= AUX_SECURE;
		break;
	case AT_RANDOM:
		/* 16 bytes above the tables, as the strings are. */
		w->lo = v < w->lo ? v : w->lo;
		break;
	}
}

/* The types auxv_note() keeps, each below 32. */
#define AUX_NOTED                                                                                  \
	(1u << AT_PHDR | 1u << AT_PHNUM | 1u << AT_BASE | 1u << AT_PAGESZ | 1u << AT_SECURE |      \
	 1u << AT_RANDOM)

/* The vector's pairs to AT_NULL, their types small numbers, with AT_PHDR,
 * a power-of-two AT_PAGESZ and AT_SECURE 0 or 1; what the shim needs of
 * it kept in f on the way (so it is never read again).  Ends at AT_NULL,
 * whose value is not read. */
static bool walk_auxv(struct walk *w, struct auxv_want *f)
{
	*f = (struct auxv_want){0};
	const uintptr_t *end = w->lim - 1;
	if (end - w->q > 2 * AUXV_PAIRS_MAX)
		end = w->q + 2 * AUXV_PAIRS_MAX;
	for (; w->q < end; w->q += 2) {
		uintptr_t t = w->q[0];
		/* AT_NULL or no type: AT_MINSIGSTKSZ is 51. */
		if (t - 1 >= 4096)
			return t == AT_NULL && (f->found & AUX_STACK_NEEDS) == AUX_STACK_NEEDS;
		/* Most types are none the shim keeps: one test, no switch. */
		if (t < 32 && (AUX_NOTED >> t & 1))
			auxv_note(w, f, t, w->q[1]);
	}
	return false;
}

/* The candidate's tables, whole and shaped as the kernel's, their strings
 * (and AT_RANDOM's bytes) above all of them: the vector, with f read.
 * *z: where the vector would start (NULL: the walk ended before). */
static const uintptr_t *walk_tables(struct walk *w, uintptr_t argc, struct auxv_want *f,
				    const uintptr_t **z)
{
	*z = NULL;
	if (!walk_argv(w, argc) || !walk_env(w))
		return NULL;
	const uintptr_t *auxv = *z = w->q;
	if (!walk_auxv(w, f) || w->lo <= (uintptr_t)(w->q + 1))
		return NULL;
	return auxv;
}

/*
 * The vector after the kernel's argc, searched upward from the resolver's
 * frame, 16 bytes at a time, to the stack's top or INITIAL_STACK_SCAN; f
 * gets its facts.  Below the kernel's argc (A), a walk ends within A's
 * tables (its argv at A, argc being no address above it; its environment
 * at A's argc or A's argv NULL; its zeros at A's first non-zero word; its
 * vector at one of A's pointers or a zero type), and A's own walk is
 * taken: the search stops there.  Above A (a layout refused, none known)
 * nothing is read past the top either (see above): no candidate bounds
 * another, so no pair of ld.so's frames can end the search below A (each
 * such end cost a /proc read).
 */
static const uintptr_t *scan_initial_stack(const void *frame, uintptr_t near, struct auxv_want *f)
{
	const uintptr_t *p = (const uintptr_t *)(((uintptr_t)frame + 15) & ~(uintptr_t)15);
	const uintptr_t *end = p + INITIAL_STACK_SCAN / sizeof(*p);
	for (;; p += 2) {
		if (!(p = next_small(p, end)))
			return NULL;
		if (p[0] > ARGC_MAX) {
			if (at_top(p))
				return NULL;
			continue;
		}
		/* Most small words of ld.so's frames end here (see below). */
		if (near && p[-1] - (near - NEAR_SPAN) >= 2 * NEAR_SPAN)
			continue;
		if (!may_head_tables(p))
			continue;
		struct walk w = {.q = p + 1,
				 .lim = p + (INITIAL_STACK_SCAN + INITIAL_TABLES_MAX) / sizeof(*p),
				 .floor = (uintptr_t)p,
				 .lo = UINTPTR_MAX};
		/* Most candidates of ld.so's frames: zeros, then an address. */
		const uintptr_t *run = zeros_end(p, w.lim);
		if (run && *run > 4096) {
			p = past_zeros(run);
			continue;
		}
		const uintptr_t *z, *auxv = walk_tables(&w, p[0], f, &z);
		if (auxv)
			return auxv;
		if (run)
			p = past_zeros(run);
	}
}

/* The search, first for an argc right above ld.so's return address
 * (near: 0 where none is known), then, where that finds none (a loader
 * started some other way), for any. */
static const uintptr_t *find_initial_stack(const void *frame, uintptr_t near, struct auxv_want *f)
{
	const uintptr_t *auxv = near ? scan_initial_stack(frame, near, f) : NULL;
	return auxv ? auxv : scan_initial_stack(frame, 0, f);
}

void pmug_libc_note_initial_stack(const void *frame, uintptr_t near)
{
	struct auxv_want f;
	if (find_initial_stack(frame, near, &f)) {
		g_start_facts = f;
		__atomic_store_n(&g_start_facts_set, true, __ATOMIC_RELEASE);
	}
}

const uintptr_t *pmug_libc_scan_initial_stack(const void *frame, uintptr_t near, uintptr_t *secure)
{
	struct auxv_want f;
	const uintptr_t *auxv = find_initial_stack(frame, near, &f);
	*secure = auxv ? f.secure : 1;
	return auxv;
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

/* The facts the scan read at the start, else the vector after the
 * constructor's environment.  The types are small numbers
 * (AT_MINSIGSTKSZ is 51): anything else means this is not the vector,
 * and /proc/self/auxv is asked instead. */
static bool auxv_from_stack(struct auxv_want *w)
{
	if (__atomic_load_n(&g_start_facts_set, __ATOMIC_ACQUIRE)) {
		unsigned want = w->want;
		*w = g_start_facts;
		w->want = want;
		return (w->found & AUX_PHDR) != 0;
	}
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

/*
 * The GNU hash (h = h * 33 + c from 5381) of a string literal of up to 16
 * characters, as a constant: every process pays the start's lookup, and
 * GCC does not fold the loop over a literal.  Each step uses h once (a
 * factor of 1 past the end), so the expansion stays linear.
 */
#define GH_IN(s, i) ((i) < sizeof(s) - 1)
#define GH_STEP(s, i, h)                                                                           \
	((h) * (GH_IN(s, i) ? 33u : 1u) +                                                          \
	 (GH_IN(s, i) ? (uint32_t)(unsigned char)(s)[GH_IN(s, i) ? (i) : 0] : 0u))
#define GH_4(s, i, h)                                                                              \
	GH_STEP(s, (i) + 3, GH_STEP(s, (i) + 2, GH_STEP(s, (i) + 1, GH_STEP(s, i, h))))
#define GNU_HASH_LITERAL(s) GH_4(s, 12, GH_4(s, 8, GH_4(s, 4, GH_4(s, 0, 5381u))))
#define GNU_HASH_MAX_LITERAL 16

/* A defined function or object (never an IFUNC: its address is a
 * resolver's) in the object at base with dynamic section dyn: its entry in
 * the dynamic symbol table, the one the loader's own lookups read. */
static const ElfW(Sym) *lookup_sym(uintptr_t base, const ElfW(Dyn) *dyn, const char *name,
				   uint32_t h)
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
		else
			continue;
		/* Every process pays this walk at start: the test only
		 * where one was found. */
		if (gh && symtab && strtab)
			break;
	}
	if (!gh || !symtab || !strtab || gh[0] == 0)
		return NULL;
	uint32_t nbuckets = gh[0], symoffset = gh[1], bloom_size = gh[2];
	const ElfW(Addr) *bloom = (const ElfW(Addr) *)(gh + 4);
	const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size);
	const uint32_t *chain = buckets + nbuckets;
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
static void *lookup_hashed(uintptr_t base, const ElfW(Dyn) *dyn, const char *name, uint32_t h)
{
	const ElfW(Sym) *s = lookup_sym(base, dyn, name, h);
	return s ? (void *)(base + __atomic_load_n(&s->st_value, __ATOMIC_ACQUIRE)) : NULL;
}

/* NAME: a string literal. */
#define lookup(base, dyn, name)                                                                    \
	(__extension__({                                                                           \
		_Static_assert(sizeof(name) <= GNU_HASH_MAX_LITERAL + 1, "name too long");         \
		lookup_hashed((base), (dyn), (name), GNU_HASH_LITERAL(name));                      \
	}))

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
	for (const ElfW(Dyn) *d = (const ElfW(Dyn) *)(base + dynamic->p_vaddr); d->d_tag != DT_NULL;
	     d++)
		if (d->d_tag == DT_DEBUG)
			return (const struct r_debug *)d->d_un.d_ptr;
	return NULL;
}

/* The length of s, a word at a time (aligned loads never cross a page):
 * every process pays at start for the names it walks. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "name_len reads the first zero from the low end");
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
	return (ElfW(Sym) *)lookup_sym(base, dyn, "syscall", GNU_HASH_LITERAL("syscall"));
}
