// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "classify.h"
#include "conf.h"

static void trim(const char **s, const char **e)
{
	while (*s < *e && (**s == ' ' || **s == '\t' || **s == '\r'))
		(*s)++;
	while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r'))
		(*e)--;
}

static bool is(const char *s, const char *e, const char *word)
{
	size_t n = strlen(word);
	return (size_t)(e - s) == n && memcmp(s, word, n) == 0;
}

void guard_conf_line(struct guard_conf *c, const char *line, size_t len, int lineno)
{
	const char *s = line, *e = line + len;
	const char *hash = memchr(s, '#', len);
	if (hash)
		e = hash;
	trim(&s, &e);
	if (s == e)
		return;
	const char *eq = memchr(s, '=', (size_t)(e - s));
	bool ok = false;
	if (eq) {
		const char *ks = s, *ke = eq, *vs = eq + 1, *ve = e;
		trim(&ks, &ke);
		trim(&vs, &ve);
		if (is(ks, ke, "mode")) {
			int m = guard_mode_parse_n(vs, (size_t)(ve - vs));
			if ((ok = m >= 0))
				c->mode = m;
		} else if (is(ks, ke, "log")) {
			if ((ok = is(vs, ve, "syslog")))
				c->dest = GUARD_DEST_SYSLOG;
			else if ((ok = is(vs, ve, "stderr")))
				c->dest = GUARD_DEST_STDERR;
			else if ((ok = is(vs, ve, "quiet")))
				c->dest = GUARD_DEST_QUIET;
		} else if (is(ks, ke, "snapshot")) {
			size_t n = (size_t)(ve - vs);
			if ((ok = n > 0 && n < sizeof(c->snapshot) && *vs == '/')) {
				memcpy(c->snapshot, vs, n);
				c->snapshot[n] = '\0';
			}
		} else if (is(ks, ke, "slots")) {
			if ((ok = is(vs, ve, "deny")))
				c->slots = GUARD_SLOTS_DENY;
			else if ((ok = is(vs, ve, "substitute")))
				c->slots = GUARD_SLOTS_SUBSTITUTE;
		} else if (is(ks, ke, "lock")) {
			if ((ok = is(vs, ve, "yes")))
				c->lock = true;
			else if ((ok = is(vs, ve, "no")))
				c->lock = false;
		}
	}
	if (!ok && c->bad_lines++ == 0)
		c->first_bad = lineno;
}

struct conf_ctx {
	struct guard_conf *c;
	int lineno;
};

static int conf_cb(void *p, const char *line, size_t len)
{
	struct conf_ctx *x = p;
	guard_conf_line(x->c, line, len, ++x->lineno);
	return 0;
}

int guard_conf_read(struct guard_conf *c, const char *path)
{
	memset(c, 0, sizeof(*c));
	c->mode = -1;
	c->slots = -1;
	struct conf_ctx x = {c, 0};
	int rc = probe_read_lines(path, conf_cb, &x);
	if (rc == 0)
		c->present = true;
	return rc == -ENOENT ? 0 : rc;
}
