// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The loader and libbpf (see enforce_loader.h): the version it needs, the
 * errors it is read with, and its messages, kept for the command (shown
 * with PMUGUARD_LOG=debug), silenced, or read for why a load failed.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "enforce_loader.h"

/* The floor (meson.build: libbpf >= 0.7).  Every check in the loader is written to
 * libbpf 1.0's errors: a failed bpf_program__attach_*() and
 * ring_buffer__new() return NULL with errno set, the rest a negative
 * errno.  Before 1.0 an attach that failed returned ERR_PTR(-err), which
 * is not NULL, so a refused attach read as attached and was pinned.  From
 * 0.7 (which also has bpf_program__set_log_buf()), strict mode gives
 * every call made here 1.0's return: the attaches need it
 * (LIBBPF_STRICT_CLEAN_PTRS); the low-level calls (bpf_obj_pin(),
 * bpf_obj_get(), bpf_map_lookup_elem(), ...) return -1 or -errno and set
 * errno either way, which is what is read here; the skeleton's open and
 * load, ring_buffer__new() and __poll() return 1.0's errors in 0.7
 * already.  LIBBPF_MAJOR_VERSION and _MINOR_VERSION are libbpf_version.h's,
 * which libbpf.h includes from 0.6 on: undefined, older. */
#if !defined(LIBBPF_MAJOR_VERSION) || (LIBBPF_MAJOR_VERSION == 0 && LIBBPF_MINOR_VERSION < 7)
#error "pmuguard enforce needs libbpf 0.7 or later (probe/enforce/README.md, Build)"
#endif
#if LIBBPF_MAJOR_VERSION < 1
/* A constructor: before any libbpf call of any entry point. */
__attribute__((constructor)) static void libbpf_errors_as_1_0(void)
{
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
}
#endif

/* libbpf's messages, kept (the last lines) for the caller instead of
 * printed: the command shows them with PMUGUARD_LOG=debug. */
static char *libbpf_log;
static size_t libbpf_log_size;

static int keep_libbpf_line(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || !libbpf_log || !libbpf_log_size)
		return 0;
	char line[512];
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n <= 0)
		return 0;
	size_t len = strlen(libbpf_log), add = strlen(line);
	if (add >= libbpf_log_size)
		add = libbpf_log_size - 1;
	if (len + add >= libbpf_log_size) {
		/* Keep the newest lines: drop from the front. */
		size_t drop = len + add - (libbpf_log_size - 1);
		memmove(libbpf_log, libbpf_log + drop, len - drop + 1);
		len -= drop;
	}
	memcpy(libbpf_log + len, line, add);
	libbpf_log[len + add] = '\0';
	return n;
}

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

void enf_libbpf_capture(char *buf, size_t size)
{
	libbpf_log = buf;
	libbpf_log_size = size;
	if (size)
		buf[0] = '\0';
	libbpf_set_print(buf ? keep_libbpf_line : silent);
}

libbpf_print_fn_t enf_libbpf_quiet(void)
{
	return libbpf_set_print(NULL);
}

/* The last line of text that is not empty and does not start with one of
 * skip[] (NULL-terminated): [*line, *end), or false. */
static bool last_line(const char *text, const char *const *skip, const char **line,
		      const char **end)
{
	bool found = false;
	for (const char *b = text; *b;) {
		const char *e = b + strcspn(b, "\n");
		bool keep = e > b;
		for (unsigned i = 0; keep && skip[i]; i++)
			keep = strncmp(b, skip[i], strlen(skip[i])) != 0;
		if (keep) {
			*line = b;
			*end = e;
			found = true;
		}
		b = *e ? e + 1 : e;
	}
	return found;
}

/* Why a load failed, in one line: the CO-RE relocation that found no field
 * (libbpf says "relo #N: ..."), else the verifier's last words before its
 * summary, else libbpf's last line. */
void enf_libbpf_load_reason(const char *libbpf, const char *verifier, char *out, size_t size)
{
	static const char *const summary[] = {"processed ", "verification time", "stack depth",
					      NULL};
	static const char *const none[] = {NULL};
	const char *line = NULL, *end = NULL;
	const char *relo = strstr(libbpf, "relo #");
	if (relo) {
		line = relo;
		while (line > libbpf && line[-1] != '\n')
			line--;
		end = line + strcspn(line, "\n");
	} else if (!last_line(verifier, summary, &line, &end)) {
		last_line(libbpf, none, &line, &end);
	}
	if (line && end > line)
		snprintf(out, size, "%.*s", (int)(end - line), line);
	else if (size)
		out[0] = '\0';
}
