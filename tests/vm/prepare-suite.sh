#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# One row's kernel and userland for the vm suite's matrix (matrix.sh): a
# Debian suite's tree, its kernel, and the test PMU module built for that
# kernel by that suite's own compiler (tests/vm/README.md, "The matrix").
#
#   prepare-suite.sh CACHE SUITE
#
#   CACHE/SUITE/root/      debootstrap --variant=minbase of SUITE, with
#                          linux-headers-amd64 (its kbuild and gcc), make,
#                          linux-perf and python3: the build chroot of the
#                          module, and the userland the row's processes run
#                          in (its glibc, its loader, its perf)
#   CACHE/SUITE/apt/       a private apt configuration for SUITE (its own
#                          sources list, lists and cache; the archive
#                          keyring this machine has): nothing of the host's
#                          apt state changes
#   CACHE/SUITE/kernel/    linux-image-<KVER> unpacked (never installed):
#                          vmlinuz, vmlinux, the initramfs's modules
#   CACHE/SUITE/initrd.cpio, testpmu/pmuguard_testpmu.ko
#   CACHE/SUITE/vm.env     KVER, KERNEL, INITRD, TESTPMU, FLAVOR, TREE for
#                          vm.sh and matrix.sh
#
# The work is done once, under a lock (several tests may call it): a
# fresh machine downloads about 400 MB per suite.  Exit 0 ready, 77 when
# this host cannot (the reason on stdout), 1 on a failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/kernel.sh
. "$here/kernel.sh"
cache=${1:?usage: prepare-suite.sh CACHE SUITE}
suite=${2:?usage: prepare-suite.sh CACHE SUITE}
mirror=${PMUGUARD_VM_MIRROR:-http://deb.debian.org/debian}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

cant() {
	echo "$*"
	exit 77
}
[ "$(id -u)" = 0 ] || cant "needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null || cant "debootstrap is missing (Debian package debootstrap)"
command -v qemu-system-x86_64 >/dev/null || cant "qemu-system-x86_64 is missing (Debian package qemu-system-x86)"
[ -f "$keyring" ] || cant "$keyring is missing (Debian package debian-archive-keyring)"
case $suite in bullseye | bookworm | trixie | forky | sid) ;; *) echo "prepare-suite.sh: unknown suite $suite" >&2; exit 2 ;; esac

mkdir -p "$cache/$suite"
c=$(cd "$cache/$suite" && pwd)
exec 9>"$c/.lock"
flock 9
log=$c/prepare.log
: >"$log"
step() { # WHAT CMD...: run CMD, its output in the log; a failure ends here
	echo "== $1" >>"$log"
	shift
	"$@" >>"$log" 2>&1 || {
		tail -n 20 "$log"
		echo "prepare-suite.sh $suite: failed (the whole log: $log)"
		exit 1
	}
}

# A private apt configuration for SUITE.
apt_=(apt-get -q -o "Dir::Etc::SourceList=$c/apt/sources.list" -o Dir::Etc::SourceParts=-
	-o "Dir::State::Lists=$c/apt/lists" -o "Dir::Cache=$c/apt/cache"
	-o Dir::State::status=/dev/null -o APT::Architecture=amd64)
if [ ! -f "$c/apt/.ready" ]; then
	mkdir -p "$c/apt/lists/partial" "$c/apt/cache/archives/partial"
	echo "deb [signed-by=$keyring] $mirror $suite main" >"$c/apt/sources.list"
	step "apt-get update ($suite, private)" "${apt_[@]}" update
	touch "$c/apt/.ready"
fi

# The tree: debootstrap, then the packages the row needs.
root=$c/root
if [ ! -f "$root/.ready" ]; then
	rm -rf "$root"
	step "debootstrap $suite" debootstrap --variant=minbase --keyring="$keyring" \
		--include=linux-headers-amd64,make,linux-perf,python3,kmod "$suite" "$root" "$mirror"
	touch "$root/.ready"
fi

dep=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Depends}' linux-headers-amd64)
kver=$(sed -nE 's/^(.*, )?linux-headers-([^ ,]+-amd64).*/\2/p' <<<"$dep")
[ -n "$kver" ] || { echo "cannot tell $suite's kernel version from linux-headers-amd64 ($dep)"; exit 1; }

# The kernel, unpacked; the initramfs's modules where they are modules
# (a kernel that builds one in needs none).
mods=(drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_modern_dev
	drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci fs/netfs/netfs
	fs/fscache/fscache net/9p/9pnet net/9p/9pnet_virtio fs/9p/9p fs/overlayfs/overlay)
kdir=$c/kernel/$kver
kernel=$kdir/vmlinuz-$kver
if [ ! -f "$kernel" ]; then
	rm -rf "$c/kernel" "$c/deb"
	mkdir -p "$c/deb" "$kdir/modules"
	# From 7.x Debian splits the image: the kernel in linux-binary-, the
	# modules in linux-modules-, the config in linux-base-.
	pkgs=("linux-image-$kver")
	for p in binary modules base; do
		if "${apt_[@]/apt-get/apt-cache}" show "linux-$p-$kver" >/dev/null 2>&1; then
			pkgs+=("linux-$p-$kver")
		fi
	done
	# shellcheck disable=SC2016 # the inner shell's arguments
	step "apt-get download ${pkgs[*]}" sh -c 'cd "$1" && shift && "$@"' _ "$c/deb" "${apt_[@]}" download "${pkgs[@]}"
	for deb in "$c"/deb/*.deb; do
		step "dpkg -x ${deb##*/}" dpkg -x "$deb" "$c/deb/x"
	done
	for m in "${mods[@]}"; do
		f=
		for g in "$c"/deb/x/lib/modules/"$kver"/kernel/"$m".ko* "$c"/deb/x/usr/lib/modules/"$kver"/kernel/"$m".ko*; do
			if [ -f "$g" ]; then f=$g && break; fi
		done
		[ -n "$f" ] || continue
		case $f in
		*.ko.xz) xz -dc "$f" >"$kdir/modules/${m##*/}.ko" ;;
		*.ko.zst) zstd -qdc "$f" >"$kdir/modules/${m##*/}.ko" ;;
		*) cp "$f" "$kdir/modules/" ;;
		esac
	done
	# boot/config-KVER and boot/vmlinuz-KVER, or (7.x) the same in
	# lib/modules/KVER/ as config and vmlinuz.
	x=$c/deb/x
	config='' vmlinuz=
	for d in "$x/boot" "$x/usr/lib/modules/$kver" "$x/lib/modules/$kver"; do
		for f in "$d/config-$kver" "$d/config"; do [ -f "$config" ] || [ ! -f "$f" ] || config=$f; done
		for f in "$d/vmlinuz-$kver" "$d/vmlinuz"; do [ -f "$vmlinuz" ] || [ ! -f "$f" ] || vmlinuz=$f; done
	done
	[ -f "$kdir/modules/9p.ko" ] || grep -q '^CONFIG_9P_FS=y' "$config" ||
		{ echo "$suite's kernel $kver has no 9p"; exit 1; }
	[ -n "$vmlinuz" ] || { echo "no vmlinuz-$kver in ${pkgs[*]}"; exit 1; }
	cp "$vmlinuz" "$kernel.tmp"
	mv "$kernel.tmp" "$kernel"
	rm -rf "$c/deb"
fi
vmlinux=$kdir/vmlinux-$kver
kernel=$(vmlinux_of "$kernel" "$vmlinux")
initrd=$c/initrd.cpio
initrd_of "$initrd" "$kernel" "$kdir/modules" generic

# The test PMU module, by the suite's own kbuild and compiler, in its tree.
pmu=$c/testpmu
ko=$pmu/pmuguard_testpmu.ko
if [ ! -f "$ko" ] || [ "$here/pmu/pmuguard_testpmu.c" -nt "$ko" ] || [ "$kernel" -nt "$ko" ]; then
	rm -rf "$pmu" "$root/build"
	mkdir -p "$root/build/testpmu" "$pmu"
	cp "$here/pmu/pmuguard_testpmu.c" "$here/pmu/Kbuild" "$root/build/testpmu/"
	# objtool (7.x) reads /proc: mounted in a mount namespace of the
	# build's own, gone with it however it ends.
	# shellcheck disable=SC2016 # the inner shell's arguments
	step "kbuild of the test PMU for $kver" unshare -m --propagation private sh -c \
		'mount -t proc proc "$1/proc" && exec chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin make -s -C "/usr/src/linux-headers-$2" M=/build/testpmu modules' \
		_ "$root" "$kver"
	if sed -n '/^== kbuild/,$p' "$log" | grep -E 'warning:|error:'; then
		echo "the test PMU module does not build cleanly for $kver"
		exit 1
	fi
	cp "$root/build/testpmu/pmuguard_testpmu.ko" "$ko"
	rm -rf "$root/build"
fi

cat >"$c/vm.env.tmp" <<EOF
KVER=$kver
KERNEL=$kernel
INITRD=$initrd
TESTPMU=$ko
GOPEO=
FLAVOR=generic
TREE=$root
EOF
mv "$c/vm.env.tmp" "$c/vm.env"
