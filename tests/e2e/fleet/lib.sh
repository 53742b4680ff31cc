# SPDX-License-Identifier: GPL-2.0-or-later
#
# Fleet mitigation, end to end: /etc/ld.so.preload read by the real dynamic
# loader, /etc/pmuguard.conf read by the real shim, blocks reported to a
# syslog listener, all inside a private mount namespace whose /etc and /dev
# are overlays (../sandbox.sh): the machine's own files are never touched.
#
# Sourced by each tests/e2e/fleet/CONCERN.sh, a `case $case_name in` of its
# own cases; it ends with fleet_case_done.  CONCERN.sh --list names them.
#   CONCERN.sh CASE      exit 0 pass, 1 fail, 77 skip
# shellcheck shell=bash
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib.sh"
if [ "${1:-}" = --list ]; then list_cases "$0" case_name; exit 0; fi
: "${PMUGUARD:?}" "${FAULTSIM:?}" "${FIXTURES:?}" "${LIB:?}" "${FLEET:?}" "${PEO_DYN:?}"
# tests/e2e: sandbox.sh, in-world.sh, schema-check.py and the stand-ins.
here=$(cd "$(dirname "$0")/.." && pwd)
case_name=${1:?usage: $0 CASE}

[ "$(id -u)" = 0 ] || skip "needs root for a private mount namespace"
unshare -m true 2>/dev/null || skip "unshare -m is not permitted here"
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || true
grep -qw overlay /proc/filesystems || skip "no overlayfs for the /etc sandbox"
command -v python3 >/dev/null || skip "python3 is needed for the syslog listener"

# The machine's own files, to prove at the end that no case touched them
# (and that no case left the installer's lock directory in its /run).
# (A directory there, such as a /run/pmuguard some other run left, is
# listed, not hashed: it must not end the suite with no word under set -e.)
real_state() { for f in /etc/ld.so.preload /etc/pmuguard.conf /dev/log /run/pmuguard; do
	if [ -e "$f" ]; then
		ls -ld "$f"
		if [ -f "$f" ]; then sha256sum "$f"; fi
	else
		echo "$f absent"
	fi
done; }
real_before=$(real_state)

# Directories the cases make are writable by their owner only, as the
# installer wants of every directory a lock or a link goes through.
umask 022
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
M6I=$FIXTURES/m6i-16xlarge
# shellcheck disable=SC2034 # the cases' (kernel-layer.sh, lock.sh)
ICX=$FIXTURES/icx-8375c-metal
export PMUGUARD_LOG=warn

# sandbox CMD...: run CMD in the overlay sandbox; sets rc; output in $tmp/{out,err}.
# /run is a private tmpfs with the machine's /run mode, so that the
# installer's lock directory (/run/pmuguard) is never made in the machine's
# /run (sandbox.sh makes /run/lock private in the same way).
sandbox() {
	set +e
	# shellcheck disable=SC2016 # $1 and $@ are the inner shell's
	unshare -m -- bash -c 'mount --make-rprivate / && mount -t tmpfs -o "mode=$1" tmpfs /run && shift && exec "$@"' \
		_ "$(stat -c %a /run)" "$here/sandbox.sh" "$tmp/sb" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	set -e
	cp "$tmp/sb/syslog" "$tmp/syslog" 2>/dev/null || : >"$tmp/syslog"
}
mkdir -p "$tmp/sb"
etc() { echo "$tmp/sb/etc-up"; } # what the sandbox's /etc gained

fleet() { "$FLEET" "$@" --lib "$LIB" --pmuguard "$PMUGUARD"; }
# The sandbox's /etc/pmuguard.conf pins the m6i's facts, as a real m6i's
# are its live ones: install locks the policy, and a locked policy ignores
# PMUGUARD_SNAPSHOT, so the environment no longer stands in for the host
# once it is installed.
m6i_host() { mkdir -p "$(etc)" && printf 'snapshot = %s\n' "$M6I" >"$(etc)/pmuguard.conf"; }

# fleet_case_done: after the case's arm, what every case must leave true.
fleet_case_done() {
	# Every status document a case made is what the shipped schema says.
	docs=$(find "$tmp" -name '*.json' -type f 2>/dev/null)
	if [ -n "${PMUGUARD_COLLECT_JSON:-}" ]; then
		for d in $docs; do cp "$d" "$PMUGUARD_COLLECT_JSON/$case_name-$(basename "$d")"; done
	fi
	if [ -n "$docs" ] && [ -f "$here/../../probe/doc/schema/status.schema.json" ]; then
		# shellcheck disable=SC2086 # the paths, split
		python3 "$here/schema-check.py" "$here/../../probe/doc/schema" $docs >"$tmp/schema.out" ||
			[ $? = 77 ] || fail "a status document is not what its schema says: $(cat "$tmp/schema.out")"
	fi
	[ "$(real_state)" = "$real_before" ] || fail "the machine's own /etc or /dev/log changed"
	echo "PASS: $case_name"
}
