// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --via ptrace, one perf_event_open at a time.  A seccomp supervisor in
 * the target (pmuguard run --mode seccomp) rules out the notify mode: only
 * one listener per filter chain.  Instead, the whole tree is traced with
 * PTRACE_SYSCALL.  Syscall-entry stops come before seccomp, so at entry we
 * cannot know whether a filter or a supervisor will let the call through.
 * Hence the marker:
 *
 *   entry  perf_event_open with valid flags: set an unknown flag bit in
 *          the flags register.  The kernel rejects unknown flags with
 *          EINVAL before it even reads the attr.
 *   exit   EINVAL: the call got past seccomp into the kernel body.  A
 *          fault encoding is a simulated guest crash (exit 86); any other
 *          attr is restarted with the original registers (ip -= 2) so it
 *          runs for real, and the restarted call is let through unmarked.
 *          Anything else (ENOENT from a supervisor, ENOSYS from a dead
 *          listener, ...): the kernel body never ran -> verdict=denied.
 */

#include "faultsim.h"

#if defined(__x86_64__)

#include "ptrace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* is the tracee gone?  (killed from outside between stop and request) */
static bool gone(int err)
{
	return err == ESRCH;
}

static void push_restart(struct tracee *t)
{
	struct restart *r;

	if (t->n_restarts == MAX_RESTARTS) { /* drop the oldest */
		memmove(&t->restarts[0], &t->restarts[1],
			(MAX_RESTARTS - 1) * sizeof(t->restarts[0]));
		t->n_restarts--;
	}
	r = &t->restarts[t->n_restarts++];
	r->ip = t->entry.rip;
	r->sp = t->entry.rsp;
	r->args[0] = t->entry.rdi;
	r->args[1] = t->entry.rsi;
	r->args[2] = t->entry.rdx;
	r->args[3] = t->entry.r10;
	r->args[4] = t->entry.r8;
	r->args[5] = t->entry.r9;
}

/* is this entry one of our restarted calls coming back?  (pops it) */
static bool pop_restart(struct tracee *t, const struct fs_syscall_info *si)
{
	for (unsigned int i = t->n_restarts; i-- > 0;) {
		const struct restart *r = &t->restarts[i];

		if (r->ip != si->instruction_pointer || r->sp != si->stack_pointer ||
		    memcmp(r->args, si->entry.args, sizeof(r->args)) != 0)
			continue;
		memmove(&t->restarts[i], &t->restarts[i + 1],
			(t->n_restarts - i - 1) * sizeof(t->restarts[0]));
		t->n_restarts--;
		return true;
	}
	return false;
}

/* returns 0 to resume the tracee, else faultsim's exit code */
static int on_entry(struct tracer *p, struct tracee *t, const struct fs_syscall_info *si)
{
	unsigned char attr[ATTR_READ_SIZE];
	struct user_regs_struct regs;
	uint64_t flags;
	ssize_t n;

	if (si->arch == FS_AUDIT_ARCH_I386 && si->entry.nr == NR_PERF_EVENT_OPEN_32) {
		if (!p->warned_compat)
			fprintf(stderr,
				"faultsim: warning: 32-bit "
				"perf_event_open (pid %d) is not inspected in "
				"ptrace mode\n",
				(int)t->tid);
		p->warned_compat = true;
		return 0;
	}
	if (si->arch != FS_AUDIT_ARCH_X86_64 || si->entry.nr != NR_PERF_EVENT_OPEN_64)
		return 0;

	/* the call we restarted at its exit stop comes back: let it run */
	if (pop_restart(t, si)) {
		t->call = CALL_PASS;
		return 0;
	}
	t->call = CALL_NONE;

	n = read_target(t->tid, si->entry.args[0], attr);
	if (n < ATTR_MIN_SIZE) {
		log_call(p->logfd, t->tid, false, 0, 0, false, false);
		return 0;
	}
	t->type = get_u32(attr + 0);
	t->config = get_u64(attr + 8);

	flags = si->entry.args[4];
	if (flags & ~FS_PERF_FLAG_ALL) {
		/* the kernel rejects these flags before it looks at the attr */
		log_call(p->logfd, t->tid, true, t->type, t->config, false, false);
		return 0;
	}

	if (xptrace(PTRACE_GETREGS, t->tid, 0, (uintptr_t)&regs) < 0)
		return gone(errno) ? 0 : trace_fatal(p, "PTRACE_GETREGS", errno);
	if (regs.r8 != flags || regs.orig_rax != NR_PERF_EVENT_OPEN_64) {
		fprintf(stderr,
			"faultsim: registers of pid %d do not match "
			"its perf_event_open entry (r8=0x%llx flags=0x%llx)\n",
			(int)t->tid, (unsigned long long)regs.r8, (unsigned long long)flags);
		kill_traced_tree(p);
		return EXIT_SETUP;
	}
	t->entry = regs;
	regs.r8 = flags | MARK_FLAG;
	if (xptrace(PTRACE_SETREGS, t->tid, 0, (uintptr_t)&regs) < 0)
		return gone(errno) ? 0 : trace_fatal(p, "PTRACE_SETREGS", errno);
	t->call = CALL_MARKED;
	return 0;
}

static int on_exit_stop(struct tracer *p, struct tracee *t, const struct fs_syscall_info *si)
{
	enum call_state call = t->call;
	struct user_regs_struct regs;
	int64_t rval = si->exit.rval;

	t->call = CALL_NONE;
	if (call != CALL_MARKED)
		return 0; /* nothing in flight, or the restarted call */

	if (xptrace(PTRACE_GETREGS, t->tid, 0, (uintptr_t)&regs) < 0)
		return gone(errno) ? 0 : trace_fatal(p, "PTRACE_GETREGS", errno);
	regs.r8 = t->entry.r8; /* the original flags */

	if (rval == -EINVAL) {
		/* past seccomp, in the kernel body: the guest sees the attr */
		const struct world *w = p->w;
		bool nogroup = group_fd_missing(t->tid, t->entry.r10);
		bool fault = !w->healthy && is_core_type(w, t->type) &&
			     is_fixed3_encoding(t->config) && !nogroup;
		long word;

		if (fault) {
			log_verdict(p->logfd, t->tid, t->type, t->config, "FAULT");
			print_fault(t->type, t->config, t->tid);
			kill_traced_tree(p);
			return EXIT_FAULT;
		}
		log_verdict(p->logfd, t->tid, t->type, t->config, nogroup ? "ebadf" : "continue");

		/* restart: back over the 2-byte `syscall`, original args */
		errno = 0;
		word = xptrace(PTRACE_PEEKTEXT, t->tid, (uintptr_t)(regs.rip - 2), 0);
		if (errno != 0)
			return gone(errno) ? 0 : trace_fatal(p, "PTRACE_PEEKTEXT", errno);
		if (regs.rip != t->entry.rip || ((unsigned long)word & 0xffff) != 0x050f) {
			fprintf(stderr,
				"faultsim: cannot restart "
				"perf_event_open of pid %d: no syscall "
				"instruction before rip 0x%llx (bytes %02lx %02lx)\n",
				(int)t->tid, (unsigned long long)regs.rip,
				(unsigned long)word & 0xff, ((unsigned long)word >> 8) & 0xff);
			kill_traced_tree(p);
			return EXIT_SETUP;
		}
		regs.rip -= 2;
		regs.rax = t->entry.orig_rax;
		regs.rdi = t->entry.rdi;
		regs.rsi = t->entry.rsi;
		regs.rdx = t->entry.rdx;
		regs.r10 = t->entry.r10;
		regs.r8 = t->entry.r8;
		regs.r9 = t->entry.r9;
	} else {
		char verdict[48];

		snprintf(verdict, sizeof(verdict), "denied errno=%lld",
			 rval < 0 ? (long long)-rval : 0LL);
		log_verdict(p->logfd, t->tid, t->type, t->config, verdict);
	}
	if (xptrace(PTRACE_SETREGS, t->tid, 0, (uintptr_t)&regs) < 0)
		return gone(errno) ? 0 : trace_fatal(p, "PTRACE_SETREGS", errno);
	if (rval == -EINVAL)
		push_restart(t);
	return 0;
}

int on_syscall_stop(struct tracer *p, struct tracee *t)
{
	struct fs_syscall_info si;

	memset(&si, 0, sizeof(si));
	if (xptrace(FS_PTRACE_GET_SYSCALL_INFO, t->tid, sizeof(si), (uintptr_t)&si) < 0)
		return gone(errno) ? 0 : trace_fatal(p, "PTRACE_GET_SYSCALL_INFO", errno);
	if (si.op == FS_SYSCALL_INFO_ENTRY)
		return on_entry(p, t, &si);
	if (si.op == FS_SYSCALL_INFO_EXIT)
		return on_exit_stop(p, t, &si);
	return 0;
}

#endif /* __x86_64__ */
