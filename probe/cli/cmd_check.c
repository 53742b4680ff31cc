// SPDX-License-Identifier: GPL-2.0-or-later
/* pmuguard check BINARY...: which guard `run --mode auto` would use, and why. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "elfcheck.h"

int cmd_check(int argc, char **argv)
{
	if (argc < 2)
		die_usage("check: at least one program is required");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs("Usage: pmuguard check PROGRAM...\n"
		      "\n"
		      "Say which guard `pmuguard run --mode auto` would use for each program\n"
		      "(the preload for dynamic programs that import syscall(), the seccomp\n"
		      "supervisor for static, Go and inline-syscall ones), and why.\n"
		      "\n"
		      "Exit: 0 every program was read; 1 one could not be read; 2 usage.\n",
		      stdout);
		return EXIT_OK;
	}
	int rc = EXIT_OK;
	struct elf_report *r = malloc(sizeof(*r));
	if (!r)
		die_errno("out of memory");
	for (int i = 1; i < argc; i++) {
		elf_analyse(argv[i], r);
		if (r->err || !r->elf) {
			warn_msg("check: %s: %s", r->path,
				 r->err	       ? strerror(r->err)
				 : r->problem[0] ? r->problem
				 : r->script	 ? "a script, not an ELF binary (seccomp would cover it)"
						 : "not an ELF binary");
			rc = EXIT_INTERNAL;
			continue;
		}
		printf("%s: ELF %d-bit, %s%s%s%s%s\n", r->path, r->elfclass,
		       r->dynamic ? "dynamically linked" : "statically linked",
		       r->dynamic && r->interp[0] ? " (" : "", r->dynamic ? r->interp : "",
		       r->dynamic && r->interp[0] ? ")" : "", r->go ? ", Go" : "");
		printf("  syscall() import: %s%s\n", r->imports_syscall ? "yes" : "no",
		       r->setid ? "; setuid/setgid" : "");
		printf("  guard: %s (%s)\n", r->guard == ELF_GUARD_PRELOAD ? "preload" : "seccomp",
		       r->why);
	}
	free(r);
	return rc;
}
