/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmuguard-canary's entry: no C runtime start file (crt1's
 * __libc_start_main@GLIBC_2.34 would set the glibc floor at 2.34), so the
 * kernel's stack pointer is handed to canary_main() as it is: argc, argv.
 * The loader has set up libc (TLS, errno) and run the preloaded library's
 * constructor before this runs.
 */
	.text
	.globl	_start
	.type	_start, @function
#if defined(__x86_64__)
_start:
	xor	%ebp, %ebp
	mov	%rsp, %rdi
	and	$-16, %rsp
	call	canary_main
	hlt
#elif defined(__aarch64__)
_start:
	mov	x29, #0
	mov	x30, #0
	mov	x0, sp
	bl	canary_main
	brk	#0
#else
#error "pmuguard-canary's entry is written for x86_64 and aarch64"
#endif
	.size	_start, . - _start
	.section .note.GNU-stack, "", @progbits
