// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What is pinned, read back (see enforce.h): the link at DIR/link, its
 * program, and the program's maps found from it (the rodata it was
 * started with, its totals, its counts, its ring buffer), with the
 * self-test run again on demand; and follow's reading of that ring buffer
 * until the pin goes away or another start replaces it.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "enforce.h"
#include "enforce_loader.h"

/* Read one map's value at key 0 when its name ends in suffix and its
 * value has the size we know. */
static bool read_section(int fd, const struct bpf_map_info *mi, const char *suffix, void *out,
			 size_t size)
{
	size_t nl = strlen(mi->name), sl = strlen(suffix);
	if (nl < sl || strcmp(mi->name + nl - sl, suffix) || mi->value_size != size)
		return false;
	__u32 key = 0;
	return bpf_map_lookup_elem(fd, &key, out) == 0;
}

static void read_counts(int fd, struct enf_status *st)
{
	struct pmug_enf_key key, next;
	void *prev = NULL;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		struct pmug_enf_count val;
		if (bpf_map_lookup_elem(fd, &key, &val) < 0)
			continue;
		st->n_counts_total++;
		if (st->n_counts < sizeof(st->counts) / sizeof(st->counts[0]))
			st->counts[st->n_counts++] = (struct enf_count){key, val};
	}
}

/* The self-test of the pinned program: its .bss read through bss_fd
 * before and after the canary. */
static void verify_pinned(int bss_fd, const struct pmug_enf_config *cfg, unsigned attach,
			  struct enf_verify *v)
{
	memset(v, 0, sizeof(*v));
	struct pmug_enf_totals t0, t1;
	__u32 key = 0;
	bool counted = bss_fd >= 0 && bpf_map_lookup_elem(bss_fd, &key, &t0) == 0;
	int ret = enf_canary_open(cfg->canary);
	counted = counted && bpf_map_lookup_elem(bss_fd, &key, &t1) == 0;
	v->at = time(NULL);
	enf_verify_judge(v, ret, counted, counted ? t0.canaries : 0, counted ? t1.canaries : 0,
			 attach);
}

int enf_status_read(const char *pin_dir, struct enf_status *st, unsigned flags)
{
	bool keep_events = flags & ENF_STATUS_EVENTS;
	int bss_fd = -1;
	memset(st, 0, sizeof(*st));
	st->events_fd = -1;
	char link_path[PATH_MAX];
	if (!join(link_path, sizeof(link_path), pin_dir, "link")) {
		why(st->why, sizeof(st->why), "%s: path too long", pin_dir);
		return -ENAMETOOLONG;
	}
	libbpf_print_fn_t old_print = enf_libbpf_quiet();
	int link_fd = bpf_obj_get(link_path);
	libbpf_set_print(old_print);
	if (link_fd < 0) {
		int err = errno;
		if (err == ENOENT) {
			why(st->why, sizeof(st->why), "nothing is pinned at %s", link_path);
			return 0;
		}
		why(st->why, sizeof(st->why), "%s: %s", link_path, strerror(err));
		return -err;
	}
	struct bpf_link_info li;
	memset(&li, 0, sizeof(li));
	__u32 len = sizeof(li);
	int err = 0, prog_fd = -1;
	if (bpf_obj_get_info_by_fd(link_fd, &li, &len) < 0) {
		err = -errno;
		why(st->why, sizeof(st->why), "%s: cannot read the link: %s", link_path,
		    strerror(errno));
		goto out;
	}
	st->link_id = li.id;
	st->prog_id = li.prog_id;
	if (li.type == BPF_LINK_TYPE_TRACING)
		st->attach = li.tracing.attach_type == BPF_LSM_MAC ? PMUG_ENF_ATTACH_LSM
			     : li.tracing.attach_type == BPF_MODIFY_RETURN
				     ? PMUG_ENF_ATTACH_FMOD_RET
				     : PMUG_ENF_ATTACH_NONE;
	prog_fd = bpf_prog_get_fd_by_id(li.prog_id);
	if (prog_fd < 0) {
		err = -errno;
		why(st->why, sizeof(st->why), "program %u: %s", li.prog_id, strerror(errno));
		goto out;
	}
	__u32 map_ids[16];
	struct bpf_prog_info pi;
	memset(&pi, 0, sizeof(pi));
	pi.nr_map_ids = sizeof(map_ids) / sizeof(map_ids[0]);
	pi.map_ids = (__u64)(unsigned long)map_ids;
	len = sizeof(pi);
	if (bpf_obj_get_info_by_fd(prog_fd, &pi, &len) < 0) {
		err = -errno;
		why(st->why, sizeof(st->why), "program %u: %s", li.prog_id, strerror(errno));
		goto out;
	}
	st->run_cnt = pi.run_cnt;
	st->run_time_ns = pi.run_time_ns;
	st->xlated_insns = pi.xlated_prog_len / 8; /* sizeof(struct bpf_insn) */
	st->jited_bytes = pi.jited_prog_len;
	bool cfg_ok = false;
	unsigned n = pi.nr_map_ids < 16 ? pi.nr_map_ids : 16;
	for (unsigned i = 0; i < n; i++) {
		int mfd = bpf_map_get_fd_by_id(map_ids[i]);
		if (mfd < 0)
			continue;
		struct bpf_map_info mi;
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		if (bpf_obj_get_info_by_fd(mfd, &mi, &len) < 0) {
			close(mfd);
			continue;
		}
		if (read_section(mfd, &mi, ".rodata", &st->cfg, sizeof(st->cfg))) {
			cfg_ok = st->cfg.magic == PMUG_ENF_MAGIC &&
				 st->cfg.version == PMUG_ENF_VERSION;
			/* Our loader wrote them NUL-terminated; trust no more. */
			st->cfg.reason[sizeof(st->cfg.reason) - 1] = '\0';
			st->cfg.facts_from[sizeof(st->cfg.facts_from) - 1] = '\0';
		} else if (read_section(mfd, &mi, ".bss", &st->totals, sizeof(st->totals))) {
			if (bss_fd < 0 && (flags & ENF_STATUS_VERIFY)) {
				bss_fd = mfd;
				continue;
			}
		} else if (!strcmp(mi.name, "counts"))
			read_counts(mfd, st);
		else if (!strcmp(mi.name, "events") && mi.type == BPF_MAP_TYPE_RINGBUF &&
			 keep_events && st->events_fd < 0) {
			st->events_fd = mfd;
			continue;
		}
		close(mfd);
	}
	if (!cfg_ok) {
		err = -EPROTO;
		why(st->why, sizeof(st->why),
		    "%s holds program %u, which is not one this pmuguard can read (another "
		    "version?)",
		    link_path, li.prog_id);
		goto out;
	}
	st->attached = true;
	if (flags & ENF_STATUS_VERIFY)
		verify_pinned(bss_fd, &st->cfg, st->attach, &st->verify);
out:
	if (bss_fd >= 0)
		close(bss_fd);
	if (prog_fd >= 0)
		close(prog_fd);
	close(link_fd);
	if (err && st->events_fd >= 0) {
		close(st->events_fd);
		st->events_fd = -1;
	}
	return err;
}

struct follow_ctx {
	enf_event_fn fn;
	void *ctx;
};

static int on_record(void *ctx, void *data, size_t size)
{
	struct follow_ctx *f = ctx;
	if (size >= sizeof(struct pmug_enf_event))
		f->fn(f->ctx, data);
	return 0;
}

/* The id of the link pinned at link_path: 0 when nothing is pinned there,
 * UINT32_MAX when it cannot be read just now. */
static uint32_t pinned_link_id(const char *link_path)
{
	int fd = bpf_obj_get(link_path);
	if (fd < 0)
		return errno == ENOENT ? 0 : UINT32_MAX;
	struct bpf_link_info li;
	__u32 len = sizeof(li);
	memset(&li, 0, sizeof(li));
	uint32_t id = bpf_obj_get_info_by_fd(fd, &li, &len) == 0 ? li.id : UINT32_MAX;
	close(fd);
	return id;
}

int enf_follow(int events_fd, uint32_t link_id, const char *pin_dir, enf_event_fn fn, void *ctx,
	       bool (*stop)(void *ctx))
{
	char link_path[PATH_MAX];
	if (!join(link_path, sizeof(link_path), pin_dir, "link"))
		return -ENAMETOOLONG;
	struct follow_ctx f = {fn, ctx};
	enf_libbpf_quiet();
	struct ring_buffer *rb = ring_buffer__new(events_fd, on_record, &f, NULL);
	if (!rb)
		return errno ? -errno : -EINVAL;
	int err = 0;
	while (!stop(ctx)) {
		int n = ring_buffer__poll(rb, 1000);
		if (n < 0 && n != -EINTR) {
			err = n;
			break;
		}
		/* Stopped (unpinned), or replaced by a start with another
		 * policy (a new link renamed over the pin): this ring buffer
		 * gets nothing more.  Drain what is left and end. */
		uint32_t now = pinned_link_id(link_path);
		if (now == 0 || (now != UINT32_MAX && now != link_id)) {
			ring_buffer__consume(rb);
			err = now == 0 ? -ENOENT : -ESTALE;
			break;
		}
	}
	ring_buffer__free(rb);
	return err;
}
