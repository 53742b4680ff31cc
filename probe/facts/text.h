/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bounded text scanning: every helper stops at t->end, nothing needs a NUL. */
#ifndef PMUGUARD_TEXT_H
#define PMUGUARD_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct text {
	const char *p, *end;
};

static inline void text_skip_space(struct text *t)
{
	while (t->p < t->end && (*t->p == ' ' || *t->p == '\t' || *t->p == '\r'))
		t->p++;
}

/* Consume the literal s if it is next. */
static inline bool text_lit(struct text *t, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(t->end - t->p) < n || memcmp(t->p, s, n) != 0)
		return false;
	t->p += n;
	return true;
}

static inline int text_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex number, "0x" optional, at most max_digits significant digits. */
static inline bool text_hex(struct text *t, uint64_t *out, int max_digits)
{
	const char *p = t->p;
	if (t->end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	uint64_t v = 0;
	int n = 0, sig = 0;
	while (p < t->end && text_hexval(*p) >= 0) {
		if (v != 0 || *p != '0')
			sig++;
		if (sig > max_digits)
			return false;
		v = (v << 4) | (uint64_t)text_hexval(*p);
		p++;
		n++;
	}
	if (n == 0)
		return false;
	t->p = p;
	*out = v;
	return true;
}

/* Decimal number below limit. */
static inline bool text_dec(struct text *t, uint64_t *out, uint64_t limit)
{
	const char *p = t->p;
	uint64_t v = 0;
	if (p >= t->end || *p < '0' || *p > '9')
		return false;
	while (p < t->end && *p >= '0' && *p <= '9') {
		uint64_t d = (uint64_t)(*p - '0');
		if (v > (limit - d) / 10) /* v * 10 + d would reach limit (or wrap) */
			return false;
		v = v * 10 + d;
		if (v >= limit)
			return false;
		p++;
	}
	t->p = p;
	*out = v;
	return true;
}

/* Find needle in [p, end); returns a pointer just past it, or NULL. */
static inline const char *text_find(const char *p, const char *end, const char *needle)
{
	size_t n = strlen(needle);
	for (; (size_t)(end - p) >= n; p++)
		if (memcmp(p, needle, n) == 0)
			return p + n;
	return NULL;
}

#endif
