#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Does each ELF file run on every host of the fleet's range?  The command is
# one static binary (-Dportable=true: it needs nothing of a host but a
# kernel); the preload library imports nothing.  So: no NEEDED entry but
# libc.so.6 (and the loader), no symbol version of glibc above FLOOR
# (2.28: RHEL 8; Amazon Linux 2's 2.26 is past its end of support), no
# program interpreter for a static binary, and a kernel ABI note no newer
# than 3.2 (glibc's own floor).  readelf alone: what a host's loader reads.
#
#   portable-check.sh FLOOR ELF...      exit 0 every file passes; 1 and why
set -euo pipefail
floor=${1:?usage: portable-check.sh FLOOR ELF...}
shift
[ $# -gt 0 ] || { echo "portable-check: no file named" >&2; exit 2; }
command -v readelf >/dev/null || { echo "portable-check: readelf (binutils) is needed" >&2; exit 2; }
# ver_gt A B: is version A above B (dotted numbers)?
ver_gt() { [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -n 1)" = "$1" ]; }
bad=0
for f in "$@"; do
	why=()
	readelf -h "$f" >/dev/null 2>&1 || { echo "$f: not an ELF file"; bad=1; continue; }
	needed=$(readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	for n in $needed; do
		case $n in libc.so.6 | ld-linux-x86-64.so.2 | ld-linux-aarch64.so.1) ;; *) why+=("needs $n") ;; esac
	done
	# The highest GLIBC_x.y it requires (.gnu.version_r), not those it defines.
	top=$(readelf -V "$f" 2>/dev/null | awk '/Version needs section/ { r = 1 } /Version definition section/ { r = 0 }
		r && match($0, /Name: GLIBC_[0-9.]+/) { print substr($0, RSTART + 12, RLENGTH - 12) }' | sort -V | tail -n 1)
	if [ -n "$top" ] && ver_gt "$top" "$floor"; then why+=("requires GLIBC_$top, above the floor $floor"); fi
	interp=$(readelf -l "$f" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	abi=$(readelf -n "$f" 2>/dev/null | sed -n 's/.*OS: Linux, ABI: \([0-9.]*\).*/\1/p' | head -n 1)
	if [ -n "$abi" ] && ver_gt "$abi" 3.2.0; then why+=("its ABI note asks for Linux $abi"); fi
	if [ -n "$needed" ]; then
		kind="needs $(printf '%s' "$needed" | tr '\n' ' ')${top:+, GLIBC_$top at most}"
	elif [ -n "$interp" ]; then
		kind="loaded by $interp, no library"
	else
		kind="no library, no interpreter"
	fi
	if [ ${#why[@]} -gt 0 ]; then
		printf '%s: %s\n' "$f" "$(IFS=';'; echo "${why[*]}")"
		bad=1
	else
		printf '%s: portable (%s)\n' "$f" "$kind"
	fi
done
exit "$bad"
