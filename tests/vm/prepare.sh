#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Fill the VM test bed's cache once (tests/vm/README.md):
#
#   prepare.sh CACHE [generic|cloud]
#
# cloud: Debian's cloud kernel (linux-image-cloud-amd64, the kernel of
# Debian's AMIs) instead, in CACHE/cloud.  It has no 9p (CONFIG_NET_9P is
# unset), so its initramfs carries virtio-blk instead: the root comes as an
# ext4 image (built in; tests/vm/vm.sh VM_ROOTIMG), the job directory as a
# second one.
#
#   CACHE/kernel/    Debian's linux-image-<KVER> unpacked with dpkg -x (never
#                    installed: that would build an initramfs for nothing);
#                    KVER is the version linux-headers-amd64 depends on; its
#                    vmlinuz, and the vmlinux inside it for a faster boot
#   CACHE/initrd.cpio busybox-static, tests/vm/init and the virtio/9p/overlay
#                    modules of that kernel
#   CACHE/testpmu/   pmuguard_testpmu.ko, built by kbuild against
#                    linux-headers-<KVER>
#   CACHE/gopeo      tests/targets/peo.go built (when Go is installed)
#   CACHE/vm.env     KVER, KERNEL, INITRD, TESTPMU, GOPEO for vm.sh
#
# Several tests call it at once: the first does the work under a lock, the
# others reuse it.  Exit 0 ready, 77 when this host cannot run the VM (the
# reason on stdout), 1 on a failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/kernel.sh
. "$here/kernel.sh"
cache=${1:?usage: prepare.sh CACHE [generic|cloud]}
flavor=${2:-generic}
case $flavor in
generic) headers=linux-headers-amd64 ;;
cloud) headers=linux-headers-cloud-amd64 cache=$cache/cloud ;;
*) echo "prepare.sh: flavor is generic or cloud, not $flavor" >&2; exit 2 ;;
esac

cant() {
	echo "$*"
	exit 77
}

[ "$(id -u)" = 0 ] || cant "needs root (the kernel image is fetched with apt-get; QEMU shares / read-only)"
command -v qemu-system-x86_64 >/dev/null || cant "qemu-system-x86_64 is missing (Debian package qemu-system-x86)"
if [ ! -x /bin/busybox ] || readelf -l /bin/busybox 2>/dev/null | grep -q INTERP; then
	cant "a static /bin/busybox is missing (Debian package busybox-static)"
fi
command -v cpio >/dev/null || cant "cpio is missing (Debian package cpio)"
dep=$(dpkg-query -W -f='${Depends}' $headers 2>/dev/null) ||
	cant "$headers is not installed (scripts/lib.sh install_deps installs it)"
kver=$(sed -nE 's/^linux-headers-([^ ,]+-amd64).*/\1/p' <<<"$dep")
[ -n "$kver" ] || cant "cannot tell the kernel version from $headers ($dep)"
if [ "$flavor" = cloud ] && ! { command -v mkfs.ext4 && command -v debugfs; } >/dev/null; then
	cant "mkfs.ext4 and debugfs are missing (Debian package e2fsprogs)"
fi
kbuild=/usr/src/linux-headers-$kver
[ -f "$kbuild/Makefile" ] || cant "$kbuild is missing (Debian package linux-headers-$kver)"
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

exec 9>"$cache/.lock"
flock 9

# The kernel image, unpacked; only vmlinuz and the modules the initramfs
# needs are kept.
mods=(drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_modern_dev
	drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci fs/netfs/netfs
	fs/fscache/fscache net/9p/9pnet net/9p/9pnet_virtio fs/9p/9p fs/overlayfs/overlay)
[ "$flavor" = generic ] ||
	mods=(drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_modern_dev
		drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci drivers/block/virtio_blk
		fs/overlayfs/overlay)
kdir=$cache/kernel/$kver
kernel=$kdir/vmlinuz-$kver
if [ ! -f "$kernel" ]; then
	rm -rf "$cache/kernel" "$cache/deb"
	mkdir -p "$cache/deb" "$kdir/modules"
	(cd "$cache/deb" && apt-get download -q "linux-image-$kver" 2>&1) >"$cache/apt.log" ||
		cant "apt-get download linux-image-$kver failed: $(tail -n 3 "$cache/apt.log")"
	dpkg -x "$cache"/deb/linux-image-"$kver"_*.deb "$cache/deb/x"
	for m in "${mods[@]}"; do
		cp "$cache/deb/x/lib/modules/$kver/kernel/$m.ko" "$kdir/modules/" ||
			cant "$m.ko is not in linux-image-$kver"
	done
	cp "$cache/deb/x/boot/vmlinuz-$kver" "$kernel.tmp"
	mv "$kernel.tmp" "$kernel"
	rm -rf "$cache/deb"
fi
vmlinux=$kdir/vmlinux-$kver
kernel=$(vmlinux_of "$kernel" "$vmlinux")
initrd=$cache/initrd.cpio
initrd_of "$initrd" "$kernel" "$kdir/modules" "$flavor"

# The test PMU module: kbuild writes next to the sources, so build a copy.
pmu=$cache/testpmu
ko=$pmu/pmuguard_testpmu.ko
if [ ! -f "$ko" ] || [ "$here/pmu/pmuguard_testpmu.c" -nt "$ko" ] || [ "$kernel" -nt "$ko" ]; then
	rm -rf "$pmu"
	mkdir -p "$pmu"
	cp "$here/pmu/pmuguard_testpmu.c" "$here/pmu/Kbuild" "$pmu/"
	make -s -C "$kbuild" M="$pmu" modules >"$cache/kbuild.log" 2>&1 || {
		cat "$cache/kbuild.log"
		echo "kbuild of the test PMU module failed"
		exit 1
	}
	if grep -E 'warning:|error:' "$cache/kbuild.log"; then
		echo "the test PMU module does not build cleanly"
		rm -f "$ko"
		exit 1
	fi
fi

# The Go target (optional: the Go case skips without it).
gopeo=
if [ "$flavor" = generic ] && command -v go >/dev/null; then
	gopeo=$cache/gopeo
	if [ ! -x "$gopeo" ] || [ "$here/../targets/peo.go" -nt "$gopeo" ]; then
		(cd "$cache" && CGO_ENABLED=0 GOCACHE=$cache/gocache GOPATH=$cache/gopath HOME=$cache \
			GOFLAGS=-mod=mod go build -o "$gopeo" "$here/../targets/peo.go") >"$cache/go.log" 2>&1 ||
			{ cat "$cache/go.log"; echo "go build of tests/targets/peo.go failed"; exit 1; }
	fi
fi

cat >"$cache/vm.env.tmp" <<EOF
KVER=$kver
KERNEL=$kernel
INITRD=$initrd
TESTPMU=$ko
GOPEO=$gopeo
FLAVOR=$flavor
EOF
mv "$cache/vm.env.tmp" "$cache/vm.env"
