/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PMUGUARD_LIBC_SYM_H
#define PMUGUARD_LIBC_SYM_H

/* libc's definition of the function name, or NULL when it cannot be found
 * this way (then ask dlsym). */
void *pmug_libc_symbol(const char *name);

#endif
