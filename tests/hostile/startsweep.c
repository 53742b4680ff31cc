// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A randomized sweep of start layouts, for the shim's scan of the initial
 * stack (shim/libc_sym.c), which every preloaded process runs before
 * main: it must never read past the stack's top, nor take another vector
 * than the kernel's (a start read as not secure would obey its
 * environment).  It searches for the next layout that breaks it rather
 * than listing the known ones.
 *
 *   startsweep starts SEED COUNT [OPTIONS]   real starts of TARGET
 *       --target T    sweep_target (its exit says what the shim read as
 *                     AT_SECURE: 10 secure, 11 not; 13 no shim at all)
 *       --lib L       the shim, named in LD_PRELOAD (plain starts)
 *       --preloaded   /etc/ld.so.preload already names the shim: no
 *                     LD_PRELOAD needed, and secure starts are possible
 *       --ldso PATH   also `ld.so [--preload L] [--argv0 N] T`
 *       --argv0       that ld.so takes --argv0 (glibc 2.33+)
 *       --setuid T, --setgid T, --caps T
 *                     copies of T, setuid root, setgid root, or with a
 *                     file capability: run as --user, secure starts
 *       --user UID    the user secure starts and some plain ones run as
 *       --first I     the first start's index (a later phase of one seed)
 *   startsweep stacks SEED COUNT           the scan itself, over stacks
 *                     built here, each ending at an unmapped page, with
 *                     ld.so's frames stood in for by random words
 *
 * Each start: argument and environment sizes from empty to near ARG_MAX
 * (most small), GLIBC_TUNABLES 0 to 3 times, duplicate names, the
 * variables a secure start's loader removes (LD_*, MALLOC_*, TMPDIR...),
 * argc 0 (an empty argv: kernels before 5.18 pass it on, later ones add
 * one empty string).  A start that ends by a signal, or whose secure
 * reading is not what its kind makes it, is a failure, printed with its
 * layout; the seed and the index reproduce it.
 *
 * Exit: 0 none failed, 1 some did, 2 usage.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libc_sym.h"

/* splitmix64: every layout from (seed, index). */
static uint64_t g_rng;

static uint64_t rnd(void)
{
	uint64_t z = (g_rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static void seed_layout(uint64_t seed, unsigned long i)
{
	g_rng = seed ^ (0x5851f42d4c957f2dULL * (i + 1));
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		perror("startsweep: malloc");
		exit(2);
	}
	return p;
}

/* ---- the strings of a start ------------------------------------------ */

struct strv {
	char **v;
	size_t n, cap, bytes; /* bytes: strings and pointers, as exec counts them */
};

static void strv_add(struct strv *s, char *str)
{
	if (s->n + 2 > s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		char **v = realloc(s->v, s->cap * sizeof(*v));
		if (!v) {
			perror("startsweep: realloc");
			exit(2);
		}
		s->v = v;
	}
	s->v[s->n++] = str;
	s->v[s->n] = NULL;
	s->bytes += strlen(str) + 1 + sizeof(char *);
}

static void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	*s = (struct strv){0};
}

/* A string of n bytes of letters (or, 1 in 8, of one repeated letter). */
static char *text(size_t n)
{
	char *t = xmalloc(n + 1);
	char one = (char)('a' + below(26));
	int same = below(8) == 0;
	for (size_t i = 0; i < n; i++)
		t[i] = same ? one : (char)('a' + below(26));
	t[n] = 0;
	return t;
}

static char *entry(const char *name, const char *value)
{
	char *e = xmalloc(strlen(name) + strlen(value) + 2);
	sprintf(e, "%s=%s", name, value);
	return e;
}

/* How many strings, and how long, for one size class. */
static size_t count_for(int cls)
{
	switch (cls) {
	case 0: return below(9);
	case 1: return 50 + below(3000);
	default: return below(4);
	}
}

static size_t length_for(int cls)
{
	switch (cls) {
	case 0: return below(41);
	case 1: return below(9); /* many short ones, "" among them */
	default: return 1024 + below(120 << 10);
	}
}

/* Most small; some with thousands of short strings; a few big ones. */
static int size_class(void)
{
	size_t r = below(100);
	return r < 80 ? 0 : r < 94 ? 1 : 2;
}

static const char *const tunables[] = {
	"",
	"glibc.malloc.check=0",
	"glibc.malloc.tcache_count=0:glibc.malloc.mmap_max=1",
	"glibc.malloc.arena_max=1:glibc.malloc.arena_max=2",
	"glibc.rtld.nns=2",
	"not.a.tunable=1",
	"glibc.malloc.mmap_threshold=131072:glibc.malloc.top_pad=0",
};

/* What a secure start's loader removes (UNSECURE_ENVVARS and friends),
 * none of which changes what a plain start of the target does. */
static const char *const unsafe[] = {
	"LD_LIBRARY_PATH=/nonexistent",
	"LD_PRELOAD=/nonexistent/lib.so",
	"LD_BIND_NOW=1",
	"LD_BIND_NOT=1",
	"LD_DYNAMIC_WEAK=1",
	"LD_ORIGIN_PATH=/x",
	"LD_USE_LOAD_BIAS=1",
	"LD_HWCAP_MASK=0",
	"MALLOC_ARENA_MAX=2",
	"MALLOC_PERTURB_=1",
	"MALLOC_TOP_PAD_=0",
	"MALLOC_MMAP_THRESHOLD_=4096",
	"MALLOC_CHECK_=0",
	"TMPDIR=/tmp",
	"GCONV_PATH=/x",
	"LOCALDOMAIN=x",
	"RES_OPTIONS=ndots:1",
	"NLSPATH=/x",
	"TZDIR=/x",
	"HOSTALIASES=/x",
	"LOCPATH=/x",
	"GETCONF_DIR=/x",
	"NIS_PATH=/x",
	"RESOLV_HOST_CONF=/x",
};

static const char *const names[] = {"A", "B", "PATH", "HOME", "LANG", "X", "TERM", "PWD"};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Fill to about fraction/100 of ARG_MAX with strings of at most 128 KiB
 * (MAX_ARG_STRLEN), as environment entries or arguments. */
static void fill_near_argmax(struct strv *s, size_t used, int as_env, unsigned fraction)
{
	long max = sysconf(_SC_ARG_MAX);
	size_t want = (size_t)(max > 0 ? max : 131072) / 100 * fraction;
	while (used + 64 < want) {
		size_t n = want - used - 64;
		n = n > (128u << 10) - 64 ? (128u << 10) - 64 - below(512) : n;
		char *t = text(n);
		if (as_env) {
			char name[16];
			snprintf(name, sizeof(name), "BIG%zu", below(4));
			char *e = entry(name, t);
			free(t);
			t = e;
		}
		size_t before = s->bytes;
		strv_add(s, t);
		used += s->bytes - before;
	}
}

/* ---- real starts ----------------------------------------------------- */

enum kind { PLAIN, ARGC0, LDSO, LDSO_PRELOAD, LDSO_ARGV0, AS_USER, SETUID, SETGID, CAPS, KINDS };
static const char *const kind_name[] = {"plain",   "argc0",  "ldso",   "ldso-preload", "ldso-argv0",
					"as-user", "setuid", "setgid", "caps"};

struct sweep {
	const char *target, *lib, *ldso, *copy[KINDS];
	int preloaded, argv0;
	long uid;
	unsigned long first, runs[KINDS], e2big, failed, big, tunables2;
};

static int kind_secure(enum kind k)
{
	return k == SETUID || k == SETGID || k == CAPS;
}

static enum kind pick_kind(const struct sweep *sw)
{
	for (;;) {
		enum kind k = (enum kind)below(KINDS);
		if ((k == LDSO || k == LDSO_PRELOAD || k == LDSO_ARGV0) && !sw->ldso)
			continue;
		if (k == LDSO_ARGV0 && !sw->argv0)
			continue;
		if (kind_secure(k) && (!sw->preloaded || !sw->copy[k]))
			continue;
		if (k == AS_USER && sw->uid < 0)
			continue;
		return k;
	}
}

/* One start's argv and environment. */
static void build_start(const struct sweep *sw, enum kind k, struct strv *argv, struct strv *env)
{
	const char *prog = kind_secure(k) ? sw->copy[k] : sw->target;
	if (k == LDSO || k == LDSO_PRELOAD || k == LDSO_ARGV0) {
		strv_add(argv, strdup(sw->ldso));
		if (k == LDSO_PRELOAD) {
			strv_add(argv, strdup("--preload"));
			strv_add(argv, strdup(sw->lib));
		}
		if (k == LDSO_ARGV0) {
			strv_add(argv, strdup("--argv0"));
			strv_add(argv, text(below(30)));
		}
	}
	if (k != ARGC0)
		strv_add(argv, strdup(prog));
	int acls = size_class(), ecls = size_class();
	for (size_t n = k == ARGC0 ? 0 : count_for(acls); n; n--)
		strv_add(argv, text(length_for(acls)));

	/* The probe's environment, where in the list chance puts it. */
	size_t extra = count_for(ecls), tun = below(4), uns = below(13), dup = below(6);
	size_t total = extra + tun + uns + dup + 3, at_mode = below(total), at_log = below(total),
	       at_pre = below(total);
	int ld_preload = !sw->preloaded || below(4) == 0;
	for (size_t i = 0; i < total; i++) {
		if (i == at_mode)
			strv_add(env, strdup("PMUGUARD_MODE=off"));
		if (i == at_log)
			strv_add(env, strdup("PMUGUARD_LOG=quiet"));
		if (i == at_pre && ld_preload && k != LDSO_PRELOAD)
			strv_add(env, entry("LD_PRELOAD", sw->lib));
		size_t r = below(total);
		if (r < tun)
			strv_add(env, entry("GLIBC_TUNABLES", tunables[below(N(tunables))]));
		else if (r < tun + uns) {
			/* The loader takes the last LD_PRELOAD: one naming no
			 * shim only where a secure start's loader removes it. */
			const char *u = unsafe[below(N(unsafe))];
			strv_add(env, strdup(!kind_secure(k) && !strncmp(u, "LD_PRELOAD=", 11)
						     ? "TMPDIR=/tmp"
						     : u));
		} else if (r < tun + uns + dup)
			strv_add(env, entry(names[below(N(names))], "dup"));
		else {
			char *v = text(length_for(ecls));
			strv_add(env, entry(names[below(N(names))], v));
			free(v);
		}
	}
	/* A few near ARG_MAX, arguments or environment. */
	if (below(200) == 0) {
		int as_env = k == ARGC0 || below(2);
		fill_near_argmax(as_env ? env : argv, argv->bytes + env->bytes, as_env,
				 85 + (unsigned)below(12));
	}
}

/* In the child: the user, the descriptors, the program. */
static _Noreturn void start_child(const struct sweep *sw, enum kind k, char **argv, char **envp)
{
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 1);
		dup2(null, 2);
	}
	if ((kind_secure(k) || k == AS_USER) &&
	    (setgroups(0, NULL) || setresgid((gid_t)sw->uid, (gid_t)sw->uid, (gid_t)sw->uid) ||
	     setresuid((uid_t)sw->uid, (uid_t)sw->uid, (uid_t)sw->uid)))
		_exit(120);
	const char *path = kind_secure(k) ? sw->copy[k] : sw->target;
	if (k == LDSO || k == LDSO_PRELOAD || k == LDSO_ARGV0)
		path = sw->ldso;
	static char *empty[] = {NULL};
	execve(path, k == ARGC0 ? empty : argv, envp);
	_exit(errno == E2BIG ? 121 : 120);
}

static void describe(const struct strv *argv, const struct strv *env)
{
	size_t tun = 0;
	for (size_t i = 0; i < env->n; i++)
		tun += !strncmp(env->v[i], "GLIBC_TUNABLES=", 15);
	fprintf(stderr, "  argc %zu, envc %zu (GLIBC_TUNABLES %zu), %zu bytes\n", argv->n, env->n,
		tun, argv->bytes + env->bytes);
	for (size_t i = 0; i < env->n && i < 40; i++)
		fprintf(stderr, "  env[%zu] %.60s%s\n", i, env->v[i],
			strlen(env->v[i]) > 60 ? "..." : "");
}

/* One start; false where it failed. */
static int one_start(struct sweep *sw, uint64_t seed, unsigned long i)
{
	seed_layout(seed, i);
	enum kind k = pick_kind(sw);
	struct strv argv = {0}, env = {0};
	build_start(sw, k, &argv, &env);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		perror("startsweep: fork");
		exit(2);
	}
	if (pid == 0)
		start_child(sw, k, argv.v ? argv.v : (char *[]){NULL},
			    env.v ? env.v : (char *[]){NULL});
	int st, ok = 1;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	int want = kind_secure(k) ? 10 : 11;
	size_t tun = 0;
	for (size_t e = 0; e < env.n; e++)
		tun += !strncmp(env.v[e], "GLIBC_TUNABLES=", 15);
	sw->tunables2 += tun >= 2;
	sw->big += argv.bytes + env.bytes > (1u << 20);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 121) {
		sw->e2big++;
	} else if (!WIFEXITED(st) || WEXITSTATUS(st) != want) {
		ok = 0;
		sw->failed++;
		if (sw->failed <= 5) {
			if (WIFSIGNALED(st))
				fprintf(stderr, "FAIL start %lu (%s): killed by signal %d (%s)\n",
					i, kind_name[k], WTERMSIG(st), strsignal(WTERMSIG(st)));
			else
				fprintf(stderr, "FAIL start %lu (%s): exit %d, want %d (%s)\n", i,
					kind_name[k], WEXITSTATUS(st), want,
					WEXITSTATUS(st) == 10   ? "read as secure"
					: WEXITSTATUS(st) == 11 ? "read as NOT secure"
					: WEXITSTATUS(st) == 13 ? "the shim was not loaded"
								: "unexpected");
			describe(&argv, &env);
		}
	}
	sw->runs[k]++;
	strv_free(&argv);
	strv_free(&env);
	return ok;
}

static int sweep_starts(uint64_t seed, unsigned long count, int argc, char **argv)
{
	struct sweep sw = {.uid = -1};
	for (int i = 0; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(o, "--preloaded"))
			sw.preloaded = 1;
		else if (!strcmp(o, "--argv0"))
			sw.argv0 = 1;
		else if (!v)
			return fprintf(stderr, "startsweep: %s needs a value\n", o), 2;
		else if (!strcmp(o, "--target"))
			sw.target = v, i++;
		else if (!strcmp(o, "--lib"))
			sw.lib = v, i++;
		else if (!strcmp(o, "--ldso"))
			sw.ldso = v, i++;
		else if (!strcmp(o, "--setuid"))
			sw.copy[SETUID] = v, i++;
		else if (!strcmp(o, "--setgid"))
			sw.copy[SETGID] = v, i++;
		else if (!strcmp(o, "--caps"))
			sw.copy[CAPS] = v, i++;
		else if (!strcmp(o, "--user"))
			sw.uid = strtol(v, NULL, 10), i++;
		else if (!strcmp(o, "--first"))
			sw.first = strtoul(v, NULL, 10), i++;
		else
			return fprintf(stderr, "startsweep: unknown option %s\n", o), 2;
	}
	if (!sw.target || !sw.lib)
		return fprintf(stderr, "startsweep: --target and --lib are needed\n"), 2;
	for (unsigned long i = sw.first; i < sw.first + count; i++)
		one_start(&sw, seed, i);
	printf("starts %lu (seed %llu, from %lu):", count, (unsigned long long)seed, sw.first);
	for (int k = 0; k < KINDS; k++)
		if (sw.runs[k])
			printf(" %s %lu", kind_name[k], sw.runs[k]);
	printf("; GLIBC_TUNABLES twice or more %lu, over 1 MiB %lu, over ARG_MAX (not run) %lu; "
	       "failed %lu\n",
	       sw.tunables2, sw.big, sw.e2big, sw.failed);
	return sw.failed ? 1 : 0;
}

/* ---- the scan over stacks built here --------------------------------- */

#define STACK_BYTES (512u << 10)

struct built {
	uintptr_t *argc;   /* the kernel's argc planted */
	uintptr_t *auxv;   /* the vector planted */
	uintptr_t secure;  /* its AT_SECURE */
	const void *frame; /* where the scan starts */
	uintptr_t near;    /* the resolver's return address: ld.so's code, or 0 */
	int changed;       /* the tables changed as no loader is known to */
	int early_top;     /* a pair of the frames looks like the stack's top */
};

static sigjmp_buf g_fault;

static void on_fault(int sig)
{
	siglongjmp(g_fault, sig);
}

/* Below the top of [lo, top): bytes down, then aligned down to a. */
static char *down(char **at, size_t n, size_t a)
{
	*at = (char *)(((uintptr_t)*at - n) & ~(uintptr_t)(a - 1));
	return *at;
}

/* ld.so's code, where the resolver returns to (x86_64: and the word below
 * the kernel's argc, RTLD_START's return address). */
#define LDSO_CODE 0x7ffff7fc5000ULL

/* An address of ld.so's code, data or heap: within a MiB of the above. */
static uintptr_t ldso_word(void)
{
	return LDSO_CODE - (1u << 20) + (rnd() & ((2u << 20) - 8));
}

/* A word of ld.so's frame, as random as frames are: addresses of ld.so,
 * of the stack around, of the tables; small numbers; zeros. */
static uintptr_t frame_word(const uintptr_t *here, uintptr_t lo, uintptr_t hi)
{
	switch (below(12)) {
	case 10:
	case 11: return ldso_word();
	case 0:
	case 1:
	case 2: return 0;
	case 3: return below(64);
	case 4: return 0x7f0000000000ULL + (rnd() & 0xffffffff8ULL);
	case 5: return (uintptr_t)here - 8 * below(64);
	case 6: return (uintptr_t)here + 8 * below(512);
	case 7: return lo + (below(hi - lo) & ~(uintptr_t)7);
	case 8: return below(4097);
	default: return rnd();
	}
}

/*
 * One stack as the kernel and a loader leave it (see libc_sym.c): from
 * the top of mem down, a NULL word, the file name, the strings, a random
 * gap, AT_RANDOM's bytes and the platform, the tables at a 16-aligned
 * argc, then ld.so's frames (random words, counts before pointers, runs
 * of zeros).  Elsewhere: a buffer below the stack for GLIBC_TUNABLES's
 * copies.  1 in 8 has its tables changed as no known loader does (a
 * vector without AT_PAGESZ, a type no kernel uses, an entry in page 0):
 * then only "no fault" is asked.
 */
static void build_stack(uintptr_t *mem, size_t words, char *elsewhere, struct built *b)
{
	/* Only what the last stack wrote is cleared: below it, nothing ever
	 * was. */
	static char *dirty;
	char *top = (char *)(mem + words), *at = top - 8;
	if (!dirty)
		dirty = (char *)mem;
	memset(dirty, 0, (size_t)(top - dirty));
	*(uintptr_t *)at = 0;
	size_t fn_len = 1 + below(60), argc = 0, envc = 0;
	down(&at, fn_len + 1, 1);
	memset(at, 'f', fn_len);
	char *execfn = at;
	/* The strings, environment above arguments, as copy_strings() puts
	 * them; their pointers kept to be written below. */
	static uintptr_t argp[40000], envp[4000];
	int argc0 = below(10) == 0;
	int acls = size_class(), ecls = size_class();
	size_t na = argc0 ? 0 : 1 + count_for(acls), ne = count_for(ecls) + below(4);
	if (na > N(argp))
		na = N(argp);
	if (ne > N(envp))
		ne = N(envp);
	for (size_t i = ne; i-- > 0;) {
		size_t n = ecls == 2 ? 64 + below(2000) : length_for(ecls);
		down(&at, n + 3, 1);
		memcpy(at, "E=", 2);
		memset(at + 2, 'e', n);
		envp[i] = (uintptr_t)at;
	}
	envc = ne;
	for (size_t i = na; i-- > 0;) {
		size_t n = acls == 2 ? 64 + below(2000) : length_for(acls);
		down(&at, n + 1, 1);
		memset(at, 'a', n);
		argp[i] = (uintptr_t)at;
	}
	argc = na;
	uintptr_t strings = (uintptr_t)at;
	/* The random gap (arch_align_stack()), AT_RANDOM's bytes, the
	 * platform. */
	down(&at, below(8192), 16);
	char *platform = down(&at, 7, 1);
	memcpy(platform, "x86_64", 7);
	char *random = down(&at, 16, 1);
	for (int i = 0; i < 16; i++)
		random[i] = (char)rnd();
	/* GLIBC_TUNABLES's copies, every occurrence (glibc 2.26-2.38). */
	for (size_t i = 0; i < envc; i++)
		if (below(12) == 0)
			envp[i] = (uintptr_t)elsewhere + 16 * below(256);
	/* ld.so as the command: the tables moved down over its own
	 * arguments, stale words left after AT_NULL, argv[0] a later string. */
	size_t stale = below(4) == 0 ? 1 + below(4) : 0;
	if (stale && argc)
		argp[0] = argp[below(argc)];
	size_t holes = below(3) == 0 ? below(40) : 0;
	uintptr_t aux[][2] = {
		{AT_SYSINFO_EHDR, 0x7ffff7fc1000},
		{51 /* AT_MINSIGSTKSZ */, 3376},
		{AT_HWCAP, 0x178bfbff},
		{AT_PAGESZ, 4096},
		{AT_CLKTCK, 100},
		{AT_PHDR, 0x555555554040},
		{AT_PHENT, 56},
		{AT_PHNUM, 13},
		{AT_BASE, 0x7ffff7fc3000},
		{AT_FLAGS, 0},
		{AT_ENTRY, 0x555555556d50},
		{AT_UID, 0},
		{AT_EUID, 0},
		{AT_GID, 0},
		{AT_EGID, 0},
		{AT_SECURE, below(2)},
		{AT_RANDOM, (uintptr_t)random},
		{AT_HWCAP2, 2},
		{AT_EXECFN, (uintptr_t)execfn},
		{AT_PLATFORM, (uintptr_t)platform},
	};
	size_t npairs = N(aux);
	b->changed = below(8) == 0;
	if (b->changed) {
		switch (below(5)) {
		case 0: /* no AT_PAGESZ */ aux[3][1] = 3000; break;
		case 1: /* a type no kernel has */
			aux[below(npairs)][0] = 5000 + below(100000);
			break;
		case 2: /* an environment entry in page 0 */
			if (envc)
				envp[below(envc)] = below(4096);
			break;
		case 3: /* AT_SECURE no boolean */ aux[15][1] = 2 + below(100); break;
		default: /* the vector cut short of AT_SECURE */ npairs = 10; break;
		}
	}
	size_t table = 1 + argc + 1 + envc + 1 + holes + 2 * npairs + 2 + stale;
	uintptr_t *sp = (uintptr_t *)down(&at, table * 8, 16);
	uintptr_t *q = b->argc = sp;
	*q++ = argc;
	for (size_t i = 0; i < argc; i++)
		*q++ = argp[i];
	*q++ = 0;
	for (size_t i = 0; i < envc; i++)
		*q++ = envp[i];
	*q++ = 0;
	q += holes;
	b->auxv = q;
	for (size_t i = 0; i < npairs; i++) {
		*q++ = aux[i][0];
		*q++ = aux[i][1];
	}
	*q++ = AT_NULL;
	*q++ = 0;
	for (size_t i = 0; i < stale; i++)
		*q++ = envc ? envp[below(envc)] : 0;
	b->secure = aux[15][1];
	/* ld.so's frames: 256 bytes to 6 KiB of words below argc. */
	size_t fw = 32 + below(750);
	uintptr_t *f = sp - fw;
	for (size_t i = 0; i < fw; i++) {
		uintptr_t *w = f + i;
		size_t r = below(40);
		if (r == 0 && i + 4 < fw) {
			/* A count and pointers above, as a local array's. */
			size_t n = 1 + below(3);
			/* Often after an address of ld.so, as argc is. */
			if (i && below(2))
				w[-1] = ldso_word();
			*w = n;
			for (size_t j = 1; j <= n && i + j < fw; j++)
				w[j] = (uintptr_t)(w + j + below(64));
			i += n;
		} else if (r == 1) {
			/* A run of zeros. */
			size_t n = below(24);
			i += n < fw - i ? n : fw - i - 1;
		} else {
			*w = frame_word(w, (uintptr_t)sp, strings);
		}
	}
	/* RTLD_START's return address below argc, and the resolver's
	 * (both ld.so's code): where either is not, the scan must still find
	 * the vector, by its second search. */
	b->near = below(8) ? LDSO_CODE + 8 * below(4096) : 0;
	if (below(8))
		sp[-1] = ldso_word();
	b->frame = (const char *)f + below(16);
	dirty = (char *)f;
	/* The scan stops at a pair like the stack's last (the file name's
	 * last word, then NULL): in the frames, that is a miss, not a fault. */
	b->early_top = 0;
	for (const uintptr_t *w = (const uintptr_t *)(((uintptr_t)b->frame + 15) & ~(uintptr_t)15);
	     w < sp; w += 2)
		b->early_top |= w[0] >= (uintptr_t)1 << 48 && w[0] < (uintptr_t)1 << 56 && !w[1];
}

static int sweep_stacks(uint64_t seed, unsigned long count)
{
	/* Below the stack, GLIBC_TUNABLES's copies; above it, nothing. */
	long page = sysconf(_SC_PAGESIZE);
	size_t below_stack = 1u << 16;
	char *elsewhere = mmap(NULL, below_stack + STACK_BYTES + (size_t)page,
			       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (elsewhere == MAP_FAILED)
		return perror("startsweep: mmap"), 2;
	char *map = elsewhere + below_stack;
	if (mprotect(map + STACK_BYTES, (size_t)page, PROT_NONE))
		return perror("startsweep: mprotect"), 2;
	/* The guard page right above the stack's top: a read past the top
	 * faults, and is caught here. */
	struct sigaction sa = {.sa_handler = on_fault};
	static char alt[1 << 16];
	stack_t ss = {.ss_sp = alt, .ss_size = sizeof(alt)};
	sigaltstack(&ss, NULL);
	sa.sa_flags = SA_ONSTACK | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	unsigned long faults = 0, wrong = 0, missed = 0, changed = 0, found = 0, early = 0;
	for (unsigned long i = 0; i < count; i++) {
		seed_layout(seed, i);
		struct built b;
		build_stack((uintptr_t *)map, STACK_BYTES / sizeof(uintptr_t), elsewhere, &b);
		changed += b.changed;
		uintptr_t secure = 0;
		const uintptr_t *got = NULL;
		int sig = sigsetjmp(g_fault, 1);
		if (sig) {
			if (++faults <= 5)
				fprintf(stderr, "FAIL stack %lu: the scan faulted (signal %d)%s\n",
					i, sig, b.changed ? " (tables changed)" : "");
			continue;
		}
		got = pmug_libc_scan_initial_stack(b.frame, b.near, &secure);
		if (got == b.auxv) {
			found++;
			if (secure != b.secure && ++wrong <= 5)
				fprintf(stderr, "FAIL stack %lu: AT_SECURE read %lu, is %lu\n", i,
					(unsigned long)secure, (unsigned long)b.secure);
		} else if (got && b.changed && secure == b.secure) {
			/* A changed table read past into the real vector (an
			 * entry in page 0 taken for a pair): its facts. */
			found++;
		} else if (got) {
			if (++wrong <= 5)
				fprintf(stderr,
					"FAIL stack %lu: took words at %+ld bytes from the vector%s\n",
					i, (long)((const char *)got - (const char *)b.auxv),
					b.changed ? " (tables changed)" : "");
		} else if (b.early_top) {
			early++;
		} else if (!b.changed && ++missed <= 5) {
			fprintf(stderr, "FAIL stack %lu: the vector was not found\n", i);
		}
	}
	printf("stacks %lu (seed %llu): found %lu, tables changed %lu, stopped at a frame pair like "
	       "the top %lu; faults %lu, wrong %lu, missed %lu\n",
	       count, (unsigned long long)seed, found, changed, early, faults, wrong, missed);
	return faults || wrong || missed ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return fprintf(stderr, "usage: startsweep starts|stacks SEED COUNT [OPTIONS]\n"), 2;
	uint64_t seed = strtoull(argv[2], NULL, 0);
	unsigned long count = strtoul(argv[3], NULL, 0);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "starts"))
		return sweep_starts(seed, count, argc - 4, argv + 4);
	if (!strcmp(argv[1], "stacks"))
		return sweep_stacks(seed, count);
	return fprintf(stderr, "startsweep: no mode %s\n", argv[1]), 2;
}
