# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# pmuguard-fleet: /etc/ld.so.preload, edited atomically under the lock.
#
# The script sets PRELOAD (DIR/etc/ld.so.preload as named), PRELOAD_DIR,
# BACKUP, LIB (the entry, as the loader reads it) and LIB_AT (where that is
# on this host).  preload_target, under the lock, sets TARGET (the file
# the loader reads through PRELOAD: PRELOAD itself, or the regular file at
# the end of its links) and TARGET_DIR, once for the run.

MAX_LINKS=8

# Follow PRELOAD's symbolic links to the file the loader reads.  A link is
# followed only to a sane place: at most MAX_LINKS links, each in a
# directory only root (or this user) can change, so no other user can
# re-point the chain between our look and our rename; ending in a regular
# file that exists (not a directory, a FIFO, a device, not our backup), in
# a directory as safe; under --root, every step inside ROOT (an absolute
# target is read as ROOT/target, as the loader in that root would; a link
# to a directory above the target is resolved as here, so one that leaves
# ROOT is refused).  Prints that file, or the reason and returns 1.
resolve_preload() {
	[ -L "$PRELOAD" ] || { printf '%s\n' "$PRELOAD"; return 0; }
	p=$PRELOAD
	n=0
	while :; do
		# (p is always under ROOTC: the directory is walked inside DIR.)
		q=${p#"$ROOTC"}
		# (The reason alone: the link that led out is this chain's.)
		d=$(root_walk 1 "${q%/*}") || { printf '%s\n' "$d" | head -n 1; return 1; }
		[ -d "${d:-/}" ] || { echo "it is dangling: the directory of $p does not exist"; return 1; }
		why=$(dir_check "${d:-/}" 0 "$ME") || { echo "it goes through $why"; return 1; }
		p=$d/${p##*/}
		[ -L "$p" ] || break
		n=$((n + 1))
		[ "$n" -le "$MAX_LINKS" ] || { echo "it is a loop, or a chain of more than $MAX_LINKS links"; return 1; }
		# (The x keeps a target's own trailing newlines, which $() drops:
		# a name with a newline is refused, never read as another.)
		t=$(readlink -- "$p" && echo x) || { echo "cannot read the link $p"; return 1; }
		t=${t%?x}
		case $t in *"$NL"*) echo "the link $p names a file whose name holds a newline" && return 1 ;; esac
		case $t in */ | */. | */.. | . | ..) echo "the link $p names a directory ($t), not a file" && return 1 ;; esac
		case $t in
		/*) p=$ROOTC$t ;;
		*) p=$d/$t ;;
		esac
	done
	[ -e "$p" ] || { echo "it is dangling: $p does not exist"; return 1; }
	[ -f "$p" ] || { echo "$p is not a regular file"; return 1; }
	[ "$p" != "$(phys_dir "$BACKUP")/${BACKUP##*/}" ] || { echo "it leads to our own backup $p"; return 1; }
	printf '%s\n' "$p"
}

# Under the lock, once: the link is read, and kept to the end of the run
# (the writer opens what it names without following a link: a link put on
# its way since is refused, never followed).  Exit 1 where the link leads
# nowhere sane.
TARGET=
preload_target() {
	[ -z "$TARGET" ] || return 0
	TARGET=$(resolve_preload) ||
		die "$PRELOAD is a symbolic link to no sane place: $TARGET; nothing changed (a link must lead, through at most $MAX_LINKS links in directories only root can write${ROOT:+ and inside $ROOT}, to a regular file)"
	TARGET_DIR=${TARGET%/*}
	TARGET_DIR=${TARGET_DIR:-/}
}

# PRELOAD as messages name it: with the file it leads to, if a link.
preload_name() {
	if [ "$TARGET" = "$PRELOAD" ]; then echo "$PRELOAD"; else echo "$PRELOAD (a link to $TARGET)"; fi
}

# Is LIB one of the file's entries?  Entries are separated by whitespace
# (or colons) in ld.so.preload; ours always stands alone on its line.
# (Before preload_target, where only the kernel layer is asked for, the
# file as the loader reads PRELOAD.)
has_entry() {
	[ -n "$LIB" ] && [ -f "${TARGET:-$PRELOAD}" ] && grep -qxF "$LIB" "${TARGET:-$PRELOAD}"
}

# Run a program with the library preloaded; it must exit 0 and the loader
# must print nothing (a library it cannot load is only a warning to it).
loads_cleanly() {
	out=$(LD_PRELOAD="$LIB_AT" "$@" 2>&1 >/dev/null 9>&-) || return 1
	[ -z "$out" ]
}

# Under --root: the tree's library checked by the command (as uid 65534,
# nothing of ours in its environment), its answer read as data.
tree_loads() {
	[ -n "$PMUGUARD" ] || die "the pmuguard command is needed to check a tree's library (give --pmuguard PATH); $PRELOAD unchanged"
	facts=$("$PMUGUARD" tree --root "$ROOT" --lib "$LIB" --check-load 9>&-) ||
		die "pmuguard tree could not check $LIB_AT; $PRELOAD unchanged"
	[ "$(kv "$facts" lib.loads)" = true ] ||
		die "$LIB_AT does not load cleanly (checked as $(kv "$facts" lib.checked_as): $(kv "$facts" lib.load_why)); $PRELOAD unchanged"
	info "the tree's library loads cleanly into /bin/true (checked as $(kv "$facts" lib.checked_as), never as root)"
}

# in_tree PATH: PATH (on this host, resolved) as the tree names it.
in_tree() { printf '%s\n' "${1#"$ROOTC"}"; }

# tree_edit EDIT...: the one writer of the tree's (or this host's) files,
# `pmuguard tree EDIT` (probe/status/status_tree_write.c): through
# descriptors of directories opened without following a link, an O_EXCL
# temporary renamed in place, owner and mode set on the open file, a
# killed run's temporaries removed first.  Its outcome's keys on stdout;
# exit 1, and why= says why, where it changed nothing.
# (Called in a command substitution: writer_needed first, so that a
# missing command ends the run, not the substitution.)
writer_needed() {
	[ -n "$PMUGUARD" ] ||
		die "the pmuguard command writes the files (give --pmuguard PATH, or remove the line ${LIB:-libpmuguard.so} from $PRELOAD by hand); nothing changed"
}
tree_edit() {
	set -- tree "$@"
	[ -z "$ROOTC" ] || set -- "$@" --root "$ROOTC"
	[ "$DRY_RUN" = 0 ] || set -- "$@" --dry-run
	"$PMUGUARD" "$@" 9>&-
}
# What tree_edit refused, in words.
edit_why() {
	w=$(kv "$1" why)
	printf '%s\n' "${w:-pmuguard tree did not answer (is $PMUGUARD of this version?)}"
}

preload_install() {
	preload_target
	if has_entry; then
		info "preload: already installed: $(preload_name) lists $LIB"
		return 0
	fi
	[ -n "$LIB" ] || die "libpmuguard.so is not installed under ${ROOT:-/}usr/lib*/pmuguard (give --lib PATH)"
	[ -f "$LIB_AT" ] || die "$LIB_AT does not exist; $PRELOAD unchanged"
	# Prove the library loads before any process depends on it.  This
	# host's own library, as root: a setuid-free dynamic binary of the
	# base system, then /bin/true.  A tree's library is the tree's code
	# (another's image, a build user's rootfs): it never runs as root
	# here; the command checks it as uid 65534, on a private copy, with a
	# fixed PATH alone (pmuguard tree --check-load).
	if [ -n "$ROOT" ]; then
		tree_loads
	else
		for prog in /bin/true "/usr/bin/env true"; do
			# shellcheck disable=SC2086 # the command is meant to split
			loads_cleanly $prog || die "$LIB_AT does not load cleanly into $prog; $PRELOAD unchanged"
		done
		info "the library loads cleanly into /bin/true and env"
	fi
	if [ "$DRY_RUN" = 1 ]; then
		would "list $LIB first in $(preload_name)${TARGET:+$([ -f "$TARGET" ] && echo ", every other byte kept, the old file backed up to $BACKUP")}"
		return 0
	fi
	# Ours first, so it interposes before anything else; then the old file
	# byte for byte, so uninstall can restore it exactly; the old file kept
	# beside PRELOAD (a plain copy, even where PRELOAD is a link).
	writer_needed
	out=$(tree_edit --preload-add "$LIB" --file "$(in_tree "$TARGET")" --backup "$(in_tree "$BACKUP")") ||
		die "$(edit_why "$out"); $PRELOAD unchanged"
	[ -z "$(kv "$out" backup)" ] || info "backed up the old file to $BACKUP"
	say "installed: $(preload_name) now lists $LIB"
	say "note: only processes started from now on load it; those already running stay unguarded until they restart (pmuguard-fleet status names the ones holding perf events)"
	if [ -z "$ROOT" ] && ! /bin/true; then
		say "processes fail with the new preload: rolling back"
		preload_uninstall
		exit 1
	fi
}

preload_uninstall() {
	preload_target
	if ! has_entry; then
		info "preload: not installed: $(preload_name) does not list ${LIB:-libpmuguard.so}"
		return 0
	fi
	if [ "$DRY_RUN" = 1 ]; then
		would "remove $LIB from $(preload_name), every other byte kept"
		return 0
	fi
	# Drop exactly the lines that are our entry; keep every other byte.  A
	# link and its file are another tool's: an emptied file stays (an
	# empty list preloads nothing); our own emptied file goes.
	set -- --preload-remove "$LIB" --file "$(in_tree "$TARGET")"
	[ "$TARGET" = "$PRELOAD" ] || set -- "$@" --keep-empty
	writer_needed
	out=$(tree_edit "$@") || die "$(edit_why "$out"); $PRELOAD unchanged"
	case $(kv "$out" action) in
	removed) say "uninstalled: removed $LIB from $(preload_name)" ;;
	emptied) say "uninstalled: $(preload_name) listed only $LIB and is empty now" ;;
	deleted) say "uninstalled: $PRELOAD listed only $LIB and is gone" ;;
	*) info "preload: not installed: $(preload_name) does not list $LIB" ;;
	esac
}
