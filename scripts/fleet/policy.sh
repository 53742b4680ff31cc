# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# pmuguard-fleet: the policy, lock = yes in /etc/pmuguard.conf, written as
# the preload file is (under the run's lock, a temporary renamed into
# place, every other byte kept).  The script sets CONF and CONF_DIR.

# The policy's reads and writes are the command's (`pmuguard tree
# --policy-lock`, --policy-drop-created: probe/status/status_tree_write.c),
# through descriptors alone, by the guard's own parser (probe/guard/conf.c):
# whether it locks, whether others could change it, the file install
# creates where there is none and uninstall removes while unchanged.

# Make sure the policy has lock = yes: without it the preload honours
# PMUGUARD_MODE=off and PMUGUARD_SNAPSHOT from any user's environment, and
# one process of theirs that reaches the counter takes the host down for
# everyone.  Creates the file (0644) where there is none; else sets its
# lock lines, or adds one, keeping every other byte, its owner and mode.
# A file others could change (mode, or not root's) is replaced by one of
# root's, the old one kept aside, private, for the admin.
# Before anything changes: the lock install ends with must be possible,
# or nothing is changed (exit 1 says the list is unchanged).  A dry run of
# the same edit, its refusal said as policy_lock says it.
policy_lock_possible() {
	[ "$NO_LOCK" = 0 ] && [ "$DRY_RUN" = 0 ] || return 0
	writer_needed
	out=$(DRY_RUN=1 tree_edit --policy-lock --file "$(in_tree "$CONF")") || {
		case $(kv "$out" action) in
		dir-unsafe) die "policy cannot be locked: $(edit_why "$out"): other users could put their own $CONF in place; make it root's and not writable by others (chmod go-w), then run install again; nothing changed" ;;
		*) die "policy cannot be locked: $(edit_why "$out"); nothing changed" ;;
		esac
	}
}

policy_lock() {
	writer_needed
	if [ "$NO_LOCK" = 1 ]; then
		if [ -f "$CONF" ]; then
			set -- tree
			[ -z "$ROOTC" ] || set -- "$@" --root "$ROOTC"
			l=$(kv "$("$PMUGUARD" "$@" 9>&-)" policy.locked) || l=
			case $l in true) l=yes ;; false) l=no ;; *) l="unknown (pmuguard tree did not say)" ;; esac
			info "policy: left as it is (--no-lock): $CONF has lock = $l"
		else
			info "policy: left as it is (--no-lock): no $CONF, so users can switch the guard off for their processes"
		fi
		return 0
	fi
	out=$(tree_edit --policy-lock --file "$(in_tree "$CONF")") || {
		case $(kv "$out" action) in
		dir-unsafe) die "policy NOT locked: $(edit_why "$out"): other users could put their own $CONF in place; make it root's and not writable by others (chmod go-w), then run install again" ;;
		*) die "policy NOT locked: $(edit_why "$out"); $CONF unchanged" ;;
		esac
	}
	untrusted=$(kv "$out" untrusted)
	case $(kv "$out" action) in
	not-regular)
		warn "policy NOT locked: $CONF is not a regular file (a symbolic link is the tool's that made it): put lock = yes in it, or any user can switch the guard off for their processes" ;;
	already) info "policy: already locked: $CONF has lock = yes" ;;
	replaced)
		if [ "$DRY_RUN" = 1 ]; then
			would "replace $CONF ($untrusted) by a file of root's with lock = yes, keeping the old one as $CONF.pmuguard-untrusted"
		else
			warn "policy: $CONF was $untrusted, so any user could have switched the guard off: replaced by a file of root's (mode 0644, lock = yes); the old one is $CONF.pmuguard-untrusted: carry over what is root's"
		fi ;;
	set | added)
		if [ "$DRY_RUN" = 1 ]; then would "set lock = yes in $CONF, every other byte kept"; fi ;;
	created)
		if [ "$DRY_RUN" = 1 ]; then would "create $CONF (root's, 0644) with lock = yes"; fi ;;
	esac
	case $(kv "$out" action) in
	replaced | set | added | created)
		[ "$DRY_RUN" = 1 ] || say "policy locked: $CONF lock = yes; users cannot switch the guard off" ;;
	esac
}

# Uninstall: a policy file install created, still as it wrote it, goes
# once no preload entry is left to read it; any other stays, lock = yes
# included (the admin's file, or one the admin has since edited).
policy_unlock() {
	[ -f "$CONF" ] && [ ! -L "$CONF" ] || return 0
	writer_needed
	# Is an entry left to read it?  (A dry run removes nothing: the entry
	# stays only where the preload layer is not asked for.)
	listed=0
	if has_entry && { [ "$DRY_RUN" = 0 ] || [ "$LAYER" = kernel ]; }; then listed=1; fi
	if [ "$listed" = 1 ]; then
		out=$(tree_edit --policy-drop-created --file "$(in_tree "$CONF")" --dry-run) || out=
	else
		out=$(tree_edit --policy-drop-created --file "$(in_tree "$CONF")") || die "$(edit_why "$out")"
	fi
	if [ "$listed" = 0 ] && [ "$(kv "$out" action)" = deleted ]; then
		if [ "$DRY_RUN" = 1 ]; then
			would "remove $CONF (install created it; unchanged since) once no preload entry is left"
		else
			say "uninstalled: removed $CONF (install created it; unchanged since)"
		fi
	elif [ "$(kv "$out" locked)" = true ]; then
		info "policy: $CONF left as it is, with lock = yes"
	fi
}
