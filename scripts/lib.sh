# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by scripts/quickstart and scripts/test: install what the build and
# the tests need (Debian 12 packages), then configure and build; and by
# scripts/build-deb, the package tests and tests/cli/format.sh: the files
# of the tree.
# shellcheck shell=bash

PMUGUARD_DEB_PACKAGES=(
	meson ninja-build pkg-config gcc libc6-dev
	libcriterion-dev libseccomp-dev libelf-dev
	linux-perf util-linux python3 golang-go
	debhelper dpkg-dev fakeroot rpm ansible-core valgrind shellcheck
	# the package suite's linters: lintian (pedantic), rpmlint, ansible-lint,
	# mandoc -T lint; python3-yaml for the SSM and cloud-init documents
	lintian rpmlint ansible-lint mandoc python3-yaml cpio
	# the Ansible role's apt module (package-ansible-package); inotifywait for
	# package-ansible-swap-refused's attacker, who swaps the copied .deb
	python3-apt inotify-tools
	clang-14 libclang-rt-14-dev
	# tests/cli/format.sh: .clang-format is written for clang-format 14
	clang-format-14
	# pmuguard enforce: libbpf, and bpftool for the skeleton (clang-14 above
	# compiles the BPF object)
	libbpf-dev bpftool
	# the vm suite (tests/vm): QEMU, the initramfs, the test PMU module's kbuild
	qemu-system-x86 busybox-static cpio make xz-utils linux-headers-amd64
	# promtool, for the shipped alerts' tests (tests/e2e/rules.sh)
	prometheus
	# the vm suite's matrix (tests/vm/prepare-suite.sh): each Debian suite's
	# tree, and a kernel's modules compressed with zstd
	debootstrap debian-archive-keyring zstd
	# containers: the agent's image (buildah), podman and runc in the
	# vm suite, node for the DaemonSet's schema check (npm: kubernetes-models)
	buildah podman runc nodejs
	# the cloud kernel's boots: its headers, ext4 images for the root and the job
	linux-headers-cloud-amd64 e2fsprogs
)

log() { printf '==> %s\n' "$*" >&2; }

# tree_files SRC: the files of the source tree SRC, relative to it and
# NUL-separated: what git knows (tracked, or untracked and not ignored),
# or, outside git, every file but the build outputs .gitignore lists (the
# build folders, and what an in-tree dpkg-buildpackage leaves).  What a
# package is built from (scripts/build-deb, the package suite's copies,
# tests/deb.sh's cache key).
tree_files() {
	if git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$1" ls-files -z --cached --others --exclude-standard
	else
		(cd "$1" && find . \( -path './build*' -o -path './obj-*' -o -path './debian/.debhelper' \
			-o -path './debian/pmuguard' -o -path './debian/tmp' -o -path './debian/files' \
			-o -path './debian/*.substvars' -o -path './debian/debhelper-build-stamp' \
			-o -path './debian/*.debhelper.log' -o -path './debian/*.debhelper' \) -prune \
			-o -type f -print0)
	fi
}

# copy_tree SRC DST: those files, copied into DST, with SRC's version in
# DST/.tarball-version (scripts/version: the copy has no git).  Where one
# cannot be copied (a file that vanished, a dangling link: often a build
# output that .gitignore does not list), it says which and why, and
# returns 1.
copy_tree() {
	local err
	mkdir -p "$2" || {
		printf '%s: cannot create %s to copy the tree %s into\n' "${0##*/}" "$2" "$1" >&2
		return 1
	}
	if ! err=$(tree_files "$1" | (cd "$1" && xargs -0 -r cp --parents -t "$2" 2>&1)); then
		printf '%s: cannot copy the tree %s into %s: %s (a build output that .gitignore should list?)\n' \
			"${0##*/}" "$1" "$2" "$(printf '%s' "$err" | sed -n "s/^cp: //p" | head -n 3 | paste -sd ';' -)" >&2
		return 1
	fi
	sh "$1/scripts/version" >"$2/.tarball-version" || {
		printf '%s: the tree %s has no version (scripts/version, above)\n' "${0##*/}" "$1" >&2
		return 1
	}
}

install_deps() {
	local missing=() p
	for p in "${PMUGUARD_DEB_PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || {
		vm_kernel_reachable
		return
	}
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
	vm_kernel_reachable
}

# The vm suite boots linux-image-<KVER>, the kernel linux-headers-amd64
# stands for: tests/vm/prepare.sh fetches it with `apt-get download` into the
# build tree and unpacks it (installing it would build an initramfs for
# nothing).  Make sure apt still has that version; if the archive moved on,
# refresh the lists and the headers with it.
vm_kernel_reachable() {
	local kver sudo=()
	kver=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		sed -nE 's/^linux-headers-([^ ,]+-amd64).*/\1/p')
	[ -n "$kver" ] || return 0 # not installed: the suite says so
	apt-cache show "linux-image-$kver" >/dev/null 2>&1 && return 0
	[ "$(id -u)" = 0 ] || sudo=(sudo)
	log "linux-image-$kver is gone from apt's lists: refreshing them and linux-headers-amd64"
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		linux-headers-amd64
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
