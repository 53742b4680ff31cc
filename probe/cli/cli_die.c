// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command's messages: warn_msg() and the die*() helpers, every line
 * on stderr "pmuguard: ..." through the one escaper; cli_line() and
 * cli_put() for the lines a subcommand prints with values from outside.  Each subcommand and
 * main.c call them; they call nothing of the command's, so no circle.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void fput_safe(const char *s, FILE *out)
{
	doc_put_safe(out, s);
}

/* fmt's text through the one escaper: values from outside (paths, the
 * kernel's and libbpf's words, comms, a file's contents) cannot drive a
 * terminal or start a line of their own; what the command wrote itself
 * passes as it is. */
static void vput(FILE *out, const char *fmt, va_list ap)
{
	char *text = NULL;
	if (vasprintf(&text, fmt, ap) >= 0) {
		fput_safe(text, out);
		free(text);
	} else {
		fputs("(out of memory formatting a message)", out);
	}
}

void cli_put(FILE *out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vput(out, fmt, ap);
	va_end(ap);
}

void cli_line(FILE *out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vput(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

/* One line on stderr, whatever the values in it hold: paths and variables
 * come from outside, and a newline in one must not start a line of its own
 * (the same escaping as log_str_safe in the shim). */
static void vmsg(const char *fmt, va_list ap, int err)
{
	fputs("pmuguard: ", stderr);
	vput(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

/* The body every message printer shares: its arguments through vmsg. */
#define SAY(fmt, err)                                                                              \
	do {                                                                                       \
		va_list ap;                                                                        \
		va_start(ap, fmt);                                                                 \
		vmsg(fmt, ap, err);                                                                \
		va_end(ap);                                                                        \
	} while (0)

void warn_msg(const char *fmt, ...)
{
	SAY(fmt, 0);
}

void die(const char *fmt, ...)
{
	SAY(fmt, 0);
	exit(EXIT_INTERNAL);
}

void die_errno(const char *fmt, ...)
{
	int err = errno;
	SAY(fmt, err);
	exit(EXIT_INTERNAL);
}

void die_usage(const char *fmt, ...)
{
	SAY(fmt, 0);
	fputs("Try 'pmuguard --help'.\n", stderr);
	exit(EXIT_USAGE);
}

void die_bad_option(const char *cmd, char **argv, const char *optstring)
{
	/* getopt's own messages are off (opterr = 0 in main): one prefix.  An
	 * unknown long option leaves optopt 0; a known one, or a short one in
	 * optstring, that getopt refused lacks its argument. */
	const char *arg = optind > 0 ? argv[optind - 1] : "?";
	if (optopt && (!strncmp(arg, "--", 2) || strchr(optstring, optopt)))
		die_usage("%s: option '%s' needs an argument", cmd,
			  !strncmp(arg, "--", 2) ? arg : (char[]){'-', (char)optopt, '\0'});
	if (optopt)
		die_usage("%s: unrecognized option '-%c'", cmd, optopt);
	die_usage("%s: unrecognized option '%s'", cmd, arg);
}

void cli_verb_names(char *buf, size_t size, const struct cli_verb *v, size_t n)
{
	size_t at = 0;
	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < n && at < size; i++) {
		int w = snprintf(buf + at, size - at, "%s%s",
				 !i           ? ""
				 : i + 1 == n ? " or "
					      : ", ",
				 v[i].name);
		if (w < 0)
			break;
		at += (size_t)w;
	}
}
