#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The node agent's OCI image, built offline from what the project built:
# FROM scratch with the pmuguard command, the libraries it links, the
# loader and the licence, nothing else (no shell, no package manager).
# Its entrypoint is `pmuguard enforce agent` (deploy/kubernetes/README.md).
#
#   deploy/image/build.sh [BUILD_DIR] [OUT.tar]
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
tmp=$(mktemp -d)
trap 'buildah --root "$tmp/root" --runroot "$tmp/run" --storage-driver vfs rm -a >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

# The root file system: the command and every library ldd names, at the
# paths the loader looks in (the interpreter's own path included).
rootfs=$tmp/rootfs
mkdir -p "$rootfs/usr/bin" "$rootfs/usr/share/doc/pmuguard" "$rootfs/sys" "$rootfs/proc" \
	"$rootfs/dev" "$rootfs/tmp" "$rootfs/run"
install -m 0755 "$bin" "$rootfs/usr/bin/pmuguard"
ldd "$bin" | awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }' | while read -r lib; do
	real=$(readlink -f "$lib")
	mkdir -p "$rootfs$(dirname "$lib")"
	cp "$real" "$rootfs$lib"
done
cp "$src/COPYING" "$rootfs/usr/share/doc/pmuguard/COPYING"
# A test that the root is whole: the loader of the image runs the command.
interp=$(ldd "$bin" | awk '/^\t\/[^ ]+ \(/ { print $1 }')
"$rootfs$interp" --library-path "$rootfs/lib/x86_64-linux-gnu:$rootfs/usr/lib/x86_64-linux-gnu" \
	"$rootfs/usr/bin/pmuguard" --version >/dev/null

b() { buildah --root "$tmp/root" --runroot "$tmp/run" --storage-driver vfs "$@"; }
ctr=$(b from --quiet scratch)
b copy --quiet "$ctr" "$rootfs/" / >/dev/null
b config --entrypoint '["/usr/bin/pmuguard", "enforce", "agent"]' --cmd '' \
	--env PATH=/usr/bin --workingdir / \
	--label org.opencontainers.image.title=pmuguard-agent \
	--label org.opencontainers.image.description="pmuguard's kernel guard as a node agent" \
	--label org.opencontainers.image.version="$version" \
	--label org.opencontainers.image.licenses=GPL-2.0-or-later "$ctr"
b commit --quiet --format oci "$ctr" "localhost/pmuguard-agent:$version" >/dev/null
rm -f "$out"
b push --quiet "localhost/pmuguard-agent:$version" "oci-archive:$out:localhost/pmuguard-agent:$version"
echo "$out (localhost/pmuguard-agent:$version, $(du -k "$out" | cut -f1) KiB)"
