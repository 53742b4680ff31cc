# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# pmuguard-fleet: the kernel layer (`pmuguard enforce`), read as data.
#
# What the kernel guard's state is (and why) is decided once, in the
# command, and named there with its exit in one table
# (probe/enforce/enforce_state.c): `pmuguard enforce status --keys` says it
# as state, `pmuguard status --keys` as kernel.state.  What a start did is
# its document's outcome.  This file only reads and says them.

# The --keys schema of `pmuguard enforce start` this script reads.
ENF_SCHEMA=1

# `pmuguard enforce start --keys`: its document, and how the command
# ended as exited=RC (the one fact where it printed no document).
enforce_start() {
	set +e
	out=$("$PMUGUARD" enforce start --keys 2>/dev/null 9>&-)
	rc=$?
	set -e
	printf '%s\nexited=%s\n' "$out" "$rc"
}

# What `start` found attached, from its keys: "attached (lsm, denying with
# ENOENT, mode auto, core PMU types 4, facts from this machine): REASON".
kernel_words() {
	if [ "$(kv "$1" enforce)" = true ]; then how="denying with ENOENT"; else how="audit only"; fi
	from=$(kv "$1" facts.snapshot)
	printf '%s (%s, %s, mode %s, core PMU types %s, facts from %s): %s\n' "$2" "$(kv "$1" attach)" \
		"$how" "$(kv "$1" mode)" "$(kv_list "$1" core_types)" "${from:-this machine}" "$(kv "$1" reason)"
}

# Perf events of the class that were allocated before the guard, which it
# cannot stop (start's existing.events), said on stderr.
kernel_existing_warn() {
	[ "$(kv "$1" existing.unguarded)" = true ] || return 0
	warn "kernel: warning: $(kv "$1" existing.hits) perf event(s) of the counter-3 class were allocated before the guard was attached; each stays unguarded until its owner closes it (restart those processes):"
	kv_rows "$1" existing.events pid comm fd type config name |
		while IFS=$US read -r pid comm fd ty cfg name; do
			warn "kernel:   pid $pid ($comm) fd $fd: type $ty config $cfg: $name"
		done
}

# kernel_attached START: 0 where the start (enforce_start's document)
# attached the guard or found it attached, and says so; else 1.
kernel_attached() {
	[ "$(kv "$1" schema)" = "$ENF_SCHEMA" ] || return 1
	case $(kv "$1" outcome) in
	already) info "kernel: already attached" ;;
	attached) say "kernel: $(kernel_words "$1" attached)" ;;
	replaced) say "kernel: $(kernel_words "$1" "replaced and attached")" ;;
	*) return 1 ;;
	esac
	kernel_existing_warn "$1"
}

# kernel_refusal START: why the start did not attach, in words; the
# preload may then take over.
kernel_refusal() {
	outcome=$(kv "$1" outcome)
	rc=$(kv "$1" exited)
	if [ "$(kv "$1" schema)" = "$ENF_SCHEMA" ]; then
		case $outcome in
		nothing-to-attach) echo "the policy attaches nothing (mode $(kv "$1" mode)): $(kv "$1" reason)" && return 0 ;;
		refused) echo "could not attach the kernel guard: $(kv "$1" error)" && return 0 ;;
		esac
	fi
	# No document: a pmuguard built without the kernel guard prints none
	# (its exit 5, pmuguard(1)).
	case $rc in
	5) echo "pmuguard was built without kernel enforcement" ;;
	*) echo "pmuguard enforce start exited $rc${outcome:+ ($outcome)}" ;;
	esac
}

# The kernel layer alone: `pmuguard enforce status --keys` into st, its
# exit (pmuguard(1)) into rc, and its state, in the table's words, into
# state.  A pmuguard built without the kernel guard prints no document
# (its exit 5): unavailable; any other answer without a state is unknown.
kernel_status() {
	set +e
	st=$("$PMUGUARD" enforce status --keys 2>/dev/null 9>&-)
	rc=$?
	set -e
	state=$(kv "$st" state)
	if [ -z "$state" ]; then
		if [ -z "$st" ] && [ "$rc" = 5 ]; then state=unavailable; else state=unknown; fi
	fi
}

# Stop whatever kernel guard is attached: one that does not protect (audit
# mode, or unverified) is still attached and pinned, and goes too.  Asked
# of the kernel layer alone (`pmuguard enforce status`, its state and exit,
# pmuguard(1)), not of a whole status: no canary, no /proc scan, in the
# package's prerm too.
kernel_uninstall() {
	kernel_status
	case $state in
	attached | audit | unverified)
		if [ "$DRY_RUN" = 1 ]; then
			would "stop the kernel guard (pmuguard enforce stop)"
			return 0
		fi
		# Its words, if it fails, go to stderr as they are: for people.
		"$PMUGUARD" enforce stop >/dev/null 9>&- || die "kernel: pmuguard enforce stop failed (exit $?)"
		say "uninstalled: kernel guard stopped"
		;;
	detached | unavailable) info "kernel: not attached" ;;
	*)
		# bpf() refused (a container's seccomp profile), or the pins
		# unreadable: nothing here can be attached or stopped; do not
		# hold up the rest of the removal.
		why=$(kv "$st" error)
		[ -n "$why" ] || why=$(kv "$st" why)
		warn "kernel: cannot tell whether the kernel guard is attached (${why:-pmuguard enforce status exited $rc}); if it is, run 'pmuguard enforce stop' where bpf() is permitted"
		;;
	esac
}

# --dry-run: what a start would do, from `pmuguard enforce status` (what
# is attached, and the policy on this host's facts); whether this kernel
# takes the guard is known only by trying.  0 where the kernel layer
# would be tried (or is attached already), 1 where the policy attaches
# nothing.
kernel_would_start() {
	kernel_status
	case $state in
	attached) info "kernel: already attached"; return 0 ;;
	audit | unverified) would "replace the kernel guard attached now ($(kv "$st" why))"; return 0 ;;
	esac
	if [ "$(kv "$st" policy.would_attach)" = true ]; then
		would "attach the kernel guard (pmuguard enforce start: $(kv "$st" policy.reason))"
		return 0
	fi
	info "kernel: the policy attaches nothing here${st:+ ($(kv "$st" policy.reason))}"
	return 1
}
