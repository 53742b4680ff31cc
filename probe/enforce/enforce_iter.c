// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The perf events that existed before the guard (see enforce.h): the
 * task_file iterator of enforce_iter.bpf.c, loaded only for as long as it
 * is read, its records judged by the pure part (enf_existing_judge(),
 * enforce_config.c) with the attached program's rule.  Nothing of it
 * stays loaded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "enforce.h"
#include "enforce_iter.skel.h"
#include "enforce_loader.h"

/* Read an iterator's whole output.  0 with *buf (malloc'd, the caller
 * frees) and *len, or -errno. */
static int read_iter(int fd, char **buf, size_t *len)
{
	size_t cap = 64 * 1024, n = 0;
	char *b = malloc(cap);
	if (!b)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			/* 64 bytes per perf event file: 16 MiB is 262144 of them. */
			if (cap >= 16u << 20) {
				free(b);
				return -EFBIG;
			}
			char *nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0) {
			int err = -errno;
			free(b);
			return err;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* security/lockdown/lockdown.c: confidentiality withholds
 * bpf_probe_read_kernel (LOCKDOWN_BPF_READ_KERNEL), which the iterator
 * needs to read an event through its file; the guard itself does not. */
static bool lockdown_confidential(void)
{
	char buf[128];
	return probe_read_small("/sys/kernel/security/lockdown", buf, sizeof(buf)) > 0 &&
	       strstr(buf, "[confidentiality]");
}

int enf_existing_read(struct enf_existing *ex, const struct pmug_enf_config *cfg)
{
	memset(ex, 0, sizeof(*ex));
	char log[1024];
	enf_libbpf_capture(log, sizeof(log));
	struct bpf_link *link = NULL;
	int iter_fd = -1, err = 0;
	char *buf = NULL, *vlog = NULL;
	size_t len = 0;
	struct pmug_enforce_iter *skel = pmug_enforce_iter__open();
	if (!skel) {
		err = errno ? -errno : -EINVAL;
		why(ex->why, sizeof(ex->why), "cannot open the embedded iterator: %s",
		    strerror(-err));
		goto out;
	}
	/* The verifier's words, should it refuse, in a buffer of their own:
	 * libbpf's messages are kept 512 bytes at a time. */
	const size_t vlog_size = 64 * 1024;
	vlog = calloc(1, vlog_size);
	if (vlog)
		bpf_program__set_log_buf(skel->progs.pmug_perf_files, vlog, vlog_size);
	err = pmug_enforce_iter__load(skel);
	if (err) {
		err = err < 0 ? err : -EINVAL;
		char said[160];
		enf_libbpf_load_reason(log, vlog ? vlog : "", said, sizeof(said));
		why(ex->why, sizeof(ex->why),
		    "the kernel refused the task_file iterator: %s%s%s%s%s", strerror(-err),
		    said[0] ? " (" : "", said, said[0] ? ")" : "",
		    lockdown_confidential() ? "; kernel lockdown is confidentiality, which keeps "
					      "BPF from reading kernel memory"
					    : "");
		goto out;
	}
	link = bpf_program__attach_iter(skel->progs.pmug_perf_files, NULL);
	if (!link) {
		err = errno ? -errno : -EINVAL;
		why(ex->why, sizeof(ex->why), "cannot attach the task_file iterator: %s",
		    strerror(-err));
		goto out;
	}
	iter_fd = bpf_iter_create(bpf_link__fd(link));
	if (iter_fd < 0) {
		err = -errno;
		why(ex->why, sizeof(ex->why), "cannot create the task_file iterator: %s",
		    strerror(-err));
		goto out;
	}
	err = read_iter(iter_fd, &buf, &len);
	if (err) {
		why(ex->why, sizeof(ex->why), "reading the task_file iterator: %s", strerror(-err));
		goto out;
	}
	err = enf_existing_judge(ex, cfg, buf, len);
out:
	free(buf);
	if (iter_fd >= 0)
		close(iter_fd);
	bpf_link__destroy(link);
	pmug_enforce_iter__destroy(skel); /* unloads it: nothing of it stays */
	free(vlog);
	enf_libbpf_capture(NULL, 0);
	if (err)
		ex->known = false;
	return err;
}
