#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Packages and the Ansible role, built and run for real:
#   deb       dpkg-buildpackage, then dpkg -i / -r in a mount namespace whose
#             /usr, /etc and /var are overlays (the machine is untouched)
#   rpm       rpmbuild from a source tarball of this tree
#   ansible   the playbook in check mode, for real, and rolled back, against
#             a temporary root, on a hazardous and on a healthy snapshot
#
#   package.sh CASE      exit 0 pass, 1 fail, 77 skip
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
if [ "${1:-}" = --list ]; then list_cases "$0" case_name; exit 0; fi
: "${PMUGUARD:?}" "${FIXTURES:?}" "${LIB:?}" "${FLEET:?}" "${SRCDIR:?}"
case_name=${1:?usage: package.sh CASE}


tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
M6I=$FIXTURES/m6i-16xlarge
ICX=$FIXTURES/icx-8375c-metal

# A copy of the source tree: the files git knows, or everything but builds.
copy_tree() {
	mkdir -p "$1"
	if git -C "$SRCDIR" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$SRCDIR" ls-files -z --cached --others --exclude-standard |
			(cd "$SRCDIR" && xargs -0 cp --parents -t "$1")
	else
		(cd "$SRCDIR" && tar --exclude='./build*' -cf - .) | tar -C "$1" -xf -
	fi
}

case $case_name in
deb)
	{ command -v dpkg-buildpackage >/dev/null && [ -x /usr/bin/dh ]; } ||
		skip "dpkg-buildpackage and debhelper are not installed"
	[ "$(id -u)" = 0 ] || skip "installing the package needs root (in a private mount namespace)"
	copy_tree "$tmp/src"
	(cd "$tmp/src" && dpkg-buildpackage -us -uc -b) >"$tmp/out" 2>&1 || fail "dpkg-buildpackage failed"
	deb=$(ls "$tmp"/pmuguard_*.deb)
	dpkg-deb -c "$deb" >"$tmp/contents"
	for f in ./usr/bin/pmuguard ./usr/sbin/pmuguard-fleet ./usr/share/man/man1/pmuguard.1.gz \
		"./usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/pmuguard/libpmuguard.so" \
		./usr/share/pmuguard/ansible/pmuguard.yml; do
		grep -q " $f\$" "$tmp/contents" || fail "the package lacks $f"
	done
	ok "built $(basename "$deb") with the command, library, fleet script, man page, role"
	cat >"$tmp/script" <<SH
set -e
mount --make-rprivate /
for d in usr etc var; do
	mkdir -p $tmp/\$d-up $tmp/\$d-work
	mount -t overlay overlay -o lowerdir=/\$d,upperdir=$tmp/\$d-up,workdir=$tmp/\$d-work /\$d
done
before=\$(cat /etc/ld.so.preload 2>/dev/null || echo absent)
dpkg -i $deb >/dev/null
[ "\$(cat /etc/ld.so.preload 2>/dev/null || echo absent)" = "\$before" ] || { echo "INSTALL ENABLED THE PRELOAD"; exit 1; }
echo "package installed; preload untouched"
set +e; /usr/bin/pmuguard probe --check --snapshot $M6I >/dev/null; echo "check=\$?"; set -e
/usr/bin/pmuguard run --mode preload -- sh -c 'echo "preload=\$LD_PRELOAD"'
ls /usr/share/man/man1/pmuguard.1.gz
PMUGUARD_SNAPSHOT=$M6I /usr/sbin/pmuguard-fleet install
grep -c libpmuguard /etc/ld.so.preload
dpkg -r pmuguard >/dev/null
[ ! -e /etc/ld.so.preload ] && echo "removed; preload entry gone"
SH
	unshare -m bash "$tmp/script" >"$tmp/out" 2>"$tmp/err" || fail "install/remove in the namespace failed"
	grep -q 'preload untouched' "$tmp/out" || fail "installing enabled the preload"
	grep -q 'check=3' "$tmp/out" || fail "the installed probe does not see the m6i hazard"
	grep -q 'preload=/usr/lib/.*/pmuguard/libpmuguard.so' "$tmp/out" ||
		fail "the installed command does not find the installed library"
	grep -q 'removed; preload entry gone' "$tmp/out" ||
		fail "removing the package left its entry in /etc/ld.so.preload"
	ok "installs without enabling the preload; finds its library; removal takes the entry out"
	;;
rpm)
	command -v rpmbuild >/dev/null || skip "rpmbuild is not installed (Debian package rpm)"
	copy_tree "$tmp/pmuguard-0.1.0"
	mkdir -p "$tmp/top/SOURCES"
	tar -C "$tmp" -czf "$tmp/top/SOURCES/pmuguard-0.1.0.tar.gz" pmuguard-0.1.0
	# --nodeps: the BuildRequires name RHEL packages this Debian rpm db lacks.
	rpmbuild -bb --nodeps --define "_topdir $tmp/top" "$SRCDIR/scripts/rpm/pmuguard.spec" \
		>"$tmp/out" 2>&1 || fail "rpmbuild failed"
	rpm -qlp "$tmp"/top/RPMS/*/pmuguard-0.1.0-1*.rpm >"$tmp/contents" 2>/dev/null
	for f in /usr/bin/pmuguard /usr/sbin/pmuguard-fleet /usr/share/man/man1/pmuguard.1 \
		/usr/share/pmuguard/ansible/pmuguard.yml; do
		grep -qx "$f" "$tmp/contents" || fail "the RPM lacks $f"
	done
	grep -q '/pmuguard/libpmuguard.so$' "$tmp/contents" || fail "the RPM lacks the library"
	rpm -qp --scripts "$tmp"/top/RPMS/*/pmuguard-0.1.0-1*.rpm | grep -q 'pmuguard-fleet uninstall' ||
		fail "the RPM does not take its entry out on erase"
	ok "RPM built with the command, library, fleet script, man page and role"
	;;
ansible)
	command -v ansible-playbook >/dev/null || skip "ansible-playbook is not installed (ansible-core)"
	export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false \
		ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP=$tmp/ansible ANSIBLE_REMOTE_TEMP=$tmp/ansible
	for world in m6i healthy; do
		root=$tmp/root-$world
		mkdir -p "$root/etc" "$root/usr/lib/pmuguard"
		cp "$LIB" "$root/usr/lib/pmuguard/libpmuguard.so"
		printf '# site preloads\n/usr/lib/libkeep.so\n' >"$root/etc/ld.so.preload"
		cp "$root/etc/ld.so.preload" "$tmp/orig"
		snap=$M6I
		[ $world = m6i ] || snap=$ICX
		play() {
			ansible-playbook -i localhost, -c local "$SRCDIR/scripts/ansible/pmuguard.yml" \
				-e pmuguard_manage_package=false -e ansible_become=false \
				-e pmuguard_bin="$PMUGUARD" -e pmuguard_fleet="$FLEET" -e pmuguard_root="$root" \
				-e "{\"pmuguard_environment\": {\"PMUGUARD_SNAPSHOT\": \"$snap\"}}" "$@" \
				>"$tmp/out" 2>&1 || fail "ansible-playbook $* failed"
		}
		play --check
		cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "$world: check mode changed the file"
		play
		if [ $world = m6i ]; then
			grep -q 'changed=1' "$tmp/out" || fail "m6i: the playbook reported no change"
			grep -qx /usr/lib/pmuguard/libpmuguard.so "$root/etc/ld.so.preload" ||
				fail "m6i: the preload was not enabled"
			play
			grep -q 'changed=0' "$tmp/out" || fail "m6i: a second run is not idempotent"
			play -e pmuguard_state=absent
			grep -q 'changed=1' "$tmp/out" || fail "m6i: the rollback reported no change"
		else
			grep -q 'changed=0' "$tmp/out" || fail "healthy: the playbook changed something"
		fi
		cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "$world: the file is not as it was"
		ok "$world: check mode changes nothing; $([ $world = m6i ] && echo 'enabled, idempotent, rolled back byte for byte' || echo 'healthy host untouched')"
	done
	;;
*)
	echo "unknown case $case_name"
	exit 2
	;;
esac
echo "PASS: $case_name"
