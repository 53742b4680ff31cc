# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# pmuguard-fleet: paths under --root, and the directories a file or a lock
# may live in.  Each function gives its answer on stdout (a path, or the
# reason it is refused, with exit 1): no result is left in a variable.
#
# Every path this script reads or writes under --root is DIR's: it is
# resolved here one component at a time (root_walk), and a symbolic link
# on the way that leads out of DIR, absolute or by "..", is refused, never
# followed.  Checking only a path's last component would let DIR/etc, a
# link to /etc, have this host's own file edited.  ROOTC (set by the
# script) is DIR itself, resolved (DIR may be a link: it is what the caller
# named); empty for /.

# More links than the kernel follows in one path (MAXSYMLINKS) is a loop.
MAX_WALK=40
# A newline: a link that names a file with one in its name is refused.
NL='
'

# Where PATH (a file or a directory) is, in words: resolved where it can be.
where_is() {
	(CDPATH='' cd -P -- "$1" 2>/dev/null && pwd -P) ||
		{ wd=$(CDPATH='' cd -P -- "${1%/*}/" 2>/dev/null && pwd -P) && printf '%s/%s\n' "$wd" "${1##*/}"; } ||
		printf '%s\n' "$1"
}

# root_walk LAST PATH: PATH, absolute as DIR's own files see it, as a path
# on this host under ROOTC, following each symbolic link on the way as this
# host does (so a link is read where it is, once), and refusing one that
# leaves ROOTC: an absolute target outside it, or ".." above it.  LAST=0
# leaves the last component as it is (a link there is the caller's to
# judge).  Without --root, the path resolved as here.  Prints the resolved
# path (no link in it, "" for /); or returns 1 and prints the reason, and
# on a second line the link that led out, where one did (walk_words joins
# them).
root_walk() {
	w_rest=$2
	w_cur=$ROOTC
	w_hops=0
	w_last=
	while :; do
		while :; do case $w_rest in /*) w_rest=${w_rest#/} ;; *) break ;; esac; done
		[ -n "$w_rest" ] || break
		w_c=${w_rest%%/*}
		w_rest=${w_rest#"$w_c"}
		case $w_c in
		.) continue ;;
		..)
			if [ "$w_cur" = "$ROOTC" ]; then
				[ -z "$ROOTC" ] && continue # / has no parent: ".." is / again
				printf '%s\n' "it leads out of --root $ROOT, to $(where_is "$w_cur/..$w_rest")" "$w_last"
				return 1
			fi
			w_cur=${w_cur%/*}
			continue
			;;
		esac
		if [ "$1" = 0 ]; then
			case $w_rest in *[!/]*) ;; *) w_cur=$w_cur/$w_c && break ;; esac
		fi
		if [ -L "$w_cur/$w_c" ]; then
			w_hops=$((w_hops + 1))
			[ "$w_hops" -le "$MAX_WALK" ] || { echo "$w_cur/$w_c: a loop of symbolic links, or more than $MAX_WALK"; return 1; }
			# (The x keeps a target's own trailing newlines, which $()
			# drops: a name with a newline is refused, never read as another.)
			w_t=$(readlink -- "$w_cur/$w_c" && echo x) || { echo "cannot read the link $w_cur/$w_c"; return 1; }
			w_t=${w_t%?x}
			case $w_t in *"$NL"*) echo "the link $w_cur/$w_c names a file whose name holds a newline"; return 1 ;; esac
			case $w_t in
			/*)
				case $w_t in
				"$ROOTC" | "$ROOTC"/*) ;;
				*)
					printf '%s\n' "it leads out of --root $ROOT, to $(where_is "$w_t$w_rest")" "$w_cur/$w_c -> $w_t"
					return 1
					;;
				esac
				w_cur=$ROOTC
				w_t=${w_t#"$ROOTC"}
				;;
			esac
			w_last="$w_cur/$w_c -> $w_t"
			w_rest=$w_t$w_rest
			continue
		fi
		w_cur=$w_cur/$w_c
	done
	printf '%s\n' "$w_cur"
}
# What root_walk refused, in words: the reason (the link).
walk_words() {
	printf '%s\n' "$1" | {
		IFS= read -r why
		IFS= read -r link || :
		printf '%s%s\n' "$why" "${link:+ (the link $link)}"
	}
}
# in_root PATH [LAST]: PATH under --root as root_walk resolves it (PATH
# itself without --root), or exit 1 with the reason: nothing is changed.
in_root() {
	if [ -z "$ROOT" ]; then
		printf '%s\n' "$1"
		return 0
	fi
	w=$(root_walk "${2:-1}" "$1") ||
		die "refusing ${ROOT%/}$1: $(walk_words "$w"); every link on a path under --root must stay inside it; nothing changed"
	printf '%s\n' "${w:-/}"
}
# root_look PATH: the same for a look only (status): where PATH leads out
# of DIR, a warning and 1, and it is taken as absent.
root_look() {
	if [ -z "$ROOT" ]; then
		printf '%s\n' "$1"
	elif w=$(root_walk 1 "$1"); then
		printf '%s\n' "${w:-/}"
	else
		warn "ignoring ${ROOT%/}$1: $(walk_words "$w")"
		return 1
	fi
}

# fsync a file or a directory.  coreutils sync(1) fsyncs each file named
# (8.24 and later); where it takes no names (busybox before 1.26, old
# coreutils), fall back to syncing everything.
fsync_path() { sync -- "$1" 2>/dev/null || sync; }

# dir_check [--sticky-ok] DIR OWNER...: nothing, where DIR is a directory
# itself (not a link), owned by one of OWNER, and no other user can add,
# rename or remove an entry in it (no group or other write bit; with
# --sticky-ok, a sticky one may have them: then others can add entries,
# but not touch ours).  Else the reason, and 1.
dir_check() {
	sticky_ok=0
	if [ "$1" = --sticky-ok ]; then
		sticky_ok=1
		shift
	fi
	d=$1
	shift
	if [ -L "$d" ]; then
		echo "$d is a symbolic link"
		return 1
	elif [ ! -d "$d" ]; then
		echo "$d is not a directory"
		return 1
	fi
	st=$(stat -c '%u %a' "$d") || st='? 0'
	uid=${st% *}
	mode=${st#* }
	for o in "$@"; do
		[ "$uid" != "$o" ] || {
			if [ $((0$mode & 022)) != 0 ] && { [ "$sticky_ok" = 0 ] || [ $((0$mode & 01000)) = 0 ]; }; then
				echo "$d is writable by other users (mode $mode)"
				return 1
			fi
			return 0
		}
	done
	echo "$d belongs to uid $uid"
	return 1
}

# The physical directory (links resolved) that holds PATH; fails where
# there is none.
phys_dir() { (CDPATH='' cd -P -- "${1%/*}/" 2>/dev/null && pwd -P); }
