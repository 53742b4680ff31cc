// SPDX-License-Identifier: GPL-2.0-or-later
/* /etc/pmuguard.conf: the parser and the precedence rules. */
#include <string.h>

#include "conf.h"
#include "fixture.h"

static struct guard_conf parse(const char *const lines[], int n)
{
	struct guard_conf c;
	memset(&c, 0, sizeof(c));
	c.mode = -1;
	for (int i = 0; i < n; i++)
		guard_conf_line(&c, lines[i], strlen(lines[i]), i + 1);
	return c;
}

Test(conf, keys_values_comments)
{
	const char *l[] = {"# pmuguard policy", "", "  mode = always  # strict", "log=syslog",
			   "lock = yes", "\tmode\t=\taudit"};
	struct guard_conf c = parse(l, 6);
	cr_assert_eq(c.mode, GUARD_AUDIT, "the last mode line wins");
	cr_assert_eq(c.dest, GUARD_DEST_SYSLOG);
	cr_assert(c.lock);
	cr_assert_eq(c.bad_lines, 0);
}

Test(conf, snapshot_must_be_absolute)
{
	const char *l[] = {"snapshot = relative/dir", "snapshot = /var/lib/pmuguard/m6i"};
	struct guard_conf c = parse(l, 2);
	cr_assert_eq(c.bad_lines, 1);
	cr_assert_str_eq(c.snapshot, "/var/lib/pmuguard/m6i");
}

Test(conf, garbage_is_counted_and_ignored)
{
	const char *l[] = {"mode = sometimes", "colour = blue", "lock", "= yes", "log = Stderr",
			   "mode = off"};
	struct guard_conf c = parse(l, 6);
	cr_assert_eq(c.bad_lines, 5);
	cr_assert_eq(c.first_bad, 1);
	cr_assert_eq(c.mode, GUARD_OFF);
	cr_assert_eq(c.dest, GUARD_DEST_DEFAULT);
	cr_assert_not(c.lock);
}

Test(conf, missing_file_is_empty_not_an_error)
{
	struct guard_conf c;
	cr_assert_eq(guard_conf_read(&c, "/nonexistent/pmuguard.conf"), 0);
	cr_assert_not(c.present);
	cr_assert_eq(c.mode, -1);
}

Test(conf, precedence_without_lock)
{
	struct guard_conf c = {.mode = GUARD_ALWAYS};
	const char *why;
	cr_assert_eq(guard_conf_mode(&c, NULL, &why), GUARD_ALWAYS);
	cr_assert_eq(guard_conf_mode(&c, "off", &why), GUARD_OFF, "env overrides the file");
	cr_assert_null(why);
	cr_assert_eq(guard_conf_mode(&c, "bogus", &why), GUARD_ALWAYS);
	cr_assert_not_null(why);
	c.mode = -1;
	cr_assert_eq(guard_conf_mode(&c, NULL, &why), GUARD_AUTO, "built-in default");
}

Test(conf, lock_lets_the_environment_only_tighten)
{
	struct guard_conf c = {.mode = GUARD_AUTO, .lock = true};
	const char *why;
	cr_assert_eq(guard_conf_mode(&c, "off", &why), GUARD_AUTO);
	cr_assert(why && strstr(why, "lock"));
	cr_assert_eq(guard_conf_mode(&c, "audit", &why), GUARD_AUTO);
	cr_assert_eq(guard_conf_mode(&c, "always", &why), GUARD_ALWAYS, "stricter is honoured");
	cr_assert_null(why);
	cr_assert_eq(guard_conf_mode(&c, "auto", &why), GUARD_AUTO);
	cr_assert_lt(guard_mode_strictness(GUARD_OFF), guard_mode_strictness(GUARD_AUDIT));
	cr_assert_lt(guard_mode_strictness(GUARD_AUDIT), guard_mode_strictness(GUARD_AUTO));
	cr_assert_lt(guard_mode_strictness(GUARD_AUTO), guard_mode_strictness(GUARD_ALWAYS));
}
