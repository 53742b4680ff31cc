/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the loader's files share, and nothing of it the command's (the
 * command reads enforce.h):
 *
 *   enforce.c         load, attach, self-test, pin, replace, stop
 *   enforce_pinned.c  what is pinned read back (status), follow's ring
 *   enforce_iter.c    the iterator of the perf events that already exist
 *   enforce_libbpf.c  libbpf: the version floor, its errors, its log
 */
#ifndef PMUGUARD_ENFORCE_LOADER_H
#define PMUGUARD_ENFORCE_LOADER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <bpf/libbpf.h>

/* A reason into buf[0..size), cut to fit. */
static inline void why(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline void why(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

/* DIR/NAME into out, false where it does not fit. */
static inline bool join(char *out, size_t size, const char *dir, const char *name)
{
	int n = snprintf(out, size, "%s/%s", dir, name);
	return n > 0 && (size_t)n < size;
}

/* enforce_canary.c: the self-test's canary for the program whose nonce is
 * nonce: 1 when it opened (closed again at once), or -errno. */
int enf_canary_open(unsigned long long nonce);

/* enforce_libbpf.c: libbpf's messages kept (their last lines) in
 * buf[0..size) for the caller instead of printed; NULL: none kept, none
 * printed.  The caller lets go of buf with (NULL, 0). */
void enf_libbpf_capture(char *buf, size_t size);
/* libbpf silenced for a call that may fail as expected (nothing pinned);
 * the printer it had, to give back with libbpf_set_print(). */
libbpf_print_fn_t enf_libbpf_quiet(void);
/* Why a load failed, in one line, from libbpf's kept lines and the
 * verifier's log: the CO-RE relocation that found no field, else the
 * verifier's last words, else libbpf's last line ("" where none). */
void enf_libbpf_load_reason(const char *libbpf, const char *verifier, char *out, size_t size);

#endif
