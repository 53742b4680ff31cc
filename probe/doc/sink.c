// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The nodes a document's walker gives its sink (doc.h): one function a
 * kind, so that every document (the report, the status, enforce's, run
 * --audit's, tree's, canary's) says each value the same way; and
 * doc_words(), a line for people beside them; doc_write(), a document in
 * the form the command line asked.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "doc.h"

void doc_str(const struct doc_sink *s, const char *key, const char *v)
{
	s->node(s->ctx, key, v ? DOC_NODE_STR : DOC_NODE_NULL, v, 0);
}

void doc_str_or_null(const struct doc_sink *s, const char *key, const char *v)
{
	doc_str(s, key, v && *v ? v : NULL);
}

void doc_uint(const struct doc_sink *s, const char *key, uint64_t n)
{
	s->node(s->ctx, key, DOC_NODE_UINT, NULL, n);
}

void doc_bool(const struct doc_sink *s, const char *key, bool b)
{
	s->node(s->ctx, key, DOC_NODE_BOOL, NULL, b);
}

void doc_null(const struct doc_sink *s, const char *key)
{
	s->node(s->ctx, key, DOC_NODE_NULL, NULL, 0);
}

void doc_hex(const struct doc_sink *s, const char *key, bool padded, uint64_t v)
{
	char buf[24];
	if (padded)
		snprintf(buf, sizeof(buf), "0x%016" PRIx64, v);
	else
		snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	doc_str(s, key, buf);
}

void doc_open(const struct doc_sink *s, const char *key, bool array)
{
	s->node(s->ctx, key, array ? DOC_NODE_ARRAY : DOC_NODE_OBJECT, NULL, 0);
}

void doc_end(const struct doc_sink *s)
{
	s->node(s->ctx, NULL, DOC_NODE_END, NULL, 0);
}

void doc_open_schema(const struct doc_sink *s, uint64_t schema)
{
	doc_open(s, NULL, false);
	doc_uint(s, "schema", schema);
}

void doc_open_head(const struct doc_sink *s, uint64_t schema, const char *version)
{
	char now[32];
	doc_utc_now(now, sizeof(now));
	doc_open_schema(s, schema);
	doc_str(s, "version", version);
	doc_str(s, "generated_at", now);
}

void doc_words(const struct doc_sink *s, const char *fmt, ...)
{
	char line[DOC_WORDS_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s->node(s->ctx, NULL, DOC_NODE_WORDS, line, 0);
}

void doc_write(FILE *out, enum doc_form form, doc_walker *walk, const void *arg)
{
	if (form == DOC_FORM_JSON)
		doc_write_json(out, walk, arg);
	else if (form == DOC_FORM_KEYS)
		doc_write_keys(out, walk, arg);
	else
		doc_write_text(out, NULL, walk, arg);
}
