/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command's writing, below every part that prints a document (the
 * probe's report, the status, enforce's): the document as nodes a walker
 * gives a sink, the one JSON writer and the one KEY=VALUE writer, the one
 * escaper of a value for people, the one time formatter, and the exit
 * codes (exit_codes.h).  As bpftool keeps one json_writer.c: a key is
 * written once, in a walker, and every form of it comes from there.
 */
#ifndef PMUGUARD_DOC_H
#define PMUGUARD_DOC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "exit_codes.h"

/* The document behind --json and --keys: each node in order.  key is the
 * node's name in its object, NULL in an array; DOC_NODE_OBJECT and
 * DOC_NODE_ARRAY open a container that DOC_NODE_END closes.
 * DOC_NODE_WORDS is a line for people (s, no key), written beside the keys
 * it says, as iproute2's print_*() give the text and the JSON member in one
 * call: the text writer prints it, the JSON and KEYS writers skip it. */
enum doc_node {
	DOC_NODE_NULL,
	DOC_NODE_BOOL,
	DOC_NODE_UINT,
	DOC_NODE_STR,
	DOC_NODE_OBJECT,
	DOC_NODE_ARRAY,
	DOC_NODE_END,
	DOC_NODE_WORDS,
};
struct doc_sink {
	void (*node)(void *ctx, const char *key, enum doc_node kind, const char *s, uint64_t n);
	void *ctx;
};

/* Every document of the command (the probe's report, the status,
 * `enforce start|status`, follow's lines, `run --audit`'s, `tree`,
 * `canary`) through the same two writers: walk gives sink every node of
 * the document in order, the top object included, as report_walk does
 * for the report.  One JSON object and a newline, or KEY=VALUE lines. */
typedef void doc_walker(const struct doc_sink *sink, const void *arg);
void doc_write_json(FILE *out, doc_walker *walk, const void *arg);
/* The same, with ", " and ": " between members, as the status document
 * has always been printed. */
void doc_write_json_spaced(FILE *out, doc_walker *walk, const void *arg);
void doc_write_keys(FILE *out, doc_walker *walk, const void *arg);
/* The document's words: each DOC_NODE_WORDS a line, "PREFIX: " first
 * (prefix NULL: none), every other node skipped.  A line's bytes by the
 * one rule (log_plain_len()), but a backslash passes: the words carry
 * values other documents escaped already (\xHH kept as text). */
void doc_write_text(FILE *out, const char *prefix, doc_walker *walk, const void *arg);

/* The forms a command prints a document in: its words for people (the
 * command's own), or the document as --json or --keys asks.  The one
 * enum: every subcommand's --json and --keys set it (../cli/:
 * cli_form_option()). */
enum doc_form { DOC_FORM_TEXT, DOC_FORM_JSON, DOC_FORM_KEYS };
/* The document in form: doc_write_json(), doc_write_keys(), or for
 * DOC_FORM_TEXT its words (doc_write_text(), no prefix): nothing from a
 * walker that gives none, whose words are the caller's. */
void doc_write(FILE *out, enum doc_form form, doc_walker *walk, const void *arg);

/* The nodes a walker gives, as ../report/document.c gives the report's:
 * key NULL inside an array; a NULL string is null; doc_open() starts an
 * object (array false) or an array that doc_end() closes.
 * doc_hex() is a value as a string, "0x400" (padded false) or as
 * the kernel prints a mask, "0x0000000f000000ff". */
void doc_str(const struct doc_sink *s, const char *key, const char *v);
/* A string where there is one: null for NULL and "" alike. */
void doc_str_or_null(const struct doc_sink *s, const char *key, const char *v);
void doc_uint(const struct doc_sink *s, const char *key, uint64_t n);
void doc_bool(const struct doc_sink *s, const char *key, bool b);
void doc_null(const struct doc_sink *s, const char *key);
void doc_hex(const struct doc_sink *s, const char *key, bool padded, uint64_t v);
void doc_open(const struct doc_sink *s, const char *key, bool array);
void doc_end(const struct doc_sink *s);
/* A document's top object opened with its first key, schema: every
 * document's (probe's, tree's, canary's). */
void doc_open_schema(const struct doc_sink *s, uint64_t schema);
/* The same, with the rest of the head: version and generated_at (now,
 * doc_utc_now()), the first three keys of every document a command of its
 * own writes (enforce's, run --audit's). */
void doc_open_head(const struct doc_sink *s, uint64_t schema, const char *version);
/* A line of words (DOC_NODE_WORDS), printf's format: at most
 * DOC_WORDS_MAX - 1 bytes, the rest cut. */
#define DOC_WORDS_MAX 4096
__attribute__((format(printf, 2, 3))) void doc_words(const struct doc_sink *s, const char *fmt,
						     ...);

/* A JSON string (NULL: null), by the one rule (log_plain_len()): what
 * passes is written as it is, '"' and '\\' as \" and \\, control
 * characters (C0, DEL, C1) as \u00XX (RFC 8259), and a byte that is not
 * UTF-8 as U+FFFD.  The command's one JSON string writer. */
void doc_json_str(FILE *out, const char *s);

/* s with every byte that log_plain_len() does not pass (control
 * characters, DEL, backslashes, bytes that are not UTF-8) written as
 * \xHH: --keys values, every line of the text report, and every line of
 * the command that carries a value from outside. */
void doc_put_safe(FILE *out, const char *s);

/* Now as UTC ISO 8601 ("2026-12-04T21:40:00Z"), for every JSON document's
 * generated_at; SOURCE_DATE_EPOCH (reproducible builds' convention: the
 * pinned reports) stands for now where it is set. */
void doc_utc_now(char *buf, size_t size);
/* t as UTC, for data (DOC_TIME_ISO, "2026-12-04T21:40:00Z") or for people
 * (DOC_TIME_TEXT, "2026-12-04 21:40:00 UTC"); where it cannot be said,
 * "?" and false (time.c, the command's one time formatter). */
enum doc_time { DOC_TIME_ISO, DOC_TIME_TEXT };
bool doc_time_utc(char *buf, size_t size, time_t t, enum doc_time form);

#endif
