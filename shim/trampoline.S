/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The exported syscall(): one compare and a tail jump.
 *
 * Written in assembly so that nothing is touched on the way through: every
 * argument register and the caller's stack (a seventh argument, if any) reach
 * the next syscall() exactly as they were passed, errno included, and our
 * frame is gone before it runs (so even syscall(SYS_vfork) behaves as it
 * does without us).  Only perf_event_open branches to the C guard, which
 * takes the same register arguments.
 */
#include <sys/syscall.h>

	.text
	.globl	syscall
	.type	syscall, @function
	.globl	pmug_syscall_entry
	.hidden	pmug_syscall_entry
#if defined(__x86_64__)
	.p2align 4
syscall:
pmug_syscall_entry:
	.cfi_startproc
#ifdef __CET__
	endbr64
#endif
	cmpq	$__NR_perf_event_open, %rdi
	je	pmug_perf_event_open
	jmp	*pmug_next_syscall(%rip)
	.cfi_endproc
#elif defined(__aarch64__)
	.p2align 2
syscall:
pmug_syscall_entry:
	.cfi_startproc
	cmp	x0, #__NR_perf_event_open
	b.eq	pmug_perf_event_open
	adrp	x16, pmug_next_syscall
	ldr	x16, [x16, :lo12:pmug_next_syscall]
	br	x16
	.cfi_endproc
#else
#error "trampoline.S: only x86_64 and aarch64 are supported"
#endif
	.size	syscall, .-syscall

	.section .note.GNU-stack,"",%progbits
