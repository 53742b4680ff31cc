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
 *
 * The number is compared as the kernel reads it: the low 32 bits only
 * (entry_SYSCALL_64 hands do_syscall_64() an int; arm64's el0_svc_common()
 * takes an int scno), and on x86_64 without the x32 bit (0x40000000), which
 * routes the same perf_event_open through the x32 table where that ABI is
 * enabled.  So syscall(0x100000000 | 298, ...) and syscall(0x4000012a, ...)
 * are judged like syscall(298, ...).  r11 is scratch at a call.
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
	movl	%edi, %r11d
	andl	$0xbfffffff, %r11d
	cmpl	$__NR_perf_event_open, %r11d
	je	pmug_perf_event_open
	jmp	*pmug_next_syscall(%rip)
	.cfi_endproc
#elif defined(__aarch64__)
	.p2align 2
syscall:
pmug_syscall_entry:
	.cfi_startproc
	cmp	w0, #__NR_perf_event_open
	b.eq	pmug_perf_event_open
	adrp	x16, pmug_next_syscall
	ldr	x16, [x16, :lo12:pmug_next_syscall]
	br	x16
	.cfi_endproc
#else
#error "trampoline.S: only x86_64 and aarch64 are supported"
#endif
	.size	syscall, .-syscall

/*
 * void pmug_on_stack(void *arg, void (*fn)(void *), void *top)
 *
 * fn(arg) on another stack (top: its 16-byte-aligned end), so that the
 * first call's probe, the loader's lazy binding of what it calls, and the
 * building of a log line never run on the caller's stack, which may be a
 * 16 KiB thread stack or an 8 KiB sigaltstack.  The frame pointer keeps the
 * way back, and the CFI lets debuggers unwind through.
 */
	.globl	pmug_on_stack
	.hidden	pmug_on_stack
	.type	pmug_on_stack, @function
#if defined(__x86_64__)
	.p2align 4
pmug_on_stack:
	.cfi_startproc
#ifdef __CET__
	endbr64
#endif
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	movq	%rdx, %rsp
	call	*%rsi
	movq	%rbp, %rsp
	.cfi_def_cfa_register %rsp
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
#elif defined(__aarch64__)
	.p2align 2
pmug_on_stack:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	mov	x29, sp
	.cfi_def_cfa_register x29
	mov	sp, x2
	blr	x1
	mov	sp, x29
	.cfi_def_cfa sp, 16
	ldp	x29, x30, [sp], #16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
#endif
	.size	pmug_on_stack, .-pmug_on_stack

	.section .note.GNU-stack,"",%progbits

/*
 * Built with -fcf-protection (distribution hardening): say so, as the C
 * objects do, or the linker drops the library's IBT/SHSTK marking.  Both
 * hold here: each entry point starts with endbr64, and every call returns
 * through its own ret (the tail jump leaves the shadow stack as it was).
 */
#if defined(__x86_64__) && defined(__CET__)
	.section .note.gnu.property,"a"
	.p2align 3
	.long	4		/* name size */
	.long	16		/* descriptor size */
	.long	5		/* NT_GNU_PROPERTY_TYPE_0 */
	.asciz	"GNU"
	.long	0xc0000002	/* GNU_PROPERTY_X86_FEATURE_1_AND */
	.long	4
	.long	__CET__		/* 1 IBT, 2 SHSTK */
	.p2align 3
#endif
