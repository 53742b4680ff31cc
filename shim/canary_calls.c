// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmuguard-canary: the canary's calls, made where the preload meets them.
 * The pmuguard command is one static binary (-Dportable=true), into which
 * no loader preloads anything; `pmuguard canary` runs this program, which
 * the host's own loader starts as it starts every dynamically linked
 * process (/etc/ld.so.preload, LD_PRELOAD), to make the calls:
 *
 *   pmuguard-canary GROUP MARK TYPE:CONFIG...
 *
 * Each is perf_event_open(attr{type, config, config1 = MARK}, 0, -1, GROUP,
 * 0) through libc's syscall() (the preloaded library's where it is
 * loaded); one line a call, "RESULT ERRNO", after "mapped=1" or "mapped=0"
 * (the library is in this process's maps).  Exit 0, 2 on usage.
 *
 * It binds only libc's first versions of syscall, __errno_location, open,
 * read, write, close and _exit (GLIBC_2.2.5 on x86_64, 2.17 on arm64) and
 * has its own _start (canary_start.S), so it runs under every glibc.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* perf_event_attr's first 64 bytes (PERF_ATTR_SIZE_VER0), as cmd_canary.c. */
struct canary_attr {
	uint32_t type, size;
	uint64_t config, sample_period, sample_type, read_format, flags, wakeup_bp, config1;
};

_Noreturn void canary_main(long *sp);

static int parse(const char *s, uint64_t *v, char end)
{
	uint64_t x = 0;
	int base = 10, any = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2;
	for (; *s && *s != end; s++, any = 1) {
		int d = *s >= '0' && *s <= '9'   ? *s - '0'
			: *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
			: *s >= 'A' && *s <= 'F' ? *s - 'A' + 10
						 : 99;
		if (d >= base)
			return -1;
		x = x * (uint64_t)base + (uint64_t)d;
	}
	*v = x;
	return any && *s == end ? 0 : -1;
}

static void put(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	while (n) {
		ssize_t w = write(1, s, n);
		if (w <= 0)
			_exit(1);
		s += w, n -= (size_t)w;
	}
}

static void put_num(long v)
{
	char b[24], *p = b + sizeof(b);
	unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;
	*--p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	put(p);
}

/* Is "/libpmuguard.so" in this process's maps? */
static int mapped(void)
{
	static const char want[] = "/libpmuguard.so";
	char buf[4096];
	size_t keep = 0, wl = sizeof(want) - 1;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), found = 0;
	ssize_t n;
	while (fd >= 0 && !found && (n = read(fd, buf + keep, sizeof(buf) - keep)) > 0) {
		size_t len = keep + (size_t)n;
		for (size_t i = 0; !found && i + wl <= len; i++) {
			size_t j = 0;
			while (j < wl && buf[i + j] == want[j])
				j++;
			found = j == wl;
		}
		/* The last wl - 1 bytes may start a match across reads. */
		keep = len < wl - 1 ? len : wl - 1;
		for (size_t i = 0; i < keep; i++)
			buf[i] = buf[len - keep + i];
	}
	if (fd >= 0)
		close(fd);
	return found;
}

_Noreturn void canary_main(long *sp)
{
	long argc = sp[0];
	char **argv = (char **)(sp + 1);
	uint64_t group, mark;
	int neg = argc >= 2 && argv[1][0] == '-';
	if (argc < 3 || parse(argv[1] + neg, &group, '\0') || parse(argv[2], &mark, '\0')) {
		put("usage: pmuguard-canary GROUP MARK TYPE:CONFIG...\n");
		_exit(2);
	}
	put(mapped() ? "mapped=1\n" : "mapped=0\n");
	for (long i = 3; i < argc; i++) {
		uint64_t type, config;
		const char *colon = argv[i];
		while (*colon && *colon != ':')
			colon++;
		if (parse(argv[i], &type, ':') || !*colon || parse(colon + 1, &config, '\0'))
			_exit(2);
		struct canary_attr a = {.type = (uint32_t)type,
					.size = sizeof(a),
					.config = config,
					.flags = 1 | 1u << 5 | 1u << 6,
					.config1 = mark};
		errno = 0;
		long g = neg ? -(long)group : (long)group;
		long r = syscall(SYS_perf_event_open, &a, 0L, -1L, g, 0L);
		int e = r < 0 ? errno : 0;
		if (r >= 0)
			close((int)r); /* never: the group cannot exist */
		put_num(r);
		put(" ");
		put_num(e);
		put("\n");
	}
	_exit(0);
}
