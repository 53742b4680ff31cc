/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Async-signal-safe message building: a fixed buffer, no stdio, no malloc.
 * Messages go out with one write(2) so lines from threads never interleave.
 */
#ifndef PMUGUARD_LOG_H
#define PMUGUARD_LOG_H

#include <stddef.h>
#include <stdint.h>

struct logline {
	char buf[768];
	size_t len;
};

void log_str(struct logline *l, const char *s);
/* The same, with control characters, DEL and backslash written as \xNN:
 * for values from outside (environment, program names), so that no value
 * can start a line of its own in a log. */
void log_str_safe(struct logline *l, const char *s);
void log_hex(struct logline *l, uint64_t v);
void log_dec(struct logline *l, uint64_t v);
/* Append a newline and write the line to fd (raw write: errno untouched). */
void log_emit(struct logline *l, int fd);
/* Send the line (minus its first skip bytes) to /dev/log (errno untouched). */
void log_syslog(const struct logline *l, size_t skip);

#endif
