// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A document's words (doc.h): each DOC_NODE_WORDS a line, "PREFIX: "
 * first, the keys skipped, as iproute2's print_*() print the text of a
 * call whose JSON member the JSON writer prints.  The command's one
 * writer of a walked document's text (`pmuguard status`).
 */
#include <stdio.h>

#include "log.h"
#include "doc.h"

struct text {
	FILE *out;
	const char *prefix;
};

/* A line by the one rule, a backslash passing: no value can drive the
 * terminal or print a line of its own, and an \xHH another document
 * escaped stays as it was. */
static void text_node(void *ctx, const char *key, enum doc_node kind, const char *s, uint64_t n)
{
	struct text *t = ctx;
	(void)key;
	(void)n;
	if (kind != DOC_NODE_WORDS)
		return;
	if (t->prefix)
		fprintf(t->out, "%s: ", t->prefix);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t len = *p == '\\' ? 1 : log_plain_len(p);
		if (len) {
			fwrite(p, 1, len, t->out);
			p += len;
		} else {
			fprintf(t->out, "\\x%02x", *p++);
		}
	}
	fputc('\n', t->out);
}

void doc_write_text(FILE *out, const char *prefix, doc_walker *walk, const void *arg)
{
	struct text t = {out, prefix};
	const struct doc_sink sink = {text_node, &t};
	walk(&sink, arg);
}
