#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The root of a boot on the cloud flavor (tests/vm/README.md): an ext4
# image holding busybox (every applet, /bin/sh included), the programs
# named with --bin and the libraries ldd says they load, and the files
# and directories named, each at its host path, so that a job runs
# exactly as on the 9p root.  mkfs.ext4 -d fills it; nothing is mounted.
#
#   rootimg.sh IMAGE [--bin PROGRAM]... [PATH]...
set -euo pipefail
img=${1:?usage: rootimg.sh IMAGE [--bin PROGRAM]... [PATH]...}
shift
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,run,etc,root,lib64}
install -d -m 1777 "$stage/tmp"
cp /bin/busybox "$stage/bin/busybox"
for a in $(/bin/busybox --list); do
	[ -e "$stage/bin/$a" ] || ln -s busybox "$stage/bin/$a"
done
ln -s /bin/busybox "$stage/usr/bin/env"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$stage/etc/group"

put() { # a file at its host path, links resolved
	mkdir -p "$stage$(dirname "$1")"
	cp -L "$1" "$stage$1"
}
while [ $# -gt 0 ]; do
	if [ "$1" = --bin ]; then
		put "$2"
		# "libx.so => /path (0x...)" and the loader's "/lib64/ld-... (0x...)"
		for l in $(ldd "$2" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
			put "$l"
		done
		shift 2
	else
		mkdir -p "$stage$(dirname "$1")"
		cp -a "$1" "$stage$1"
		shift
	fi
done
mb=$(($(du -sm "$stage" | cut -f1) + 32))
rm -f "$img"
mkfs.ext4 -q -d "$stage" "$img" "${mb}M" >/dev/null
