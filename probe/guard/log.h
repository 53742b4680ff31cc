/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Async-signal-safe message building: a fixed buffer, no stdio, no malloc.
 * Messages go out with one write(2) so lines from threads never interleave.
 */
#ifndef PMUGUARD_LOG_H
#define PMUGUARD_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct logline {
	char buf[768];
	size_t len;
};

void log_str(struct logline *l, const char *s);
/* The same, every byte that log_plain_len() does not pass written as \xNN:
 * for values from outside (environment, program names), so that no value
 * can start a line of its own in a log or drive a terminal. */
void log_str_safe(struct logline *l, const char *s);
/* The one rule of what a value from outside may show as it is, for every
 * escaper of the guard and of the command (log_str_safe, the report's words
 * and --keys, its JSON): printable ASCII but the backslash, and well-formed
 * UTF-8 that is not a C1 control (U+0080-U+009F: a terminal takes 0x9b, or
 * U+009B, as CSI, as it takes ESC).  The length in bytes of the character
 * at p that passes; 0 where the byte at p is to be escaped (a C0 control,
 * DEL, the backslash, a C1 control's first byte, a byte that is not UTF-8).
 * p points into a NUL-terminated string. */
size_t log_plain_len(const unsigned char *p);
/* The length of a well-formed UTF-8 sequence (RFC 3629) at p, or 0. */
size_t log_utf8_len(const unsigned char *p);
void log_hex(struct logline *l, uint64_t v);
void log_dec(struct logline *l, uint64_t v);
/* Append a newline and write the line to fd (raw write: errno untouched). */
void log_emit(struct logline *l, int fd);
/* MESSAGE_IDs of pmuguard's journal entries (journalctl MESSAGE_ID=...). */
#define LOG_MSGID_BLOCK "7cd40d08058b4d219f41289bb6a12067"  /* preload, seccomp */
#define LOG_MSGID_KERNEL "d93446f22afd479cb455b565ea7ca8ed" /* the kernel guard */

/* What a report is about, as journal fields (PMUGUARD_LAYER=preload ...). */
struct log_report {
	const char *msgid;    /* LOG_MSGID_BLOCK or LOG_MSGID_KERNEL */
	const char *layer;    /* "preload", "seccomp", "kernel" */
	const char *decision; /* "deny", "substitute", "audit" */
	const char *hit;      /* "slots", "metric", "unreadable" */
	const char *program;
	uint64_t pid, uid;
	bool has_encoding; /* type and config were read */
	uint32_t type;
	uint64_t config;
};

/* Send the line (minus its first skip bytes) to the system log: journald's
 * native socket (/run/systemd/journal/socket) with MESSAGE_ID and the
 * report's fields where it listens, else /dev/log.  A report (r non-NULL)
 * that neither takes is counted, and the next one delivered carries the
 * count, in its text and as PMUGUARD_UNDELIVERED.  True if delivered;
 * errno untouched; async-signal-safe. */
bool log_system(const struct logline *l, size_t skip, const struct log_report *r);

#endif
