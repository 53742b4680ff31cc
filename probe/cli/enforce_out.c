// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `pmuguard enforce`'s document writer: start's and status's model, follow's
 * and the agent's lines, as JSON or as KEY=VALUE lines.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "enforce_common.h"

/* ---- One model, three renderings ------------------------------------------
 *
 * start and status each fill one model and render it as text for people,
 * or as data for programs: JSON, or the same tree flattened into KEY=VALUE
 * lines for shell scripts (as systemctl show prints).  Scripts read the
 * data, never the sentences: rewording a line of text changes no key.
 *
 * Flattening: a key is the JSON path, its members joined by '.', array
 * elements by their index (by_encoding.0.config=0x400); a string is raw,
 * with control characters, DEL and '\' written as \xHH (fput_safe); true,
 * false; null is an empty value.  The first key is schema.  Empty arrays
 * and objects give no line.
 */

/* The next member: a comma and its name in JSON; its path in keys. */
static void out_member(struct out *o, const char *key)
{
	unsigned d = o->depth;
	unsigned i = o->n[d]++;
	if (o->form == FORM_JSON) {
		if (i)
			fputc(',', o->f);
		if (!o->array[d])
			fprintf(o->f, "\"%s\":", key);
		return;
	}
	size_t at = o->plen[d];
	char index[16];
	if (o->array[d]) {
		snprintf(index, sizeof(index), "%u", i);
		key = index;
	}
	snprintf(o->path + at, sizeof(o->path) - at, "%s%s", at ? "." : "", key);
}

void out_open(struct out *o, const char *key, bool array)
{
	out_member(o, key);
	if (o->form == FORM_JSON)
		fputc(array ? '[' : '{', o->f);
	if (o->depth + 1 >= OUT_DEPTH)
		die("enforce: output nested too deep"); /* a bug, not a condition */
	o->depth++;
	o->plen[o->depth] = strlen(o->path);
	o->n[o->depth] = 0;
	o->array[o->depth] = array;
}

void out_close(struct out *o)
{
	if (o->form == FORM_JSON)
		fputc(o->array[o->depth] ? ']' : '}', o->f);
	o->depth--;
	o->path[o->plen[o->depth + 1]] = '\0';
}

/* A scalar: JSON writes text as it is; keys puts it after KEY=. */
static void out_raw(struct out *o, const char *key, const char *text)
{
	out_member(o, key);
	if (o->form == FORM_JSON)
		fputs(text, o->f);
	else
		fprintf(o->f, "%s=%s\n", o->path, text);
}

void out_str(struct out *o, const char *key, const char *s)
{
	if (!s) {
		out_raw(o, key, o->form == FORM_JSON ? "null" : "");
		return;
	}
	out_member(o, key);
	if (o->form == FORM_JSON) {
		json_str(o->f, s);
	} else {
		fprintf(o->f, "%s=", o->path);
		fput_safe(s, o->f);
		fputc('\n', o->f);
	}
}

void out_null(struct out *o, const char *key)
{
	out_str(o, key, NULL);
}

void out_u64(struct out *o, const char *key, unsigned long long v)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "%llu", v);
	out_raw(o, key, buf);
}

void out_hex(struct out *o, const char *key, unsigned long long v)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "0x%llx", v);
	out_str(o, key, buf);
}

void out_bool(struct out *o, const char *key, bool v)
{
	out_raw(o, key, v ? "true" : "false");
}

void out_begin(struct out *o, enum form form)
{
	*o = (struct out){.form = form, .f = stdout};
	if (form == FORM_JSON)
		fputc('{', o->f);
	out_u64(o, "schema", ENF_OUTPUT_SCHEMA);
	char now[24];
	cli_utc_now(now, sizeof(now));
	out_str(o, "version", PMUGUARD_VERSION);
	out_str(o, "generated_at", now);
}

void out_end(struct out *o)
{
	if (o->form == FORM_JSON)
		fputs("}\n", o->f);
	fflush(o->f);
}

void form_set(enum form *form, enum form want, const char *sub)
{
	if (*form != FORM_TEXT && *form != want)
		die_usage("enforce %s: --json and --keys exclude each other", sub);
	*form = want;
}
