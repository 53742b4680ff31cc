// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A document flattened for shells, as `systemctl show` does: one KEY=VALUE
 * a line, the first `schema=N` (every document of the command, doc.h):
 * the command's one KEYS writer.
 *
 *   - KEY is the value's JSON path, joined with '.': kernel_log.mask,
 *     machine.words; an array's elements by index: pmus.0.name,
 *     findings.0.id.
 *   - VALUE is a string as it is, without quotes, its control characters,
 *     backslashes and bytes that are not UTF-8 written as \xHH (a value
 *     never spans lines); true or false; a number in decimal; empty for
 *     null.
 *   - An object or array prints no line of its own, unless it is null
 *     (machine=).
 *
 * Scripts read data here, never the sentences people read: sed -n
 * 's/^guard_state=//p'.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "log.h"
#include "doc.h"

#define KEYS_DEPTH 8 /* the document nests 4 deep */
#define KEYS_PATH 256

struct keys {
	FILE *out;
	char path[KEYS_PATH];
	unsigned depth;
	size_t len[KEYS_DEPTH]; /* the path's length at each open container */
	bool array[KEYS_DEPTH];
	unsigned index[KEYS_DEPTH]; /* the next element's index, in an array */
};

/* What log_plain_len() passes as it is, every other byte as \xHH: the one
 * rule of a value or a message line, in the command's stdio (the JSON
 * renderer writes the same rule in JSON's escapes). */
void doc_put_safe(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = log_plain_len(p);
		if (n) {
			fwrite(p, 1, n, out);
			p += n;
		} else {
			fprintf(out, "\\x%02x", *p);
			p++;
		}
	}
}

static void keys_value(FILE *out, const char *s)
{
	doc_put_safe(out, s);
}

/* The node's path into k->path; its length. */
static size_t keys_path(struct keys *k, const char *key)
{
	size_t at = k->depth ? k->len[k->depth - 1] : 0;
	char part[24];
	if (!key && k->depth && k->array[k->depth - 1]) {
		snprintf(part, sizeof(part), "%u", k->index[k->depth - 1]++);
		key = part;
	}
	if (!key)
		key = "";
	int n = snprintf(k->path + at, sizeof(k->path) - at, "%s%s", at ? "." : "", key);
	if (n < 0 || (size_t)n >= sizeof(k->path) - at)
		return strlen(k->path);
	return at + (size_t)n;
}

static void keys_node(void *ctx, const char *key, enum doc_node kind, const char *s, uint64_t n)
{
	struct keys *k = ctx;
	if (kind == DOC_NODE_WORDS) /* words are the text's */
		return;
	if (kind == DOC_NODE_END) {
		if (k->depth)
			k->depth--;
		return;
	}
	size_t len = keys_path(k, key);
	if (kind == DOC_NODE_OBJECT || kind == DOC_NODE_ARRAY) {
		if (k->depth < KEYS_DEPTH) {
			k->len[k->depth] = len;
			k->array[k->depth] = kind == DOC_NODE_ARRAY;
			k->index[k->depth] = 0;
			k->depth++;
		}
		return;
	}
	fwrite(k->path, 1, len, k->out);
	fputc('=', k->out);
	switch (kind) {
	case DOC_NODE_BOOL: fputs(n ? "true" : "false", k->out); break;
	case DOC_NODE_UINT: fprintf(k->out, "%" PRIu64, n); break;
	case DOC_NODE_STR: keys_value(k->out, s); break;
	default: break; /* null: empty */
	}
	fputc('\n', k->out);
}

void doc_write_keys(FILE *out, doc_walker *walk, const void *arg)
{
	struct keys k = {.out = out};
	const struct doc_sink sink = {keys_node, &k};
	walk(&sink, arg);
}
