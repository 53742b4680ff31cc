/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel guard's state, named once: its word (`enforce status`'s
 * document's `state`, `pmuguard status`'s kernel.state, the schemas, the
 * man pages, pmuguard-fleet) and the exits `enforce status` gives for it,
 * in one table (enforce_state.c).  Pure: the command decides the state
 * here, writes its word and exits with its code; status reads the word
 * back (or, from a pmuguard older than the word, the exit) through the
 * same table.  No other header of the loader is needed to read it.
 */
#ifndef PMUGUARD_ENFORCE_STATE_H
#define PMUGUARD_ENFORCE_STATE_H

#include <stdbool.h>

/* In the order status has always kept them: 0 is unavailable. */
enum enf_guard {
	ENF_GUARD_UNAVAILABLE, /* built without the kernel guard (no document), or not asked */
	ENF_GUARD_ATTACHED,    /* attached, its self-test passed, denying */
	ENF_GUARD_AUDIT,       /* attached, its self-test passed, audit mode: allows every call */
	ENF_GUARD_UNVERIFIED,  /* attached, its self-test failed: it does not protect */
	ENF_GUARD_DETACHED,    /* nothing attached */
	ENF_GUARD_UNKNOWN,     /* what is pinned cannot be read, or the answer was not understood */
	ENF_GUARD_N
};

/* What is pinned, as the loader read it (enf_status_read()): readable
 * false where it could not be read; verified, the self-test just run;
 * enforce, the rodata's (false: audit mode). */
enum enf_guard enf_guard_decide(bool readable, bool attached, bool verified, bool enforce);
/* The state's word ("attached"); "unknown" for a value out of range. */
const char *enf_guard_word(enum enf_guard g);
/* A word back: its state, or -1 where it is none of the table's. */
int enf_guard_parse(const char *word);
/* `enforce status`'s exit for the state; escaped: events of the class
 * opened before a denying guard still exist (attached exits 7, not 0). */
int enf_guard_exit(enum enf_guard g, bool escaped);
/* The state an exit of `enforce status` says (any exit not the table's:
 * unknown): how status reads a pmuguard older than the word. */
enum enf_guard enf_guard_of_exit(int exit);

#endif
