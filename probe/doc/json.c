// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A document as one JSON object on one line (every document of the
 * command, doc.h: the probe's report, the status, enforce's, follow's
 * lines, run --audit's, tree's, canary's): the command's one JSON writer.
 * Strings are UTF-8 as found: control characters (C0, DEL and C1) are \u
 * escapes, and a byte that is not UTF-8 becomes U+FFFD.
 */
#include <inttypes.h>
#include <stdbool.h>

#include "log.h"
#include "doc.h"

#define JSON_DEPTH 8 /* the document nests 4 deep */

struct json {
	FILE *out;
	unsigned depth;
	bool first[JSON_DEPTH];      /* no value yet in the container at this depth */
	bool kind_array[JSON_DEPTH]; /* it is an array */
	bool spaced;                 /* ", " and ": " between members (a status document) */
};

void doc_json_str(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = log_plain_len(p);
		if (*p == '"') {
			fputs("\\\"", out);
			p++;
		} else if (n) {
			fwrite(p, 1, n, out);
			p += n;
		} else if (*p == '\\') {
			fputs("\\\\", out);
			p++;
		} else if (*p < 0x80) { /* C0, DEL */
			fprintf(out, "\\u%04x", *p);
			p++;
		} else if ((n = log_utf8_len(p)) != 0) { /* C1: U+0080-U+009F */
			fprintf(out, "\\u%04x", (unsigned)((p[0] & 0x1f) << 6 | (p[1] & 0x3f)));
			p += n;
		} else {
			fputs("\\ufffd", out);
			p++;
		}
	}
	fputc('"', out);
}

static void json_node(void *ctx, const char *key, enum doc_node kind, const char *s, uint64_t n)
{
	struct json *j = ctx;
	if (kind == DOC_NODE_WORDS) /* words are the text's */
		return;
	if (kind == DOC_NODE_END) {
		if (j->depth == 0)
			return;
		j->depth--;
		fputc(j->kind_array[j->depth] ? ']' : '}', j->out);
		return;
	}
	if (j->depth > 0) {
		if (!j->first[j->depth - 1])
			fputs(j->spaced ? ", " : ",", j->out);
		j->first[j->depth - 1] = false;
	}
	if (key) {
		doc_json_str(j->out, key);
		fputs(j->spaced ? ": " : ":", j->out);
	}
	switch (kind) {
	case DOC_NODE_NULL: fputs("null", j->out); break;
	case DOC_NODE_BOOL: fputs(n ? "true" : "false", j->out); break;
	case DOC_NODE_UINT: fprintf(j->out, "%" PRIu64, n); break;
	case DOC_NODE_STR: doc_json_str(j->out, s); break;
	case DOC_NODE_OBJECT:
	case DOC_NODE_ARRAY:
		fputc(kind == DOC_NODE_ARRAY ? '[' : '{', j->out);
		if (j->depth < JSON_DEPTH) {
			j->kind_array[j->depth] = kind == DOC_NODE_ARRAY;
			j->first[j->depth] = true;
			j->depth++;
		}
		break;
	case DOC_NODE_END:
	case DOC_NODE_WORDS: break;
	}
}

static void write_json(FILE *out, bool spaced, doc_walker *walk, const void *arg)
{
	struct json j = {.out = out, .spaced = spaced};
	const struct doc_sink sink = {json_node, &j};
	walk(&sink, arg);
	fputc('\n', out);
}

void doc_write_json(FILE *out, doc_walker *walk, const void *arg)
{
	write_json(out, false, walk, arg);
}

void doc_write_json_spaced(FILE *out, doc_walker *walk, const void *arg)
{
	write_json(out, true, walk, arg);
}
