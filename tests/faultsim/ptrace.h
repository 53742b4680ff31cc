/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --via ptrace's parts, to each other (x86_64 only): the tracer's tables
 * and what ptrace_call.c and ptrace.c call in each other.
 */
#ifndef FAULTSIM_PTRACE_H
#define FAULTSIM_PTRACE_H

#include "faultsim.h"

#include <sys/ptrace.h>
#include <sys/user.h>

#define FS_PTRACE_GET_SYSCALL_INFO 0x420e
#define FS_SYSCALL_INFO_ENTRY 1
#define FS_SYSCALL_INFO_EXIT 2
#define FS_AUDIT_ARCH_X86_64 0xc000003eu
#define FS_AUDIT_ARCH_I386 0x40000003u
#define NR_PERF_EVENT_OPEN_64 298u
#define NR_PERF_EVENT_OPEN_32 336u
#define FS_PERF_FLAG_ALL 0xfull
#define MARK_FLAG (1ull << 20)

/* struct ptrace_syscall_info (linux/ptrace.h), without the header clash */
struct fs_syscall_info {
	uint8_t op;
	uint8_t pad[3];
	uint32_t arch;
	uint64_t instruction_pointer;
	uint64_t stack_pointer;
	union {
		struct {
			uint64_t nr;
			uint64_t args[6];
		} entry;
		struct {
			int64_t rval;
			uint8_t is_error;
		} exit;
		struct {
			uint64_t nr;
			uint64_t args[6];
			uint32_t ret_data;
		} seccomp;
	};
};

enum call_state {
	CALL_NONE,   /* no perf_event_open in flight */
	CALL_MARKED, /* entered with the marker flag set */
	CALL_PASS,   /* the restarted call: let it through untouched */
};

/*
 * A restarted call that has not come back yet.  A signal handler can run
 * between the restart and the re-entry (and make perf_event_open calls of
 * its own, which may be restarted in turn), so there is a small stack of
 * them, recognised by ip, sp and arguments.
 */
#define MAX_RESTARTS 8

struct restart {
	uint64_t ip, sp;
	uint64_t args[6];
};

struct tracee {
	pid_t tid;
	enum call_state call;
	uint32_t type;
	uint64_t config;
	struct user_regs_struct entry; /* registers at entry, unmarked */
	unsigned int n_restarts;
	struct restart restarts[MAX_RESTARTS];
};

struct tracer {
	const struct world *w;
	int logfd;
	pid_t child;
	struct tracee *t;
	size_t n, cap;
	bool warned_compat;
};

/* ptrace.c */
long xptrace(int req, pid_t tid, uintptr_t addr, uintptr_t data);
void kill_traced_tree(struct tracer *p);
int trace_fatal(struct tracer *p, const char *what, int err);

/* ptrace_call.c: a syscall stop of t; 0 to resume it, else faultsim's
 * exit status. */
int on_syscall_stop(struct tracer *p, struct tracee *t);

#endif
