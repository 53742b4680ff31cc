// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * maps-flood DIR COUNT READY: a process whose /proc/PID/maps is huge, as
 * any user can make one (tests/cli/procs.sh).  Under DIR it makes a file
 * at the end of a chain of directories with long names (a path of about
 * 3,900 bytes), maps its first page COUNT times, then creates READY and
 * waits to be killed.  Every mapping is a line of the maps file: the
 * kernel merges two neighbours only where their file offsets are
 * consecutive and their protections equal (mm/vma.c,
 * can_vma_merge_before/after), and here every offset is 0 and the
 * protections alternate.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: maps-flood DIR COUNT READY\n");
		return 2;
	}
	long count = strtol(argv[2], NULL, 10);
	char name[241];
	memset(name, 'd', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	int dir = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* 15 directories and the file, 240 bytes each: within PATH_MAX, so
	 * the path is opened plainly and printed whole (fs/d_path.c). */
	for (int i = 0; dir >= 0 && i < 15; i++) {
		if (mkdirat(dir, name, 0755) != 0) {
			perror("mkdirat");
			return 1;
		}
		int next = openat(dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(dir);
		dir = next;
	}
	int fd = dir >= 0 ? openat(dir, name, O_RDWR | O_CREAT | O_CLOEXEC, 0644) : -1;
	if (fd < 0 || ftruncate(fd, 4096) != 0) {
		perror("maps-flood: the file");
		return 1;
	}
	for (long i = 0; i < count; i++) {
		if (mmap(NULL, 4096, i % 2 ? PROT_READ : PROT_NONE, MAP_PRIVATE, fd, 0) ==
		    MAP_FAILED) {
			perror("mmap");
			return 1;
		}
	}
	int r = open(argv[3], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (r < 0) {
		perror(argv[3]);
		return 1;
	}
	close(r);
	for (;;)
		pause();
}
