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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfcheck.h"

/*
 * Open path for reading only if it is a regular file.  open(2) on a FIFO
 * waits for a writer and on some devices has side effects, so the type is
 * checked with stat first and the open is non-blocking; fstat then checks
 * that what was opened is the file that was looked at.  Returns the fd, or
 * -1 with errno set, or -1 with errno 0 and problem filled.
 */
static int open_regular(const char *path, struct stat *st, char *problem, size_t size)
{
	struct stat pre;
	if (stat(path, &pre) < 0)
		return -1;
	if (!S_ISREG(pre.st_mode)) {
		snprintf(problem, size, "not a regular file (%s)",
			 S_ISFIFO(pre.st_mode)                          ? "a FIFO"
			 : S_ISDIR(pre.st_mode)                         ? "a directory"
			 : S_ISCHR(pre.st_mode) || S_ISBLK(pre.st_mode) ? "a device"
			 : S_ISSOCK(pre.st_mode)                        ? "a socket"
									: "not a file");
		errno = 0;
		return -1;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st->st_mode) || st->st_dev != pre.st_dev || st->st_ino != pre.st_ino) {
		close(fd);
		snprintf(problem, size, "replaced while it was being opened");
		errno = 0;
		return -1;
	}
	return fd;
}

/* Does [off, off+len) lie inside a file of size bytes? */
static bool inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/*
 * A truncated or corrupt ELF: program headers, section headers or the
 * contents of a segment or section lie beyond the end of the file, or libelf
 * cannot read them.  The kernel would refuse to exec it (or map zeros past
 * the end), and nothing read from it could be trusted.  Returns true and
 * fills problem when it is so.
 */
static bool elf_broken(Elf *e, uint64_t fsize, char *problem, size_t size)
{
	GElf_Ehdr eh;
	size_t phnum = 0, shnum = 0;
	if (!gelf_getehdr(e, &eh) || elf_getphdrnum(e, &phnum) != 0 ||
	    elf_getshdrnum(e, &shnum) != 0) {
		snprintf(problem, size, "a corrupt ELF file (%s)", elf_errmsg(-1));
		return true;
	}
	/* elfutils clamps the counts to what fits in the file; the header's
	 * own counts are what the kernel and the loader believe (PN_XNUM and a
	 * zero e_shnum defer to section 0, which libelf then reads). */
	uint64_t ph_count = eh.e_phnum == PN_XNUM ? phnum : eh.e_phnum;
	uint64_t sh_count = eh.e_shnum == 0 && eh.e_shoff ? shnum : eh.e_shnum;
	if (ph_count && !inside(eh.e_phoff, ph_count * eh.e_phentsize, fsize))
		goto truncated;
	if (sh_count && !inside(eh.e_shoff, sh_count * eh.e_shentsize, fsize))
		goto truncated;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph)) {
			snprintf(problem, size, "a corrupt ELF file (%s)", elf_errmsg(-1));
			return true;
		}
		if (ph.p_type != PT_NULL && !inside(ph.p_offset, ph.p_filesz, fsize))
			goto truncated;
	}
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh)) {
			snprintf(problem, size, "a corrupt ELF file (%s)", elf_errmsg(-1));
			return true;
		}
		if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL &&
		    !inside(sh.sh_offset, sh.sh_size, fsize))
			goto truncated;
	}
	return false;
truncated:
	snprintf(problem, size, "a truncated ELF file (its headers point past its %llu bytes)",
		 (unsigned long long)fsize);
	return true;
}

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
	else if (r->problem[0])
		snprintf(r->why, sizeof(r->why), "%s", r->problem);
	else if (r->script)
		snprintf(r->why, sizeof(r->why),
			 "a script for %.120s: what it runs may be static or "
			 "Go, and seccomp covers the whole tree",
			 r->interp);
	else if (!r->elf)
		snprintf(r->why, sizeof(r->why), "not an ELF file");
	else if (r->go)
		snprintf(r->why, sizeof(r->why),
			 "a Go binary: the Go runtime issues the syscall "
			 "instruction itself");
	else if (!r->dynamic)
		snprintf(r->why, sizeof(r->why), "statically linked: LD_PRELOAD does not apply");
	else if (r->setid)
		snprintf(r->why, sizeof(r->why), "setuid/setgid: the loader ignores LD_PRELOAD");
	else if (!r->imports_syscall)
		snprintf(r->why, sizeof(r->why),
			 "dynamically linked but does not import syscall(): "
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
	struct stat st;
	int fd = open_regular(r->path, &st, r->problem, sizeof(r->problem));
	if (fd < 0) {
		r->err = errno;
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
	if (e && elf_kind(e) == ELF_K_ELF &&
	    !elf_broken(e, (uint64_t)st.st_size, r->problem, sizeof(r->problem))) {
		r->elf = true;
		r->elfclass = gelf_getclass(e) == ELFCLASS32 ? 32 : 64;
		size_t phnum = 0;
		elf_getphdrnum(e, &phnum);
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP) {
				r->dynamic = true;
				size_t len = ph.p_filesz < sizeof(r->interp) - 1
						     ? ph.p_filesz
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

#if defined(__x86_64__)
#define NATIVE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define NATIVE_MACHINE EM_AARCH64
#endif

/* Does the dynamic symbol table define syscall as a function? */
static bool defines_syscall(Elf *e)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; d && i < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym))
				break;
			const char *sn = elf_strptr(e, sh.sh_link, sym.st_name);
			if (sn && !strcmp(sn, "syscall") && sym.st_shndx != SHN_UNDEF &&
			    GELF_ST_TYPE(sym.st_info) == STT_FUNC)
				return true;
		}
	}
	return false;
}

int elf_check_preload_lib(const char *path, char *why, size_t size)
{
	struct stat st;
	why[0] = '\0';
	int fd = open_regular(path, &st, why, size);
	if (fd < 0) {
		if (errno)
			snprintf(why, size, "%s", strerror(errno));
		return -1;
	}
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	size_t phnum = 0;
	bool dynamic = false;
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		snprintf(why, size, "not an ELF file");
	} else if (elf_broken(e, (uint64_t)st.st_size, why, size)) {
		/* why says how */
	} else if (gelf_getclass(e) != ELFCLASS64 || eh.e_machine != NATIVE_MACHINE) {
		snprintf(why, size, "an ELF file for another machine (class %d, machine %u)",
			 gelf_getclass(e) == ELFCLASS64 ? 64 : 32, (unsigned)eh.e_machine);
	} else if (eh.e_type != ET_DYN) {
		snprintf(why, size, "not a shared object (ELF type %u)", (unsigned)eh.e_type);
	} else {
		elf_getphdrnum(e, &phnum);
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_DYNAMIC)
				dynamic = true;
		}
		if (!dynamic)
			snprintf(why, size, "a shared object without a dynamic section");
		else if (!defines_syscall(e))
			snprintf(why, size,
				 "a shared object that does not define syscall(), "
				 "which is what libpmuguard.so interposes");
	}
	if (e)
		elf_end(e);
	close(fd);
	return why[0] ? -1 : 0;
}
