#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fleet, kills and races: the installer killed before and after each external
# command it runs (also through a link), and concurrent installs and
# uninstalls watched by a reader: the file is always whole.
# The sandbox and helpers: lib.sh here.
#
#   interrupt.sh CASE        exit 0 pass, 1 fail, 77 skip;  interrupt.sh --list
set -euo pipefail
# shellcheck source=tests/e2e/fleet/lib.sh
. "$(dirname "$0")/lib.sh"

case $case_name in
interrupted-install-leaves-a-valid-file | interrupted-install-through-a-link-leaves-a-valid-file)
	# No hook in the product: every external command the script runs (cat,
	# cp, mv, mktemp, sync, ...) is a wrapper on PATH that counts itself and
	# kills the script's whole process group with SIGKILL just before, or
	# just after, its Nth call, for every N until a run completes.  Each
	# kill must leave ld.so.preload as it was or fully changed, and the next
	# run must clean up and finish the job.  The second case does the same
	# where /etc/ld.so.preload is a link to a file configuration management
	# owns (srv/cm/ld.so.preload): that file is edited, the link is kept.
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard" "$tmp/bin"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	file=$root/etc/ld.so.preload
	dirs=$root/etc
	if [ "$case_name" = interrupted-install-through-a-link-leaves-a-valid-file ]; then
		mkdir -p "$root/srv/cm"
		: >"$root/srv/cm/ld.so.preload"
		ln -s ../srv/cm/ld.so.preload "$root/etc/ld.so.preload"
		file=$root/srv/cm/ld.so.preload
		dirs="$root/etc $root/srv/cm"
	fi
	entry=/usr/lib/pmuguard/libpmuguard.so
	printf '# site\n/usr/lib/libkeep.so\n' >"$tmp/orig"
	{ echo "$entry"; cat "$tmp/orig"; } >"$tmp/installed"
	for c in cat chmod cp flock grep mkdir mktemp mv readlink rm sed stat sync; do
		real=$(command -v "$c") || fail "no $c"
		cat >"$tmp/bin/$c" <<SH
#!/bin/sh
read -r n <"$tmp/count" || n=0
n=\$((n + 1))
echo "\$n" >"$tmp/count"
[ "\$n" != "\$KILL_BEFORE" ] || kill -9 0
"$real" "\$@"
rc=\$?
[ "\$n" != "\$KILL_AFTER" ] || kill -9 0
exit \$rc
SH
		chmod 755 "$tmp/bin/$c"
	done
	# trial OP FROM-FILE BEFORE|AFTER N: 0 if the run completed uninterrupted.
	trial() {
		cp "$3" "$file"
		echo 0 >"$tmp/count"
		set +e
		env PATH="$tmp/bin:$PATH" "KILL_$1=$4" PMUGUARD_SNAPSHOT="$M6I" \
			setsid -w "$FLEET" "$2" --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1
		r=$?
		set -e
		[ "$r" = 0 ] && [ "$(cat "$tmp/count")" -lt "$4" ]
	}
	# The link, where there is one, is never replaced.
	link_kept() {
		[ "$file" = "$root/etc/ld.so.preload" ] ||
			[ "$(readlink "$root/etc/ld.so.preload")" = ../srv/cm/ld.so.preload ]
	}
	# shellcheck disable=SC2086 # $dirs is a list of paths without spaces
	temporaries() { find $dirs -maxdepth 1 \( -name '*pmuguard-new*' -o -name '*bak.new*' \); }
	kills=0
	for op in install uninstall; do
		if [ $op = install ]; then from=$tmp/orig to=$tmp/installed; else from=$tmp/installed to=$tmp/orig; fi
		for when in BEFORE AFTER; do
			n=1
			until trial "$when" "$op" "$from" "$n"; do
				if ! cmp -s "$file" "$from" && ! cmp -s "$file" "$to"; then
					fail "$op killed $when external command $n: ld.so.preload is neither the old file nor the new one"
				fi
				link_kept || fail "$op killed $when external command $n: the link was replaced"
				[ "$(stat -c %a "$file")" = 644 ] || fail "$op killed at $n: the file is not 0644"
				kills=$((kills + 1))
				# The next run, uninterrupted, cleans up and finishes the job.
				PMUGUARD_SNAPSHOT=$M6I "$FLEET" "$op" --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out" 2>&1 ||
					fail "$op after a kill at $n failed"
				cmp -s "$file" "$to" || fail "$op after a kill at $n: the file is not as it should be"
				link_kept || fail "$op after a kill at $n: the link was replaced"
				[ -z "$(temporaries)" ] || fail "$op after a kill at $n: a temporary was left: $(temporaries)"
				n=$((n + 1))
				[ "$n" -lt 200 ] || fail "$op never completed"
			done
			cmp -s "$file" "$to" || fail "$op: an uninterrupted run did not finish the job"
			link_kept || fail "$op: the link was replaced"
			ok "$op killed before/after each of its $((n - 1)) external commands ($when): the file is always whole"
		done
	done
	[ "$kills" -ge 20 ] || fail "only $kills kill points: the wrappers did not see the script's steps"
	[ -z "$(temporaries)" ] || fail "a stale temporary file was left"
	;;
concurrent-installs-never-lose-an-entry)
	# 40 trials of three concurrent install/uninstall runs on a file that
	# other products' entries share, while a reader watches the file: no
	# entry of theirs is ever missing, ours is never listed twice, and no
	# temporary is left.  (Without the lock, 9 of 40 such trials lost an
	# entry.)
	root=$tmp/root
	mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
	cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
	entry=/usr/lib/pmuguard/libpmuguard.so
	printf '# other products\n/usr/lib/libother.so\n/opt/agent/libagent.so\n' >"$tmp/orig"
	export PMUGUARD_SNAPSHOT=$M6I
	ops=(install uninstall)
	for t in $(seq 40); do
		if [ $((t % 2)) = 0 ]; then cp "$tmp/orig" "$root/etc/ld.so.preload"; else
			{ echo "$entry"; cat "$tmp/orig"; } >"$root/etc/ld.so.preload"; fi
		: >"$tmp/seen"
		(while [ ! -e "$tmp/stop" ]; do
			if [ -e "$root/etc/ld.so.preload" ]; then
				grep -c -x -e /usr/lib/libother.so -e /opt/agent/libagent.so "$root/etc/ld.so.preload" >>"$tmp/seen" || echo 0 >>"$tmp/seen"
			else echo absent >>"$tmp/seen"; fi
		done) &
		reader=$!
		pids=()
		for k in 0 1 2; do
			"$FLEET" "${ops[$(((t + k * (t / 2)) % 2))]}" --root "$root" --pmuguard "$PMUGUARD" >"$tmp/out.$k" 2>&1 &
			pids+=($!)
		done
		for k in 0 1 2; do wait "${pids[$k]}" || { cat "$tmp/out.$k" >"$tmp/out"; fail "trial $t: run $k failed"; }; done
		touch "$tmp/stop"
		wait "$reader"
		rm -f "$tmp/stop"
		n=$(grep -cxF "$entry" "$root/etc/ld.so.preload" || true)
		[ "$n" -le 1 ] || fail "trial $t: our entry is listed $n times"
		grep -vxF "$entry" "$root/etc/ld.so.preload" | cmp -s - "$tmp/orig" || fail "trial $t: another product's entry was lost or changed"
		! grep -vx 2 "$tmp/seen" | grep -q . || fail "trial $t: a reader saw the file without every other entry: $(sort -u "$tmp/seen" | tr '\n' ' ')"
		[ -z "$(find "$root/etc" -name '*pmuguard-new*')" ] || fail "trial $t: a temporary was left"
	done
	ok "40 trials of 3 concurrent installs/uninstalls: no entry lost or duplicated, every read whole"
	;;
esac
fleet_case_done
