// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The KEY=VALUE documents status reads as data (`enforce status --keys`,
 * `canary`, `probe --keys`): split once, looked up by key or by array row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"

/* --- KEY=VALUE documents ------------------------------------------------- */

void status_kv_parse(struct status_kv *kv, char *text)
{
	kv->text = text;
	kv->len = text ? strlen(text) : 0;
	for (size_t i = 0; i < kv->len; i++)
		if (text[i] == '\n')
			text[i] = '\0';
}

const char *status_kv_get(const struct status_kv *kv, const char *key)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i < kv->len; i += strlen(kv->text + i) + 1) {
		const char *l = kv->text + i;
		if (strncmp(l, key, kl) == 0 && l[kl] == '=')
			return l + kl + 1;
	}
	return NULL;
}

const char *status_kv_row(const struct status_kv *kv, const char *array, unsigned i,
			  const char *field)
{
	char key[256];
	if (field)
		snprintf(key, sizeof(key), "%s.%u.%s", array, i, field);
	else
		snprintf(key, sizeof(key), "%s.%u", array, i);
	return status_kv_get(kv, key);
}

unsigned status_kv_count(const struct status_kv *kv, const char *array)
{
	size_t al = strlen(array);
	unsigned n = 0;
	for (size_t i = 0; i < kv->len; i += strlen(kv->text + i) + 1) {
		const char *l = kv->text + i;
		if (strncmp(l, array, al) != 0 || l[al] != '.')
			continue;
		char *end;
		unsigned long idx = strtoul(l + al + 1, &end, 10);
		if (end != l + al + 1 && (*end == '.' || *end == '=') && idx < 100000 &&
		    idx + 1 > n)
			n = (unsigned)idx + 1;
	}
	return n;
}

void status_kv_list(const struct status_kv *kv, const char *array, char *buf, size_t size)
{
	size_t at = 0;
	buf[0] = '\0';
	unsigned n = status_kv_count(kv, array);
	for (unsigned i = 0; i < n; i++) {
		const char *v = status_kv_row(kv, array, i, NULL);
		int w = snprintf(buf + at, size - at, "%s%s", i ? ", " : "", v ? v : "");
		if (w < 0 || (size_t)w >= size - at)
			return;
		at += (size_t)w;
	}
}

/* A row index as status_kv_row() spells it ("%u": digits, no sign, no
 * leading zero), below n; its length, or 0. */
static size_t row_index(const char *s, unsigned n, unsigned *idx)
{
	size_t d = strspn(s, "0123456789");
	if (!d || (d > 1 && s[0] == '0') || d > 9)
		return 0;
	unsigned long v = strtoul(s, NULL, 10);
	if (v >= n)
		return 0;
	*idx = (unsigned)v;
	return d;
}

void status_kv_rows(const struct status_kv *kv, const char *array, unsigned n,
		    const char *const *fields, unsigned n_fields, const char **out)
{
	size_t al = strlen(array);
	for (size_t i = 0; i < (size_t)n * n_fields; i++)
		out[i] = NULL;
	for (size_t i = 0; i < kv->len; i += strlen(kv->text + i) + 1) {
		const char *l = kv->text + i;
		unsigned idx;
		size_t d;
		if (strncmp(l, array, al) != 0 || l[al] != '.' ||
		    !(d = row_index(l + al + 1, n, &idx)) || l[al + 1 + d] != '.')
			continue;
		const char *f = l + al + 1 + d + 1;
		for (unsigned j = 0; j < n_fields; j++) {
			size_t fl = strlen(fields[j]);
			const char **slot = &out[(size_t)idx * n_fields + j];
			/* The first line of a key is its value, as status_kv_get()'s. */
			if (!*slot && strncmp(f, fields[j], fl) == 0 && f[fl] == '=')
				*slot = f + fl + 1;
		}
	}
}
