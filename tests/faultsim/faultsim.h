/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultsim's parts, to each other (main.c says what faultsim does).  Each
 * .c file includes this first: it sets _GNU_SOURCE for a build without it.
 */
#ifndef FAULTSIM_H
#define FAULTSIM_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define EXIT_FAULT 86
#define EXIT_USAGE 2
#define EXIT_SKIP 77
#define EXIT_SETUP 1

#define PERF_TYPE_RAW_NR 4u /* PERF_TYPE_RAW */
#define ATTR_READ_SIZE 64   /* PERF_ATTR_SIZE_VER0 */
#define ATTR_MIN_SIZE 16    /* type, size, config */
#define MAX_CORE_TYPES 64

/* The world faultsim simulates (--core-types, --healthy). */
struct world {
	uint32_t core_types[MAX_CORE_TYPES];
	unsigned int n_core_types;
	bool healthy;
};

/* world.c: which calls fault. */
int parse_core_types(const char *list, struct world *w);
bool is_core_type(const struct world *w, uint32_t type);
bool is_fixed3_encoding(uint64_t config);
bool group_fd_missing(pid_t pid, uint64_t group_fd);

/* log.c: the log's lines and the fault's message. */
void log_call(int logfd, pid_t pid, bool readable, uint32_t type, uint64_t config, bool fault,
	      bool nogroup);
void log_verdict(int logfd, pid_t pid, uint32_t type, uint64_t config, const char *verdict);
void print_fault(uint32_t type, uint64_t config, pid_t pid);

/* target.c: the target's attr, its exit. */
ssize_t read_target(pid_t pid, uint64_t addr, unsigned char *buf);
uint32_t get_u32(const unsigned char *p);
uint64_t get_u64(const unsigned char *p);
int exit_code_of(int status);
pid_t reap(pid_t pid, int *status);

/* The two ways to watch CMD's tree (notify.c, ptrace.c); each returns
 * faultsim's exit status. */
int run_notify(const struct world *w, const char *log_path, char **cmd);
int run_ptrace(const struct world *w, const char *log_path, char **cmd);

#endif
