#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The node agent's OCI image, built offline from what the project built:
# FROM scratch with the pmuguard command (the portable build alone; a
# dynamic one with the libraries it links and the loader), pmuguard's
# licence and the copyright file of each Debian package whose code it
# holds, nothing else (no shell, no package manager).  Its entrypoint is `pmuguard enforce agent`
# (deploy/kubernetes/README.md).
#
#   deploy/image/build.sh [BUILD_DIR] [OUT.tar]
#
# Reproducible: the image's created time, its label and every file's
# mtime are SOURCE_DATE_EPOCH (default: the last commit's time), so two
# builds of one tree give one digest.  Labelled with the OCI annotations
# source (PMUGUARD_IMAGE_SOURCE, default git's origin URL; never a local
# path or credentials: "unknown" then), revision
# (git rev-parse HEAD, "-dirty" where tracked files changed), version,
# licenses (of everything in it) and created.
#
# Writes an OCI archive (default BUILD_DIR/pmuguard-agent.oci.tar, image
# name localhost/pmuguard-agent:VERSION) that `podman load -i`, `skopeo
# copy oci-archive:...` or `ctr images import` take.  Uses buildah with
# storage of its own under a temporary directory: the machine's container
# storage is never touched.  Exit 77 where buildah is not installed
# (Debian package buildah; scripts/lib.sh install_deps installs it).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
out=${2:-$build/pmuguard-agent.oci.tar}
bin=$build/probe/cli/pmuguard
[ -x "$bin" ] || { echo "$0: $bin is not built (meson compile -C $build)" >&2; exit 1; }
command -v buildah >/dev/null || { echo "$0: buildah is not installed (apt-get install buildah)" >&2; exit 77; }
"$bin" enforce --help >/dev/null 2>&1 || {
	echo "$0: $bin was built without enforce: the agent image needs it" >&2
	exit 1
}
version=$("$bin" --version | awk '{print $2}')
git_in() { git -C "$src" "$@" 2>/dev/null; }
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git_in log -1 --format=%ct) || {
		echo "$0: not a git checkout: set SOURCE_DATE_EPOCH (the image's time, seconds since 1970)" >&2
		exit 1
	}
fi
case $SOURCE_DATE_EPOCH in '' | *[!0-9]*)
	echo "$0: SOURCE_DATE_EPOCH='$SOURCE_DATE_EPOCH' is not a number of seconds" >&2
	exit 1
	;;
esac
created=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
revision=$(git_in rev-parse HEAD) || revision=unknown
if [ "$revision" != unknown ] && ! git_in diff --quiet HEAD --; then revision=$revision-dirty; fi
# public_url URL: the URL as others can fetch it (an http(s) URL's
# credentials dropped, scp-like git@host:path made ssh://), or nothing where it is a local
# path, a file:// URL or not a URL at all: the builder's checkout is no
# image's source.
public_url() {
	case $1 in
	https://* | http://*) printf '%s\n' "$1" | sed -E 's#^(https?://)[^/@]*@#\1#' ;;
	ssh://* | git://*) printf '%s\n' "$1" ;;
	[A-Za-z0-9._-]*@[A-Za-z0-9.-]*:*) printf 'ssh://%s\n' "$1" | sed -E 's#^(ssh://[^@]*@[^:/]*):#\1/#' ;;
	esac
}
origin=$(git_in remote get-url origin || true)
source_url=$(public_url "${PMUGUARD_IMAGE_SOURCE:-$origin}")
if [ -n "${PMUGUARD_IMAGE_SOURCE:-}" ] && [ -z "$source_url" ]; then
	echo "$0: PMUGUARD_IMAGE_SOURCE='$PMUGUARD_IMAGE_SOURCE' is not a URL others can fetch (https://, ssh://, git://)" >&2
	exit 1
fi
if [ -z "$source_url" ]; then
	said=
	[ -z "$origin" ] || said="the git remote origin ($origin) is not a URL others can fetch; "
	echo "$0: ${said}no PMUGUARD_IMAGE_SOURCE: labelling the source \"unknown\"" >&2
	source_url=unknown
fi
tmp=$(mktemp -d)
trap 'buildah --root "$tmp/root" --runroot "$tmp/run" --storage-driver vfs rm -a >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

# The root file system: the command and every library ldd names, at the
# paths the loader looks in (the interpreter's own path included).
rootfs=$tmp/rootfs
mkdir -p "$rootfs/usr/bin" "$rootfs/usr/share/doc/pmuguard" "$rootfs/sys" "$rootfs/proc" \
	"$rootfs/dev" "$rootfs/tmp" "$rootfs/run"
install -m 0755 "$bin" "$rootfs/usr/bin/pmuguard"
# A portable build (-Dportable=true, what the packages ship) loads nothing:
# the image is the binary alone, with the licences of what is linked in.
static=0
if ! readelf -d "$bin" 2>/dev/null | grep -q '(NEEDED)' && ! readelf -l "$bin" | grep -q 'program interpreter'; then
	static=1
	: >"$tmp/libs"
else
	ldd "$bin" | awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }' >"$tmp/libs"
fi
while read -r lib; do
	real=$(readlink -f "$lib")
	mkdir -p "$rootfs$(dirname "$lib")"
	cp "$real" "$rootfs$lib"
done <"$tmp/libs"
cp "$src/COPYING" "$rootfs/usr/share/doc/pmuguard/COPYING"

# Each copied library's licence goes with it: the copyright file of the
# Debian package that owns it.  dpkg knows a file by the path its package
# ships, which after the /usr merge may be the /lib or the /usr/lib
# spelling of the path ldd gave or of the file the link leads to.
# SPDX expressions of those packages' copyright files, for the licenses
# label; a package not in this table stops the build, so that the label
# never leaves out what the image holds.
declare -A spdx=(
	[libc6]="LGPL-2.1-or-later"
	[libbpf1]="LGPL-2.1-only OR BSD-2-Clause"
	[libelf1]="GPL-2.0-or-later OR LGPL-3.0-or-later"
	[libseccomp2]="LGPL-2.1-only"
	[zlib1g]="Zlib"
)
owner() {
	local p c
	for p in "$1" "$(readlink -f "$1")"; do
		for c in "$p" "${p#/usr}" "/usr$p"; do
			dpkg-query -S "$c" 2>/dev/null | sed -n '1s/[:,].*//p' | grep . && return 0
		done
	done
	return 1
}
command -v dpkg-query >/dev/null || { echo "$0: dpkg-query is needed to find the libraries' packages (their copyright files)" >&2; exit 1; }
while read -r lib; do
	owner "$lib" >>"$tmp/pkgs" || { echo "$0: no Debian package owns $lib: its licence cannot be shipped" >&2; exit 1; }
done <"$tmp/libs"
# Linked in statically: the static archives' packages (debian/rules'
# Built-Using), by their libraries' package, whose copyright file it is.
[ "$static" = 0 ] || printf '%s\n' libc6 libbpf1 libelf1 libseccomp2 zlib1g >>"$tmp/pkgs"
touch "$tmp/pkgs"
licenses="GPL-2.0-or-later"
while read -r pkg; do
	[ -n "${spdx[$pkg]:-}" ] || { echo "$0: $pkg is copied into the image but its licence is not in build.sh's table" >&2; exit 1; }
	[ -f "/usr/share/doc/$pkg/copyright" ] || { echo "$0: /usr/share/doc/$pkg/copyright is missing: $pkg's licence cannot be shipped" >&2; exit 1; }
	mkdir -p "$rootfs/usr/share/doc/$pkg"
	cp "/usr/share/doc/$pkg/copyright" "$rootfs/usr/share/doc/$pkg/copyright"
	case ${spdx[$pkg]} in *" OR "*) licenses="$licenses AND (${spdx[$pkg]})" ;; *) licenses="$licenses AND ${spdx[$pkg]}" ;; esac
done < <(sort -u "$tmp/pkgs")
# A test that the root is whole: the loader of the image runs the command.
if [ "$static" = 1 ]; then
	"$rootfs/usr/bin/pmuguard" --version >/dev/null
else
	interp=$(ldd "$bin" | awk '/^\t\/[^ ]+ \(/ { print $1 }')
	"$rootfs$interp" --library-path "$rootfs/lib/x86_64-linux-gnu:$rootfs/usr/lib/x86_64-linux-gnu" \
		"$rootfs/usr/bin/pmuguard" --version >/dev/null
fi

b() { buildah --root "$tmp/root" --runroot "$tmp/run" --storage-driver vfs "$@"; }
ctr=$(b from --quiet scratch)
b copy --quiet "$ctr" "$rootfs/" / >/dev/null
b config --entrypoint '["/usr/bin/pmuguard", "enforce", "agent"]' --cmd '' \
	--env PATH=/usr/bin --workingdir / \
	--label org.opencontainers.image.title=pmuguard-agent \
	--label org.opencontainers.image.description="pmuguard's kernel guard as a node agent" \
	--label org.opencontainers.image.version="$version" \
	--label org.opencontainers.image.licenses="$licenses" \
	--label org.opencontainers.image.source="$source_url" \
	--label org.opencontainers.image.revision="$revision" \
	--label org.opencontainers.image.created="$created" "$ctr"
# --timestamp: the config's created time, its history's, and every file's
# mtime in the layer are SOURCE_DATE_EPOCH (not the wall clock).
b commit --quiet --format oci --timestamp "$SOURCE_DATE_EPOCH" "$ctr" "localhost/pmuguard-agent:$version" >/dev/null
# The archive is a tar of the OCI layout written here, its entries in
# name order with SOURCE_DATE_EPOCH's time and root's owner, so that the
# archive too is the same bytes from build to build (skopeo's
# oci-archive: would stamp its own temporary files' times).
b push --quiet "localhost/pmuguard-agent:$version" "oci:$tmp/layout:localhost/pmuguard-agent:$version"
rm -f "$out"
tar -C "$tmp/layout" --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
	--mode=u+rw,go+r,go-w --format=gnu -cf "$out" .
echo "$out (localhost/pmuguard-agent:$version, $(du -k "$out" | cut -f1) KiB)"
