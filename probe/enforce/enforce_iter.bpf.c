// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The perf events that already exist: a BPF iterator over every task's
 * files (iter/task_file, 5.8+; kernel/bpf/task_iter.c) that writes one
 * struct pmug_enf_file per perf event file it meets.  `enforce start` (after
 * the guard is attached) and `enforce status` read it through
 * bpf_iter_create() (probe/enforce/enforce.c) and judge each record in user space
 * with the attached program's rule (enforce_abi.h: pmug_enf_classify).
 *
 * Why.  The guard judges an event in security_perf_event_alloc(), once, when
 * it is allocated.  An event opened disabled before the start (perf stat -D,
 * PAPI, a profiling daemon) and enabled after it reaches counter 3 without
 * passing the hook again.  Nothing can take it back from its owner; what
 * pmuguard can do is name it.
 *
 * Which files are perf events.  perf_event_open() makes its file with
 * anon_inode_getfile("[perf_event]", &perf_fops, event, f_flags)
 * (kernel/events/core.c; anon_inode_getfile_fmode in newer kernels, the same
 * name), so the file's inode is on anon_inodefs (ANON_INODE_FS_MAGIC,
 * fs/anon_inodes.c) and its dentry is named "[perf_event]"; private_data is
 * the struct perf_event.  User space cannot create a file on anon_inodefs,
 * and no other kernel user takes that name.  Comparing f_op with perf_fops
 * would be exact too, but perf_fops is static: 6.1's BTF has no VAR for it
 * (pahole encodes only per-CPU variables), so a typed __ksym cannot resolve,
 * and an untyped one comes from /proc/kallsyms, which reads as zeros under
 * kptr_restrict=2: every comparison would then fail and the answer would be
 * a silent "none".
 *
 * What is read.  Only the fields below, declared by hand with
 * preserve_access_index, as enforce.bpf.c does (no vmlinux.h): libbpf
 * relocates each against the running kernel's BTF (CO-RE).  private_data is
 * a void *, so the event's fields are read with BPF_CORE_READ (probe reads),
 * which a freed or foreign pointer cannot turn into a fault.
 *
 * The iterator visits each thread group's file table once where the kernel
 * skips threads that share it (skip_if_dup_files); user space keeps one
 * record per (tgid, fd) either way.  Child events (inherit) have no file:
 * they live in the child's context until the parent's file is closed
 * (perf_event_release_kernel frees them), so the parent's record speaks for
 * them.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/magic.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "enforce_abi.h"
#include "enforce_kernel.bpf.h"

struct seq_file;

struct bpf_iter_meta {
	struct seq_file *seq;
} __attribute__((preserve_access_index));

struct task_struct {
	int tgid;
	char comm[16];
} __attribute__((preserve_access_index));

struct super_block {
	unsigned long s_magic;
} __attribute__((preserve_access_index));

struct inode {
	struct super_block *i_sb;
} __attribute__((preserve_access_index));

struct qstr {
	const unsigned char *name;
} __attribute__((preserve_access_index));

struct dentry {
	struct qstr d_name;
} __attribute__((preserve_access_index));

struct path {
	struct dentry *dentry;
} __attribute__((preserve_access_index));

struct file {
	struct path f_path;
	struct inode *f_inode;
	void *private_data;
} __attribute__((preserve_access_index));

struct perf_event_attr {
	__u32 type;
	__u64 config;
	__u64 disabled : 1, inherit : 1;
} __attribute__((preserve_access_index));

/* include/linux/perf_event.h; the values are the running kernel's (CO-RE). */
enum perf_event_state {
	PERF_EVENT_STATE_DEAD = -4,
	PERF_EVENT_STATE_EXIT = -3,
	PERF_EVENT_STATE_ERROR = -2,
	PERF_EVENT_STATE_OFF = -1,
	PERF_EVENT_STATE_INACTIVE = 0,
	PERF_EVENT_STATE_ACTIVE = 1,
	PERF_EVENT_STATE_REVOKED = -5, /* 6.15+; may be missing */
};

struct perf_event {
	struct pmu *pmu;
	enum perf_event_state state;
	struct perf_event_attr attr;
	struct hw_perf_event hw;
	__u64 id;
} __attribute__((preserve_access_index));

/* The context (kernel/bpf/task_iter.c): each member is __bpf_md_ptr or
 * __aligned(8), so the layout is fixed; the verifier checks it by offset. */
struct bpf_iter__task_file {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
	__u32 fd;
	struct file *file;
};

/* The kernel's value of one enumerator (its BTF, by name), as an int. */
#define STATE(name) ((int)bpf_core_enum_value(enum perf_event_state, PERF_EVENT_STATE_##name))

static __always_inline unsigned state_of(int s)
{
	if (s == STATE(ACTIVE))
		return PMUG_ENF_STATE_ACTIVE;
	if (s == STATE(INACTIVE))
		return PMUG_ENF_STATE_INACTIVE;
	if (s == STATE(OFF))
		return PMUG_ENF_STATE_OFF;
	if (s == STATE(ERROR))
		return PMUG_ENF_STATE_ERROR;
	if (s == STATE(EXIT))
		return PMUG_ENF_STATE_EXIT;
	if (s == STATE(DEAD))
		return PMUG_ENF_STATE_DEAD;
	if (bpf_core_enum_value_exists(enum perf_event_state, PERF_EVENT_STATE_REVOKED) &&
	    s == STATE(REVOKED))
		return PMUG_ENF_STATE_DEAD;
	return PMUG_ENF_STATE_UNKNOWN;
}

/* "[perf_event]": the name perf_event_open() gives its anon inode file. */
static __always_inline int is_perf_event_file(struct file *file)
{
	if (BPF_CORE_READ(file, f_inode, i_sb, s_magic) != ANON_INODE_FS_MAGIC)
		return 0;
	static const char want[] = "[perf_event]";
	/* One byte more than the name with its NUL: a longer name fills it
	 * (and reads back longer), a shorter one reads back shorter. */
	char name[sizeof(want) + 1];
	const unsigned char *p = BPF_CORE_READ(file, f_path.dentry, d_name.name);
	if (bpf_probe_read_kernel_str(name, sizeof(name), p) != (long)sizeof(want))
		return 0;
	for (unsigned i = 0; i < sizeof(want); i++)
		if (name[i] != want[i])
			return 0;
	return 1;
}

SEC("iter/task_file")
int pmug_perf_files(struct bpf_iter__task_file *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct file *file = ctx->file;
	/* The last call (in_stop) has neither. */
	if (!task || !file || !is_perf_event_file(file))
		return 0;
	struct perf_event *ev = BPF_CORE_READ(file, private_data);
	if (!ev)
		return 0;
	struct pmug_enf_file r;
	__builtin_memset(&r, 0, sizeof(r));
	r.id = BPF_CORE_READ(ev, id);
	r.attr_config = BPF_CORE_READ(ev, attr.config);
	r.hw_config = BPF_CORE_READ(ev, hw.config);
	r.tgid = (__u32)BPF_CORE_READ(task, tgid);
	r.fd = ctx->fd;
	r.attr_type = BPF_CORE_READ(ev, attr.type);
	struct pmu *pmu = BPF_CORE_READ(ev, pmu);
	r.pmu_type = pmu ? (__u32)BPF_CORE_READ(pmu, type) : PMUG_ENF_NO_PMU;
	r.state = state_of((int)BPF_CORE_READ(ev, state));
	struct perf_event_attr *attr = &ev->attr;
	r.inherit = (__u32)BPF_CORE_READ_BITFIELD_PROBED(attr, inherit);
	BPF_CORE_READ_STR_INTO(&r.comm, task, comm);
	bpf_seq_write(seq, &r, sizeof(r));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
