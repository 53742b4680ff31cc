# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by scripts/quickstart and scripts/test: install what the build and
# the tests need (Debian 12 packages), then configure and build.
# shellcheck shell=bash

PMUGUARD_DEB_PACKAGES=(
	meson ninja-build pkg-config gcc libc6-dev
	libcriterion-dev libseccomp-dev libelf-dev
	linux-perf util-linux python3 golang-go
	debhelper dpkg-dev fakeroot rpm ansible-core valgrind shellcheck
	clang-14 libclang-rt-14-dev
	libbpf-dev bpftool
	qemu-system-x86 busybox-static linux-headers-amd64 cpio xz-utils
)

log() { printf '==> %s\n' "$*" >&2; }

install_deps() {
	local missing=() p
	for p in "${PMUGUARD_DEB_PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	local sudo=()
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null || {
			log "missing packages: ${missing[*]}; run as root or install them"
			return 1
		}
		sudo=(sudo)
	fi
	log "installing ${missing[*]}"
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}"
}

# build BUILDDIR [meson options...]
build() {
	local dir=$1
	shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$@"
	else
		meson configure "$dir" "$@" >/dev/null
	fi
	ninja -C "$dir"
}
