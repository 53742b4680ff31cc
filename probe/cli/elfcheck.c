// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ELF analysis with libelf: is the program dynamically linked, does it
 * import syscall() (perf, libperf, libpfm4, bcc, async-profiler reach
 * perf_event_open that way), is it Go (the runtime issues the syscall
 * instruction itself: PerfSpect), is it setuid (the loader ignores
 * LD_PRELOAD there)?
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfcheck.h"

static bool resolve(const char *cmd, char *out, size_t size)
{
	if (strchr(cmd, '/')) {
		snprintf(out, size, "%s", cmd);
		return true;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path; *p;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		if (snprintf(out, size, "%.*s/%s", (int)(len ? len : 1), len ? p : ".", cmd) <
			    (int)size &&
		    access(out, X_OK) == 0)
			return true;
		p += len + (colon ? 1 : 0);
		if (!colon)
			break;
	}
	snprintf(out, size, "%s", cmd);
	return false;
}

static void scan_sections(Elf *e, struct elf_report *r)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, ".go.buildinfo") || !strcmp(name, ".note.go.buildid") ||
			     !strcmp(name, ".gopclntab")))
			r->go = true;
		if (sh.sh_type == SHT_DYNSYM) {
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
			for (size_t i = 0; d && i < n; i++) {
				GElf_Sym sym;
				if (!gelf_getsym(d, (int)i, &sym))
					break;
				const char *sn = elf_strptr(e, sh.sh_link, sym.st_name);
				if (sn && sym.st_shndx == SHN_UNDEF && !strcmp(sn, "syscall"))
					r->imports_syscall = true;
			}
		}
		if (sh.sh_type == SHT_DYNAMIC) {
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
			for (size_t i = 0; d && i < n; i++) {
				GElf_Dyn dyn;
				if (!gelf_getdyn(d, (int)i, &dyn))
					break;
				const char *dn = dyn.d_tag == DT_NEEDED
							 ? elf_strptr(e, sh.sh_link, dyn.d_un.d_val)
							 : NULL;
				if (dn && !strncmp(dn, "libc.so", 7))
					r->libc = true;
			}
		}
	}
}

static void decide(struct elf_report *r)
{
	r->guard = ELF_GUARD_SECCOMP;
	if (r->err)
		snprintf(r->why, sizeof(r->why), "cannot read it (%s)", strerror(r->err));
	else if (r->script)
		snprintf(r->why, sizeof(r->why), "a script for %.120s: what it runs may be static or "
						 "Go, and seccomp covers the whole tree",
			 r->interp);
	else if (!r->elf)
		snprintf(r->why, sizeof(r->why), "not an ELF file");
	else if (r->go)
		snprintf(r->why, sizeof(r->why), "a Go binary: the Go runtime issues the syscall "
						 "instruction itself");
	else if (!r->dynamic)
		snprintf(r->why, sizeof(r->why), "statically linked: LD_PRELOAD does not apply");
	else if (r->setid)
		snprintf(r->why, sizeof(r->why), "setuid/setgid: the loader ignores LD_PRELOAD");
	else if (!r->imports_syscall)
		snprintf(r->why, sizeof(r->why), "dynamically linked but does not import syscall(): "
						 "it may reach the kernel another way");
	else {
		r->guard = ELF_GUARD_PRELOAD;
		snprintf(r->why, sizeof(r->why), "dynamically linked and imports syscall()%s",
			 r->libc ? " from libc" : "");
	}
}

void elf_analyse(const char *cmd, struct elf_report *r)
{
	memset(r, 0, sizeof(*r));
	resolve(cmd, r->path, sizeof(r->path));
	int fd = open(r->path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r->err = fd < 0 ? errno : EINVAL;
		if (fd >= 0)
			close(fd);
		decide(r);
		return;
	}
	r->setid = st.st_mode & (S_ISUID | S_ISGID);
	char head[PATH_MAX];
	ssize_t n = pread(fd, head, sizeof(head) - 1, 0);
	if (n >= 2 && head[0] == '#' && head[1] == '!') {
		head[n] = '\0';
		r->script = true;
		char *s = head + 2;
		s += strspn(s, " \t");
		snprintf(r->interp, sizeof(r->interp), "%.*s", (int)strcspn(s, " \t\n"), s);
		close(fd);
		decide(r);
		return;
	}
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF) {
		r->elf = true;
		r->elfclass = gelf_getclass(e) == ELFCLASS32 ? 32 : 64;
		size_t phnum = 0;
		elf_getphdrnum(e, &phnum);
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP) {
				r->dynamic = true;
				size_t len = ph.p_filesz < sizeof(r->interp) - 1 ? ph.p_filesz
										  : sizeof(r->interp) - 1;
				if (pread(fd, r->interp, len, (off_t)ph.p_offset) == (ssize_t)len)
					r->interp[len] = '\0';
				else
					r->interp[0] = '\0';
			}
		}
		scan_sections(e, r);
	}
	if (e)
		elf_end(e);
	close(fd);
	decide(r);
}
