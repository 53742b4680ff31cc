# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# pmuguard-fleet: the policy, lock = yes in /etc/pmuguard.conf, written as
# the preload file is (under the run's lock, a temporary renamed into
# place, every other byte kept).  The script sets CONF and CONF_DIR.

# The policy file install writes where there is none: uninstall removes a
# file that is still exactly this, and no other.
CONF_CREATED='# Written by pmuguard-fleet install: no user can switch the guard off
# (pmuguard.conf(5)).  pmuguard-fleet uninstall removes this file while
# it is unchanged.
lock = yes'

# The lock the guard reads in FILE, yes or no, by its parser's rules
# (probe/guard/conf.c): '#' starts a comment anywhere on a line, blanks
# around the key and the value do not count, the last valid line wins,
# and no such line means no.
conf_lock() {
	awk '{ sub(/#.*/, ""); i = index($0, "="); if (!i) next
	       k = substr($0, 1, i - 1); v = substr($0, i + 1)
	       gsub(/^[ \t\r]+|[ \t\r]+$/, "", k); gsub(/^[ \t\r]+|[ \t\r]+$/, "", v)
	       if (k == "lock" && (v == "yes" || v == "no")) l = v }
	     END { print (l == "" ? "no" : l) }' "$1"
}
# The lines that set the lock (whatever their value), as sed and grep read them.
CONF_LOCK_LINE='^[[:space:]]*lock[[:space:]]*='

# Why users other than root can change CONF (a config-management or umask
# mistake), or nothing: the guard then takes nothing from it that loosens
# it (probe/guard/conf.c), and install puts a file of root's in its place.
# Under --root owners are the tree builder's (a rootless build): its modes
# alone are judged.
conf_untrusted() {
	st=$(stat -c '%u %a' "$CONF") || return 0
	u=${st% *}
	m=${st#* }
	if [ $((0$m & 022)) != 0 ]; then
		echo "writable by other users (mode $m)"
	elif [ -z "$ROOT" ] && [ "$u" != 0 ]; then
		echo "owned by uid $u"
	fi
}
# The directory that holds CONF: no other user may add, rename or remove
# an entry in it (they could put their own policy in its place).  Prints
# why not, and 1.
conf_dir_unsafe() {
	owner=0
	[ -z "$ROOT" ] || owner=$(stat -c %u "$CONF_DIR")
	dir_check "$CONF_DIR" "$owner"
}

# Make sure the policy has lock = yes: without it the preload honours
# PMUGUARD_MODE=off and PMUGUARD_SNAPSHOT from any user's environment, and
# one process of theirs that reaches the counter takes the host down for
# everyone.  Creates the file (0644) where there is none; else sets its
# lock lines, or adds one, keeping every other byte, its owner and mode.
policy_lock() {
	if [ "$NO_LOCK" = 1 ]; then
		if [ -f "$CONF" ]; then
			info "policy: left as it is (--no-lock): $CONF has lock = $(conf_lock "$CONF")"
		else
			info "policy: left as it is (--no-lock): no $CONF, so users can switch the guard off for their processes"
		fi
		return 0
	fi
	if ! why=$(conf_dir_unsafe); then
		die "policy NOT locked: $why: other users could put their own $CONF in place; make it root's and not writable by others (chmod go-w), then run install again"
	fi
	untrusted=
	if [ -f "$CONF" ] && [ ! -L "$CONF" ]; then untrusted=$(conf_untrusted); fi
	if [ -L "$CONF" ] || { [ -e "$CONF" ] && [ ! -f "$CONF" ]; }; then
		warn "policy NOT locked: $CONF is not a regular file (a symbolic link is the tool's that made it): put lock = yes in it, or any user can switch the guard off for their processes"
		return 0
	fi
	if [ -f "$CONF" ] && [ "$(conf_lock "$CONF")" = yes ] && [ -z "$untrusted" ]; then
		info "policy: already locked: $CONF has lock = yes"
		return 0
	fi
	if [ "$DRY_RUN" = 1 ]; then
		if [ -n "$untrusted" ]; then
			would "replace $CONF ($untrusted) by a file of root's with lock = yes, keeping the old one as $CONF.pmuguard-untrusted"
		elif [ -f "$CONF" ]; then
			would "set lock = yes in $CONF, every other byte kept"
		else
			would "create $CONF (root's, 0644) with lock = yes"
		fi
		return 0
	fi
	NEW=$(mktemp "$CONF.pmuguard-new.XXXXXX") || die "cannot create a temporary beside $CONF; it is unchanged"
	if [ -n "$untrusted" ]; then
		# Its lines may be anyone's (mode = off, a snapshot): none is
		# adopted as root's.  The file is kept aside for the admin to
		# read, and a new one of root's, locked, takes its place.
		cp -p "$CONF" "$CONF.pmuguard-untrusted" ||
			die "cannot keep $CONF aside as $CONF.pmuguard-untrusted; it is unchanged"
		chmod 600 "$CONF.pmuguard-untrusted"
		warn "policy: $CONF was $untrusted, so any user could have switched the guard off: replaced by a file of root's (mode 0644, lock = yes); the old one is $CONF.pmuguard-untrusted: carry over what is root's"
		chmod 644 "$NEW" || die "cannot chmod $NEW; $CONF unchanged"
		if [ -z "$ROOT" ]; then chown 0:0 "$NEW" || die "cannot chown $NEW; $CONF unchanged"; fi
		printf '%s\n' "$CONF_CREATED" >"$NEW" || die "cannot write $NEW; $CONF unchanged"
	elif [ -f "$CONF" ]; then
		{ chmod --reference="$CONF" "$NEW" && chown --reference="$CONF" "$NEW"; } ||
			die "cannot give $NEW the owner and mode of $CONF; it is unchanged"
	fi
	if [ -n "$untrusted" ]; then
		:
	elif [ -f "$CONF" ]; then
		if grep -q "$CONF_LOCK_LINE" "$CONF"; then
			# sed keeps a last line without its newline as it was.
			sed "s/$CONF_LOCK_LINE.*/lock = yes/" "$CONF" >"$NEW" || die "cannot write $NEW; $CONF unchanged"
		else
			# Every write checked (a full /etc), not only the last.
			{
				cat "$CONF" &&
					# A last line without its newline gets one: ours is a line of its own.
					{ [ ! -s "$CONF" ] || [ "$(tail -c 1 "$CONF" | od -An -tx1 | tr -d ' ')" = 0a ] || echo; } &&
					echo 'lock = yes'
			} >"$NEW" || die "cannot write $NEW (a full file system?); $CONF unchanged"
		fi
	else
		chmod 644 "$NEW" || die "cannot chmod $NEW; no $CONF written"
		printf '%s\n' "$CONF_CREATED" >"$NEW" || die "cannot write $NEW; no $CONF written"
	fi
	[ "$(conf_lock "$NEW")" = yes ] || die "$NEW does not read as lock = yes; $CONF unchanged"
	fsync_path "$NEW"
	fsync_path "$CONF_DIR"
	mv -f "$NEW" "$CONF" || die "cannot rename $NEW over $CONF; it is unchanged"
	NEW=
	fsync_path "$CONF_DIR"
	say "policy locked: $CONF lock = yes; users cannot switch the guard off"
}

# Uninstall: a policy file install created, still as it wrote it, goes
# once no preload entry is left to read it; any other stays, lock = yes
# included (the admin's file, or one the admin has since edited).
policy_unlock() {
	[ -f "$CONF" ] && [ ! -L "$CONF" ] || return 0
	if [ "$DRY_RUN" = 1 ] && { ! has_entry || [ "$LAYER" != kernel ]; } &&
		printf '%s\n' "$CONF_CREATED" | cmp -s - "$CONF"; then
		would "remove $CONF (install created it; unchanged since) once no preload entry is left"
	elif ! has_entry && printf '%s\n' "$CONF_CREATED" | cmp -s - "$CONF"; then
		rm -f "$CONF"
		fsync_path "$CONF_DIR"
		say "uninstalled: removed $CONF (install created it; unchanged since)"
	elif [ "$(conf_lock "$CONF")" = yes ]; then
		info "policy: $CONF left as it is, with lock = yes"
	fi
}
