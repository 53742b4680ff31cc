// SPDX-License-Identifier: GPL-2.0-or-later
/* The command's one time formatter: every time it prints, in UTC. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "doc.h"

bool doc_time_utc(char *buf, size_t size, time_t t, enum doc_time form)
{
	struct tm tm;
	if (!size)
		return false;
	if (gmtime_r(&t, &tm) &&
	    strftime(buf, size,
		     form == DOC_TIME_TEXT ? "%Y-%m-%d %H:%M:%S UTC" : "%Y-%m-%dT%H:%M:%SZ", &tm))
		return true;
	snprintf(buf, size, "?");
	return false;
}

void doc_utc_now(char *buf, size_t size)
{
	time_t t = time(NULL);
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	if (sde && *sde) {
		char *end;
		errno = 0;
		long long v = strtoll(sde, &end, 10);
		if (!*end && !errno && v >= 0)
			t = (time_t)v;
	}
	if (!doc_time_utc(buf, size, t, DOC_TIME_ISO) && size)
		buf[0] = '\0';
}
