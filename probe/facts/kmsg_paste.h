/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The wrapping people add when they paste a kernel log as text (kmsg.c reads
 * what is left): terminal colours, forum and mail markup, a log shipper's
 * fields before the kernel's timestamp.  Text form only: /dev/kmsg and
 * syslog(2) records carry none of it.
 */
#ifndef PMUGUARD_KMSG_PASTE_H
#define PMUGUARD_KMSG_PASTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "[    0.352933]", "[ 0.123 ]" at p: the kernel's timestamp (print_time()),
 * blanks allowed on both sides of the number; *after is past the ']'. */
bool kmsg_paste_stamp(const char *p, const char *end, const char **after);

struct probe_klog_paste;

/* The kernel's stamp that starts a line, after a "<pri>" if any, in
 * microseconds; false where the line has none. */
bool kmsg_paste_stamp_us(const char *p, const char *end, uint64_t *us);

/* dmesg -d's "<    0.000902>" at p, inside a stamp: past it, else p. */
const char *kmsg_paste_delta(const char *p, const char *end);

/* A JSON line's message ("MESSAGE", "message", "log": journalctl -o json,
 * Docker's json-file, shippers), its first line unescaped into buf, after
 * the kernel's stamp where the journal kept it; ps->foreign where the
 * journal says another program wrote it.  0 where the line is no such
 * object or it does not fit. */
size_t kmsg_paste_json(struct probe_klog_paste *ps, const char *line, size_t len, char *buf,
		       size_t size);

/* A pasted line as the kernel wrote it: a JSON line's message, then the
 * normalizer (escape sequences and other controls, a serial console's
 * carriage returns, Unicode blanks), `cat -n`'s numbers, and the wrapping
 * before the stamp (a shipper's bracketed fields, markup, or any prefix
 * where the text's first stamped line has one).  *out is in the line or in
 * buf (size bytes); returns its length.  ps keeps what the text's first
 * lines decided. */
size_t kmsg_paste_unwrap(struct probe_klog_paste *ps, const char *line, size_t len, char *buf,
			 size_t size, const char **out);

#endif
