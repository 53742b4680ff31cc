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

/* "[    0.352933]", "[ 0.123 ]" at p: the kernel's timestamp (print_time()),
 * blanks allowed on both sides of the number; *after is past the ']'. */
bool kmsg_paste_stamp(const char *p, const char *end, const char **after);

/* A line with its paste wrapping taken off, where a kernel record (a
 * timestamp) follows it: *out is either in the line or, where SGR
 * sequences were cut out, in buf (size bytes).  The line unchanged where
 * nothing fits or no timestamp follows.  Returns *out's length. */
size_t kmsg_paste_unwrap(const char *line, size_t len, char *buf, size_t size, const char **out);

#endif
