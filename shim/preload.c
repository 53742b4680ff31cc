// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libpmuguard.so: the C side of the syscall() interposer.
 *
 * trampoline.S exports syscall(); every number but perf_event_open jumps
 * straight to pmug_next_syscall (glibc's syscall, found by libc_sym.c the
 * first time syscall() is called: this library imports nothing).
 * perf_event_open lands in pmug_perf_event_open() below, which probes the
 * machine once per process, classifies the attr and either answers ENOENT
 * without entering the kernel or forwards the call untouched.
 *
 * Rules for everything in this file: it runs inside arbitrary processes,
 * possibly in a signal handler or a vfork child, so no malloc, no stdio, no
 * locks; errno is preserved on every path that does not fail; reading the
 * caller's attr can never crash it.
 */
#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attr.h"
#include "classify.h"
#include "conf.h"
#include "denial.h"
#include "libc_sym.h"
#include "log.h"
#include "once.h"
#include "policy.h"
#include "probe.h"
#include "self_mem.h"
#include "settings.h"
#include "sys.h"

typedef long (*syscall_fn)(long, ...);

/* Used by trampoline.S; hidden, so never exported. */
extern char pmug_syscall_entry[];
void pmug_on_stack(void *arg, void (*fn)(void *), void *top);
long pmug_perf_event_open(long n, long attr, long pid, long cpu, long group, long flags);
static long bootstrap_syscall(long n, ...);
syscall_fn pmug_next_syscall = bootstrap_syscall;

/* ---- Finding the next syscall() ------------------------------------------ */

/* The six arguments of a variadic syscall(), as musl reads them. */
#define SIX_ARGS(n, a)                                                                             \
	long a[6];                                                                                 \
	do {                                                                                       \
		va_list ap_;                                                                       \
		va_start(ap_, n);                                                                  \
		for (int i_ = 0; i_ < 6; i_++)                                                     \
			a[i_] = va_arg(ap_, long);                                                 \
		va_end(ap_);                                                                       \
	} while (0)

/* libc's errno and environment (libc_sym.c); each field is written with
 * the same value by whichever thread resolves first. */
static struct pmug_libc g_libc;

static void set_errno(int e)
{
	int *(*loc)(void) = __atomic_load_n(&g_libc.errno_location, __ATOMIC_RELAXED);
	if (loc)
		*loc() = e;
}

/* Used only if libc's syscall() cannot be found: the same contract, errno
 * set in one place as musl's __syscall_ret does (where libc's errno could
 * not be found either, a failure returns -1 with errno as it was). */
static long fallback_syscall(long n, ...)
{
	SIX_ARGS(n, a);
	long r = pmug_sys6(n, a[0], a[1], a[2], a[3], a[4], a[5]);
	if ((unsigned long)r > -4096UL) {
		set_errno((int)-r);
		return -1;
	}
	return r;
}

static syscall_fn resolve_next(void)
{
	struct pmug_libc l = {0};
	syscall_fn next = fallback_syscall;
	/* proxychains-ng's lesson: never forward to ourselves. */
	if (pmug_libc_find(&l, pmug_syscall_entry) &&
	    (void *)l.syscall != (void *)pmug_syscall_entry) {
		next = l.syscall;
		__atomic_store_n(&g_libc.environ, l.environ, __ATOMIC_RELAXED);
		__atomic_store_n(&g_libc.secure, l.secure, __ATOMIC_RELAXED);
	}
	if (l.errno_location)
		__atomic_store_n(&g_libc.errno_location, l.errno_location, __ATOMIC_RELAXED);
	__atomic_store_n(&pmug_next_syscall, next, __ATOMIC_RELEASE);
	return next;
}

static void ensure_resolved(void)
{
	if (__atomic_load_n(&pmug_next_syscall, __ATOMIC_ACQUIRE) == bootstrap_syscall)
		resolve_next();
}

/* The first syscall() of the process, whatever its number, comes here
 * (not the constructor: a process that never calls syscall() never pays
 * for the lookup). */
static long bootstrap_syscall(long n, ...)
{
	SIX_ARGS(n, a);
	return resolve_next()(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* What fd 2 was when we were loaded: a line goes there only while it still
 * is (a program that closed 0-2 and opened a data file, which became
 * fd 2, must not find our line in its data). */
static struct {
	bool known;
	uint64_t dev, ino;
} g_stderr;

static bool stat_fd2(uint64_t *dev, uint64_t *ino)
{
	struct stat st;
	if (pmug_sys2(SYS_fstat, STDERR_FILENO, &st) != 0)
		return false;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return true;
}

/* Set by the constructor, which runs after libc's: from then on a NULL
 * environ is a program's clearenv(), not an environment not set up yet. */
static bool g_ctor_ran;

/* libc's own symbol `syscall` names ours (pmug_libc_claim): said by the
 * debug line, since a process where it failed is guarded only through the
 * global scope. */
static bool g_claimed;

/*
 * libc's symbol is claimed while the loader relocates this library, before
 * any object's constructor runs: the loader runs the constructors of the
 * program's own dependencies before a preloaded library's, and one that
 * keeps dlsym(libc, "syscall") must find the shim too.  An IFUNC resolver
 * is what the loader calls then (an R_X86_64_IRELATIVE of this library's
 * own); it makes raw system calls only and returns a function that does
 * nothing.  Where it could not claim (the auxiliary vector unreadable
 * there), the constructor claims.
 */
static void early_nothing(void)
{
}

/*
 * Running under valgrind?  Its client request (valgrind.h,
 * RUNNING_ON_VALGRIND: request 0x1001), a no-op sequence natively.  There
 * the loader runs on the stack valgrind built, whose unused words memcheck
 * reports when read: the claim reads /proc/self/auxv instead.
 */
static bool on_valgrind(void)
{
	volatile unsigned long req[6] = {0x1001, 0, 0, 0, 0, 0};
	unsigned long r = 0;
#if defined(__x86_64__)
	__asm__ volatile("rolq $3, %%rdi; rolq $13, %%rdi\n\t"
			 "rolq $61, %%rdi; rolq $51, %%rdi\n\t"
			 "xchgq %%rbx, %%rbx"
			 : "=d"(r)
			 : "a"(&req[0]), "0"(r)
			 : "cc", "memory");
#elif defined(__aarch64__)
	__asm__ volatile("mov x3, %1\n\tmov x4, %2\n\t"
			 "ror x12, x12, #3; ror x12, x12, #13\n\t"
			 "ror x12, x12, #51; ror x12, x12, #61\n\t"
			 "orr x10, x10, x10\n\tmov %0, x3"
			 : "=r"(r)
			 : "r"(r), "r"(&req[0])
			 : "cc", "memory", "x3", "x4");
#endif
	return r != 0;
}

/*
 * Our exported syscall() as the loader bound it for this library (a
 * symbol relocation, never an import): the shim's own where the library
 * was preloaded at the process's start (it comes before libc in the
 * global scope), libc's where a dlopen() loads it (libc came first), and
 * 0 should it not be relocated yet.  Only at the start is the caller of
 * the IFUNC resolver known to run on the initial stack (rtld.c, dl_main),
 * a short way below the kernel's argc.
 */
__attribute__((visibility("hidden"), used)) void *const pmug_bound_syscall = (void *)syscall;

static bool at_process_start(void)
{
	return __atomic_load_n((void *const *)&pmug_bound_syscall, __ATOMIC_RELAXED) ==
	       (void *)pmug_syscall_entry;
}

/* The resolver's return address, in ld.so (see NEAR_SPAN in libc_sym.c):
 * x86_64's only. */
#if defined(__x86_64__)
#define return_in_ldso() ((uintptr_t)__builtin_return_address(0))
#else
#define return_in_ldso() ((uintptr_t)0)
#endif

static void (*early_claim(void))(void)
{
	/* The auxiliary vector from memory the process already has (the
	 * initial stack above this frame); where it is not found there,
	 * pmug_libc_claim() reads /proc/self/auxv. */
	if (at_process_start() && !on_valgrind())
		pmug_libc_note_initial_stack(__builtin_frame_address(0), return_in_ldso());
	if (pmug_libc_claim(pmug_syscall_entry))
		__atomic_store_n(&g_claimed, true, __ATOMIC_RELAXED);
	return early_nothing;
}

__attribute__((visibility("hidden"), ifunc("early_claim"))) void pmug_early(void);
/* The relocation that makes the loader call it. */
__attribute__((visibility("hidden"), used)) void (*const pmug_early_ref)(void) = pmug_early;

/* s begins with the literal lit: compared byte by byte, stopping at the
 * first difference, so a NUL in s (lit has none) ends it within s.  Inline,
 * with a literal: the compiler unrolls it into compares with constants. */
#define has_prefix(s, lit) has_prefix_n((s), (lit), sizeof(lit) - 1)
static inline __attribute__((always_inline)) bool has_prefix_n(const char *s, const char *lit,
							       size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != lit[i])
			return false;
	return true;
}

/* LD_PRELOAD in the initial environment names this library (the test
 * fleet_loaded() makes of the environment read at the first call).  The
 * last LD_PRELOAD is the one the loader took (rtld.c, process_envvars()),
 * so every variable is looked at. */
static bool named_in_ld_preload(char **envp)
{
	const char *last = NULL;
	for (; envp && *envp; envp++) {
		/* Every process pays this loop: one compare per variable. */
		if ((*envp)[0] == 'L' && has_prefix(*envp, "LD_PRELOAD="))
			last = *envp;
	}
	if (!last)
		return false;
	for (const char *e = last + sizeof("LD_PRELOAD=") - 1; *e; e++)
		if (e[0] == 'l' && has_prefix(e, "libpmuguard"))
			return true;
	return false;
}

/* glibc hands a preloaded library's constructors the initial argc, argv
 * and environment. */
__attribute__((constructor)) static void pmug_init(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	pmug_libc_note_envp(envp);
	/* Before any dlopen() of the program can look in libc's scope: from
	 * here dlsym(libc, "syscall"), dlvsym() and RTLD_DEEPBIND plugins get
	 * the shim too (the library is -z nodelete: the symbol never dangles).
	 * Claimed at relocation already, mostly. */
	if (!__atomic_load_n(&g_claimed, __ATOMIC_RELAXED) && pmug_libc_claim(pmug_syscall_entry))
		__atomic_store_n(&g_claimed, true, __ATOMIC_RELAXED);
	__atomic_store_n(&g_ctor_ran, true, __ATOMIC_RELEASE);
	/* fd 2's identity is needed only where a line may go there: loaded
	 * through LD_PRELOAD (fleet_loaded()); every process started under
	 * /etc/ld.so.preload is spared the fstat.  Where this says no and the
	 * settings say stderr, lines go to the system log. */
	if (named_in_ld_preload(envp))
		g_stderr.known = stat_fd2(&g_stderr.dev, &g_stderr.ino);
}

static bool stderr_unchanged(void)
{
	uint64_t dev, ino;
	return g_stderr.known && stat_fd2(&dev, &ino) && dev == g_stderr.dev && ino == g_stderr.ino;
}

/* ---- The policy, probed once ----------------------------------------------- */

struct shim_state {
	struct guard_policy policy;
	enum guard_log log;
	enum guard_dest dest; /* GUARD_DEST_STDERR or _SYSLOG (or _QUIET) */
	uint64_t cookie;      /* PMUGUARD_SECCOMP_COOKIE, 0 when unset */
	bool cacheable;       /* built on no transient failure */
	bool filtered;        /* a seccomp filter (or not known): report */
};

enum { STATE_NONE, STATE_BUSY, STATE_READY };
static atomic_int g_state;
static struct shim_state g_shim;

/* Loaded through /etc/ld.so.preload rather than LD_PRELOAD?  Then fd 2 is
 * whatever an arbitrary daemon made of it (a socket, a protocol stream, a
 * data file): never write there.  Setuid programs see no LD_PRELOAD here
 * (env_get), and the loader only honours ld.so.preload for them. */
static bool fleet_loaded(const char *lp)
{
	return !lp || !__builtin_strstr(lp, "libpmuguard");
}

/* To fd 2 only while it is the file it was at load time; else the system
 * log (journald with the report's fields r, or syslog). */
static void emit(const struct shim_state *s, struct logline *l, const struct log_report *r)
{
	if (s->dest == GUARD_DEST_STDERR && stderr_unchanged())
		log_emit(l, STDERR_FILENO);
	else if (s->dest != GUARD_DEST_QUIET)
		log_system(l, sizeof("pmuguard: ") - 1, r);
}

static void log_begin(struct logline *l)
{
	l->len = 0;
	log_str(l, "pmuguard: ");
}

static void log_ignored(const struct shim_state *s, const struct guard_ignored *ig)
{
	struct logline l;
	log_begin(&l);
	log_str(&l, "ignoring ");
	log_str(&l, ig->what);
	log_str_safe(&l, ig->value);
	log_str(&l, ig->why);
	emit(s, &l, NULL);
}

static void log_verdict(const struct shim_state *s, const struct probe_verdict *v,
			const char *snapshot)
{
	struct logline l;
	log_begin(&l);
	log_str(&l, "probe: ");
	log_str(&l, probe_state_name(v->state));
	log_str(&l, " (mode ");
	log_str(&l, guard_mode_name(s->policy.mode));
	log_str(&l, snapshot ? ", snapshot " : ", live");
	log_str_safe(&l, snapshot);
	log_str(&l, s->policy.watch ? ", watching" : ", not watching");
	log_str(&l, " core PMU types");
	for (unsigned i = 0; i < s->policy.n_core; i++) {
		log_str(&l, i ? "," : " ");
		log_dec(&l, s->policy.core_types[i]);
	}
	log_str(&l,
		__atomic_load_n(&g_claimed, __ATOMIC_RELAXED)
			? "; libc's syscall symbol: the shim's"
			: "; libc's syscall symbol: libc's own (lookups in libc's scope are not guarded)");
	log_str(&l, "): ");
	log_str(&l, s->policy.reason);
	emit(s, &l, NULL);
}

/* 16 hex digits, else 0. */
static uint64_t parse_cookie(const char *v)
{
	uint64_t c = 0;
	int n = 0;
	for (; v && *v && n < 17; v++, n++) {
		unsigned d = *v >= '0' && *v <= '9'   ? (unsigned)(*v - '0')
			     : *v >= 'a' && *v <= 'f' ? (unsigned)(*v - 'a' + 10)
						      : 16u;
		if (d > 15)
			return 0;
		c = c << 4 | d;
	}
	return n == 16 ? c : 0;
}

/*
 * Could a seccomp supervisor (`pmuguard run`) see this process's calls?
 * Only through a filter, which the process has from its start (inherited
 * across fork and exec; a filter the program installs itself later is its
 * own sandbox's).  The thread's Seccomp field (proc_pid_status(),
 * fs/proc/array.c: 2 is SECCOMP_MODE_FILTER); where it cannot be read (no
 * /proc), a filter is assumed.  Asked once, on the first call's stack.
 */
static bool seccomp_filtered(void)
{
	static const char key[] = "\nSeccomp:\t";
	char buf[4096];
	long n = probe_read_small("/proc/thread-self/status", buf, sizeof(buf));
	if (n <= 0)
		return true;
	const char *at = __builtin_strstr(buf, key);
	return !at || at[sizeof(key) - 1] != '0';
}

/*
 * Policy file, environment and probe -> state, through the one settings
 * resolver (settings.h).  Pure reads; safe to run concurrently.
 */
static void build_state(struct shim_state *s)
{
	struct guard_conf conf;
	int conf_err = guard_conf_read(&conf, GUARD_CONF_PATH);
	char ***ep = __atomic_load_n(&g_libc.environ, __ATOMIC_RELAXED);
	char **envp = ep ? *ep : NULL;
	/* Before libc set up environ (a preinit_array function) nothing built
	 * is kept; after a clearenv() the environment is known to be empty. */
	struct guard_env env = {.visible = envp ||
					   (ep && __atomic_load_n(&g_ctor_ran, __ATOMIC_ACQUIRE))};
	/* A secure (setuid, file-capability) process reads nothing of it, as
	 * secure_getenv() would answer. */
	guard_env_read(&env, __atomic_load_n(&g_libc.secure, __ATOMIC_RELAXED) ? NULL : envp);
	const struct guard_cli cli = {.mode = -1};
	struct guard_settings set;
	guard_settings_resolve(&conf, conf_err, &env, &cli, fleet_loaded(env.preload), &set);

	s->dest = set.dest;
	s->log = set.log;
	s->cookie = parse_cookie(env.cookie);
	/* Said once: a state that is built again at every call (a transient
	 * failure) would say it at every call. */
	if (s->log != GUARD_LOG_QUIET && set.cacheable)
		for (unsigned i = 0; i < set.n_ignored; i++)
			log_ignored(s, &set.ignored[i]);

	/* A snapshot NAME (PMUGUARD_SNAPSHOT=m6i-16xlarge) is the folder the
	 * command finds for it (probe/facts/snapshot.c), so that both read the
	 * same facts; a path, or a NAME found nowhere, is read as given. */
	char snap[PROBE_PATH_MAX];
	if (set.snapshot &&
	    probe_snapshot_find(snap, sizeof(snap), set.snapshot, set.snapshot_dir) > 0)
		set.snapshot = snap;
	struct probe_facts facts;
	struct probe_verdict v;
	guard_policy_for(&set, &facts, &v, &s->policy);
	s->policy.substitute = set.slots == GUARD_SLOTS_SUBSTITUTE;
	s->cacheable = set.cacheable && !probe_facts_transient(&facts);
	s->filtered = s->policy.watch && seccomp_filtered();
	if (s->log == GUARD_LOG_DEBUG)
		log_verdict(s, &v, set.snapshot);
}

/*
 * Once per process, without a lock a signal handler could deadlock on: the
 * first caller claims the slot and publishes; anyone arriving meanwhile (a
 * thread, or a signal handler interrupting the prober) probes into its own
 * stack copy instead of waiting.  The probe is idempotent reads, so racing
 * probes agree.  A state built on a transient failure is used for this
 * call only and built again at the next.
 */
static const struct shim_state *shim_state(struct shim_state *local)
{
	if (atomic_load_explicit(&g_state, memory_order_acquire) == STATE_READY)
		return &g_shim;
	build_state(local);
	int expect = STATE_NONE;
	if (local->cacheable &&
	    atomic_compare_exchange_strong_explicit(&g_state, &expect, STATE_BUSY,
						    memory_order_acq_rel, memory_order_acquire)) {
		g_shim = *local;
		atomic_store_explicit(&g_state, STATE_READY, memory_order_release);
	}
	return local;
}

/* ---- Logging each distinct denial once ------------------------------------- */

/* This process's table for probe/guard/once.c: keyed by pid, so a fork
 * child logs afresh in its copy, and a vfork child, which writes into its
 * parent's, adds keys of its own instead of wiping the parent's.  128
 * distinct (process, encoding) lines, then silence. */
static _Atomic uint64_t g_seen[128];
static struct guard_once g_once = GUARD_ONCE_INIT(g_seen);

static bool first_sighting(const struct guard_decision *d)
{
	return guard_once_first(&g_once, (uint64_t)pmug_self_pid(), d);
}

static bool worth_logging(const struct shim_state *s, const struct guard_decision *d)
{
	return d->report && s->log != GUARD_LOG_QUIET && first_sighting(d);
}

static void log_denial(const struct shim_state *s, const struct guard_decision *d)
{
	/* The program's name from /proc, not program_invocation_short_name:
	 * a data relocation every preloaded process would pay for at start. */
	char comm[32];
	if (probe_read_small("/proc/self/comm", comm, sizeof(comm)) <= 0)
		__builtin_memcpy(comm, "?", 2);
	pid_t pid = (pid_t)pmug_sys0(SYS_getpid);
	struct logline l;
	guard_format_denial(&l, &s->policy, d, comm, pid);
	struct log_report r;
	guard_report_fields(&r, d, GUARD_LAYER_PRELOAD, comm, pid, (uid_t)pmug_sys0(SYS_getuid));
	emit(s, &l, &r);
}

/* ---- A stack of our own for the cold path ---------------------------------- */

/*
 * The first call (the probe: file reads, the kernel log, lazy binding of
 * what it calls) and every log line run on a stack mapped for the purpose,
 * never on the caller's, which may be a 16 KiB thread stack or an 8 KiB
 * sigaltstack.  Below it a guard region as large as the largest page size,
 * so an overflow faults instead of writing into a neighbour.
 */
#define COLD_STACK (64ul << 10)
#define COLD_GUARD (64ul << 10)

struct call {
	long attr;
	long group;
	bool canary;                /* decide.h: answered, never said (set by judge()) */
	const struct shim_state *s; /* in for a log; out of the first call */
	struct shim_state local;    /* first call: the state, when not kept */
	struct guard_decision d;
};

static bool on_cold_stack(void (*fn)(void *), struct call *c)
{
	long base = pmug_sys6(SYS_mmap, 0, (long)(COLD_GUARD + COLD_STACK), PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if ((unsigned long)base > -4096ul)
		return false;
	bool ok = pmug_sys3(SYS_mprotect, base + (long)COLD_GUARD, (long)COLD_STACK,
			    PROT_READ | PROT_WRITE) == 0;
	/* In a handler on a sigaltstack: once we leave it, the kernel no longer
	 * sees us on it and would build the next SA_ONSTACK frame at its top,
	 * over the live frame below us.  No signal is delivered meanwhile. */
	stack_t ss;
	bool on_alt = pmug_sys2(SYS_sigaltstack, 0, &ss) == 0 && (ss.ss_flags & SS_ONSTACK);
	uint64_t all = ~0ull, old = 0;
	if (ok && on_alt)
		pmug_sys4(SYS_rt_sigprocmask, SIG_BLOCK, &all, &old, sizeof(all));
	if (ok)
		pmug_on_stack(c, fn, (void *)(base + (long)(COLD_GUARD + COLD_STACK)));
	if (ok && on_alt)
		pmug_sys4(SYS_rt_sigprocmask, SIG_SETMASK, &old, 0, sizeof(old));
	pmug_sys2(SYS_munmap, base, (long)(COLD_GUARD + COLD_STACK));
	return ok;
}

/* The canary (decide.h) is known by its attr, where the attr is read at
 * all: where nothing is watched it passes as any call does, unsaid. */
static void judge(const struct shim_state *s, struct call *c)
{
	struct guard_attr h;
	int rc = s->policy.watch ? pmug_read_self((uint64_t)c->attr, &h, sizeof(h)) : 0;
	c->canary = s->policy.watch && rc == 0 && c->group == GUARD_REPORT_GROUP_FD &&
		    h.rest[5] == GUARD_CANARY_MARK;
	guard_decide(&s->policy, rc, &h, &c->d);
}

/* On the cold stack: build (and keep, where it may) the state, judge.
 * Everything here makes raw system calls only, so errno is untouched. */
static void cold_first(void *p)
{
	struct call *c = p;
	ensure_resolved(); /* the first syscall() may be this one */
	c->s = shim_state(&c->local);
	judge(c->s, c);
	if (!c->canary && worth_logging(c->s, &c->d))
		log_denial(c->s, &c->d);
}

static void cold_log(void *p)
{
	log_denial(((struct call *)p)->s, &((struct call *)p)->d);
}

/*
 * No stack could be mapped (out of memory, a sandbox that forbids mmap):
 * no probe is possible, so on an Intel CPU what lands on counters 3-6 is denied on
 * PERF_TYPE_RAW for this call, as mode always would, and nothing is kept or
 * logged.  Elsewhere the hazard does not exist.
 */
static void without_stack(struct call *c)
{
	static const char reason[] = "no memory for the probe: failing closed on an Intel CPU";
	c->local = (struct shim_state){.log = GUARD_LOG_QUIET, .filtered = true};
	struct guard_policy *p = &c->local.policy;
	p->mode = GUARD_ALWAYS;
	p->reason = reason;
	p->core_types[0] = PROBE_TYPE_RAW;
	p->core_hazard[0] = GUARD_RULE_HAZARD_ALL;
	p->core_table[0] = GUARD_TABLE_ETD;
	p->n_core = 1;
#if defined(__x86_64__)
	unsigned a, b, cx, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(cx), "=d"(d) : "a"(0), "c"(0));
	/* "GenuineIntel" in EBX, EDX, ECX. */
	p->watch = p->enforce = b == 0x756e6547 && d == 0x49656e69 && cx == 0x6c65746e;
#endif
	c->s = &c->local;
	judge(c->s, c);
}

/* ---- perf_event_open ------------------------------------------------------- */

/*
 * slots = substitute: open TOPDOWN.SLOTS as TOPDOWN.SLOTS_P from a private
 * copy of the attr (the caller's memory is never written), every other
 * byte as the caller wrote it.  The copy is judged again: a thread of the
 * caller may have changed the attr since the first read, and what reaches
 * the kernel is now our copy, with no window left.  An attr larger than
 * any kernel knows (or unreadable now) is denied.
 */
#define ATTR_COPY_MAX 512

static __attribute__((noinline)) long forward_slots_p(const struct shim_state *s, long n, long attr,
						      long pid, long cpu, long group, long flags)
{
	union {
		struct guard_attr head;
		unsigned char bytes[ATTR_COPY_MAX];
	} copy;
	if (pmug_read_self((uint64_t)attr, &copy.head, sizeof(copy.head)) != 0)
		goto deny;
	uint32_t first_size = copy.head.size;
	size_t size = first_size ? first_size : sizeof(copy.head);
	/* The size is read twice: a thread that changed it in between would
	 * make the kernel read past what was copied. */
	if (size > sizeof(copy) || pmug_read_self((uint64_t)attr, copy.bytes, size) != 0 ||
	    copy.head.size != first_size || !guard_attr_sized(copy.head.size))
		goto deny;
	enum guard_hit hit = guard_classify(&s->policy, copy.head.type, copy.head.config);
	if (hit == GUARD_HIT_SLOTS)
		copy.head.config = guard_slots_p(copy.head.config);
	else if (hit != GUARD_HIT_NONE)
		goto deny;
	return __atomic_load_n(&pmug_next_syscall, __ATOMIC_ACQUIRE)(n, (long)&copy, pid, cpu,
								     group, flags, (long)s->cookie);
deny:
	set_errno(ENOENT);
	return -1;
}

/* Told to a supervisor, if one watches (decide.h): it refuses nothing and
 * changes no errno (a raw system call). */
static _Atomic bool g_report_refused;

static void report_answered(const struct shim_state *s, long attr)
{
	/* No filter, no listener: the call would only cost a system call.
	 * One answered other than EBADF (a filter's errno, ENOSYS where the
	 * listener is gone) reached no supervisor: not asked again. */
	if (!s->filtered || atomic_load_explicit(&g_report_refused, memory_order_relaxed))
		return;
	long r = pmug_sys6(SYS_perf_event_open, attr, 0, -1, GUARD_REPORT_GROUP_FD, 0,
			   (long)GUARD_REPORT_MARK);
	if (r != -EBADF)
		atomic_store_explicit(&g_report_refused, true, memory_order_relaxed);
}

/*
 * errno: every path makes raw system calls only, so it never changes
 * errno.  Only a denial writes it.
 */
long pmug_perf_event_open(long n, long attr, long pid, long cpu, long group, long flags)
{
	struct call c = {.attr = attr, .group = group};
	if (atomic_load_explicit(&g_state, memory_order_acquire) == STATE_READY) {
		/* The hot path, on the caller's stack: three raw syscalls
		 * (openat, pread64 and close of /proc/thread-self/mem:
		 * probe/guard/attr.c) and a few comparisons. */
		c.s = &g_shim;
		judge(c.s, &c);
		if (__builtin_expect(!c.canary && worth_logging(c.s, &c.d), 0))
			on_cold_stack(cold_log, &c);
	} else if (!on_cold_stack(cold_first, &c)) {
		without_stack(&c);
	}
	if (c.d.deny) {
		if (!c.canary)
			report_answered(c.s, attr);
		ensure_resolved(); /* without_stack(): libc's errno not found yet */
		set_errno(ENOENT);
		return -1;
	}
	if (__builtin_expect(c.d.substitute, 0)) {
		if (!c.canary)
			report_answered(c.s, attr);
		return forward_slots_p(c.s, n, attr, pid, cpu, group, flags);
	}
	/* Under `pmuguard run` (auto mode) a seccomp supervisor also watches
	 * the tree and judges this call again; the cookie in the unused sixth
	 * argument (perf_event_open takes five) tells it a hit we let through
	 * was reported here already, so it is not said twice. */
	return __atomic_load_n(&pmug_next_syscall, __ATOMIC_ACQUIRE)(n, attr, pid, cpu, group,
								     flags, (long)c.s->cookie);
}
