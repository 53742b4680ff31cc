# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by prepare.sh and prepare-suite.sh: the two steps every kernel of
# the vm suite takes after it is unpacked, written once.
# shellcheck shell=bash

# vmlinux_of KERNEL VMLINUX: the kernel uncompressed, which QEMU starts
# through its PVH entry (CONFIG_PVH): TCG spends about 5 s of each boot
# unpacking a bzImage otherwise.  Debian compresses it with xz up to 6.1
# and zstd since; where neither tool is there, or no PVH note is found,
# nothing is written and the bzImage boots.  Prints the one to boot.
vmlinux_of() {
	local kernel=$1 vmlinux=$2 z tool magic off
	if [ ! -f "$vmlinux" ]; then
		for z in xz:$'\xfd7zXZ' zstd:$'\x28\xb5\x2f\xfd'; do
			tool=${z%%:*} magic=${z#*:}
			command -v "$tool" >/dev/null || continue
			off=$(LC_ALL=C grep -abo "$magic" "$kernel" | head -n 1 | cut -d: -f1) || off=
			[ -n "$off" ] || continue
			tail -c +$((off + 1)) "$kernel" | "$tool" -dc >"$vmlinux.tmp" 2>/dev/null || true
			if readelf -n "$vmlinux.tmp" 2>/dev/null | grep -q Xen; then
				mv "$vmlinux.tmp" "$vmlinux"
				break
			fi
			rm -f "$vmlinux.tmp"
		done
	fi
	if [ -f "$vmlinux" ]; then echo "$vmlinux"; else echo "$kernel"; fi
}

# initrd_of INITRD KERNEL MODULES_DIR FLAVOR: the initramfs (busybox-static,
# tests/vm/init, the kernel's modules that the init loads, the flavor),
# rebuilt when init or the kernel is newer than it.
initrd_of() {
	local initrd=$1 kernel=$2 mods=$3 flavor=$4 d here
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	if [ -f "$initrd" ] && [ ! "$here/init" -nt "$initrd" ] && [ ! "$kernel" -nt "$initrd" ]; then
		return 0
	fi
	d=$initrd.d
	rm -rf "$d"
	mkdir -p "$d/bin" "$d/modules"
	cp /bin/busybox "$d/bin/busybox"
	ln -s busybox "$d/bin/sh"
	cp "$here/init" "$d/init"
	chmod 0755 "$d/init"
	cp "$mods"/*.ko "$d/modules/" 2>/dev/null || :
	echo "$flavor" >"$d/flavor"
	(cd "$d" && find . | cpio -o -H newc --quiet) >"$initrd.tmp"
	mv "$initrd.tmp" "$initrd"
	rm -rf "$d"
}
