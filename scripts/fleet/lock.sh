# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# pmuguard-fleet: the one lock of a run that changes the host.
#
# One lock for every read-modify-write of the preload file and the policy
# file, taken once, at the start of install, uninstall and reprobe (as
# apt's daily script takes its lock before it decides anything), and held
# on fd 9 until the script exits (closed for every command it starts).  It
# lives in a directory of our own in /run, where only root can create an
# entry (systemd mounts it 0755).  Not in /run/lock: that is 1777, so any
# user could make /run/lock/pmuguard first and lock every later run out
# (and refusing a lock another user can hold is right).  The script sets
# RUN_DIR, LOCK_DIR and LOCK (under --root, DIR's).

# How long a run waits for another's lock, and how often it says so.
LOCK_WAIT=300
LOCK_SAY_EVERY=30

# Who holds LOCK, in words: "process PID (COMM)", or "another process
# (which one cannot be told)".  /proc/locks names the process that took a
# flock(2) lock, and flock(1), which takes ours, exits at once: the holder
# is the process whose open file of LOCK has the lock, as its fdinfo's
# "lock:" lines say (fs/locks.c, show_fd_locks; Linux 4.1 and later).
# Several share it where the holder forked (its subshells): the one whose
# parent is not among them.  Else (the holder opened it by another path: a
# hard link, another mount namespace) the process /proc/locks names, where
# it still holds it.  Both name the file MAJ:MIN:INODE, the device numbers
# in hex (fs/locks.c, lock_get_status).
lock_holder() {
	unknown="another process (which one cannot be told)"
	st=$(stat -c '%d %i' "$LOCK" 2>/dev/null) || { echo "$unknown"; return 0; }
	dev=${st% *}
	maj=$((dev >> 8 & 0xfff))
	min=$((dev >> 12 & 0xfff00 | dev & 0xff))
	id=$(printf '%02x:%02x:%s' "$maj" "$min" "${st#* }")
	lk=$(phys_dir "$LOCK")/${LOCK##*/} || { echo "$unknown"; return 0; }
	# (/proc/PID/fd/N: no blank in a name; a pipe would run the loop in a subshell.)
	pids=
	fds=$(find /proc/[0-9]*/fd -mindepth 1 -maxdepth 1 \
		-lname "$(printf '%s' "$lk" | sed 's/[][*?\\]/\\&/g')" 2>/dev/null 9>&-) || :
	for f in $fds; do
		p=${f#/proc/}
		p=${p%%/*}
		! grep -q "^lock:.* $id " "/proc/$p/fdinfo/${f##*/}" 2>/dev/null || pids="$pids $p"
	done
	pid=
	for p in $pids; do
		pp=$(awk '$1 == "PPid:" { print $2 }' "/proc/$p/status" 2>/dev/null) || continue
		case " $pids " in *" $pp "*) ;; *) pid=$p && break ;; esac
	done
	if [ -z "$pid" ]; then
		pid=$(awk -v id="$id" '$2 != "->" && $6 == id { print $5; exit }' /proc/locks 2>/dev/null) || :
		# Only while it holds it still: its pid may be another's now.
		case $pid in '' | *[!0-9]*) pid= ;; *) grep -qs "^lock:.* $id " "/proc/$pid/fdinfo/"* || pid= ;; esac
	fi
	comm=
	[ -z "$pid" ] || comm=$(tr -d '\n' <"/proc/$pid/comm" 2>/dev/null | tr -c '[:graph:]' '?') || :
	if [ -n "$comm" ]; then echo "process $pid ($comm)"; else echo "$unknown"; fi
}

# Take the lock (fd 9), or exit 1 saying why: a lock place another user
# could hold or replace is refused at once, never waited on.
take_lock() {
	command -v flock >/dev/null 2>&1 || die "flock (util-linux) is needed to change $PRELOAD safely"
	# /run exists on every systemd host; under --root it may not.
	[ -e "$RUN_DIR" ] || [ -L "$RUN_DIR" ] || mkdir -m 0755 "$RUN_DIR" 2>/dev/null ||
		[ -d "$RUN_DIR" ] || die "cannot create $RUN_DIR"
	# Where RUN_DIR is sticky and open to all (a tmpfs mounted without
	# mode=0755), another user can make LOCK_DIR first: that is refused
	# below, like any lock that is not ours, and the message says why.
	why=$(dir_check --sticky-ok "$RUN_DIR" 0 "$ME") ||
		die "cannot keep the lock in $RUN_DIR: $why, so other users could replace it; nothing changed"
	open=
	why=$(dir_check "$RUN_DIR" 0 "$ME") ||
		open=" ($why, so any user can create $LOCK_DIR first: give $RUN_DIR mode 0755, as systemd mounts /run)"
	# (Another run may create it at the same moment: EEXIST is fine.)
	mkdir -m 0700 "$LOCK_DIR" 2>/dev/null || [ -e "$LOCK_DIR" ] || [ -L "$LOCK_DIR" ] ||
		die "cannot create $LOCK_DIR; nothing changed"
	# Only root can create LOCK_DIR in a 0755 /run: one that is not ours
	# was made or changed by root.  Never wait on a lock another user could
	# hold, and say what to remove.  Whoever can open the lock file, even
	# to read, can flock(2) it: the directory is closed to all others
	# (0700, as made here).
	if why=$(dir_check "$LOCK_DIR" "$ME"); then
		mode=$(stat -c %a "$LOCK_DIR") || mode=777
		[ $((0$mode & 077)) = 0 ] || why="$LOCK_DIR is open to other users (mode $mode)"
	fi
	[ -z "$why" ] ||
		die "refusing the lock $LOCK: $why; a lock directory that is not uid $ME's own, mode 0700, could be held by another user$open; remove $LOCK_DIR; nothing changed"
	if [ -L "$LOCK" ] || { [ -e "$LOCK" ] && { [ ! -f "$LOCK" ] || [ "$(stat -c %u "$LOCK")" != "$ME" ]; }; }; then
		die "refusing the lock $LOCK: it is not a plain file of uid $ME; remove it; nothing changed"
	fi
	# (A failed redirection of exec ends the shell before || could run.)
	(umask 077 && : >>"$LOCK") 2>/dev/null || die "cannot open the lock $LOCK"
	exec 9>>"$LOCK"
	# A wait is said, as apt says its lock's, on stderr (also under --quiet:
	# a boot unit or a cron job that stalls must say why), naming the
	# holder; again every LOCK_SAY_EVERY seconds.  Not for the first
	# second: another run holds it for less than that, and naming the
	# holder reads every process's open files.  flock(1) exits 1 where the
	# lock is held (or the wait timed out), more on an error.
	r=0
	flock -w 1 9 || r=$?
	[ "$r" != 0 ] || return 0
	[ "$r" = 1 ] || die "cannot lock $LOCK (flock exited $r); nothing changed"
	warn "waiting for the lock $LOCK held by $(lock_holder 9>&-)..."
	waited=0
	while :; do
		r=0
		flock -w "$LOCK_SAY_EVERY" 9 || r=$?
		[ "$r" != 0 ] || return 0
		[ "$r" = 1 ] || die "cannot lock $LOCK (flock exited $r); nothing changed"
		waited=$((waited + LOCK_SAY_EVERY))
		holder=$(lock_holder 9>&-)
		[ "$waited" -lt "$LOCK_WAIT" ] ||
			die "gave up after $LOCK_WAIT s waiting for the lock $LOCK held by $holder; nothing changed"
		warn "still waiting for the lock $LOCK held by $holder ($waited s of at most $LOCK_WAIT)..."
	done
}
