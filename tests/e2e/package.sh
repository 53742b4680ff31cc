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

# tree_files, copy_tree: the files of the source tree, as the packages
# are built from them.
# shellcheck source=scripts/lib.sh
. "$SRCDIR/scripts/lib.sh"

# build_deb OUTDIR: this tree's .deb (tests/deb.sh: built once per content
# and shared with the vm suite through DEB_CACHE), copied into OUTDIR, $deb
# set to it.
build_deb() {
	local built
	mkdir -p "$1"
	built=$("$SRCDIR/tests/deb.sh" "${DEB_CACHE:-$(dirname "$PMUGUARD")/../../tests/deb-cache}" 2>"$tmp/out") ||
		fail "building the .deb failed (tests/deb.sh)"
	cp "$built" "$1/"
	deb=$1/${built##*/}
}

# in_sandbox STATE CMD...: CMD (as root) in a mount namespace of its own
# whose /usr, /etc and /var are overlays (their upper layers in STATE, so
# that one sandbox lasts across calls), /run a tmpfs, /sys/fs/bpf a private
# bpffs: nothing reaches the machine.  The sandbox plays a host that runs
# systemd (/run/systemd/system exists, so that maintainer scripts and the
# role ask the manager), but there is no manager to ask: systemctl is a
# stand-in (tests/e2e/systemctl: each call in STATE/systemctl.log, a start
# only marked), and policy-rc.d refuses every start and stop, recording
# each request ("UNIT ACTION") in STATE/policy-rc.d.log.
in_sandbox() {
	cat >"$tmp/sandbox" <<'SH'
set -e
s=$1 standin=$2
shift 2
mount --make-rprivate /
# The host's own systemctl, for what the stand-in leaves to it (unit
# files only, offline): taken before /usr is overlaid, where an earlier
# call left the stand-in.
if [ -x /usr/bin/systemctl ]; then cp /usr/bin/systemctl "$s/systemctl.real"; fi
for d in usr etc var; do
	mkdir -p "$s/$d-up" "$s/$d-work"
	mount -t overlay overlay -o "lowerdir=/$d,upperdir=$s/$d-up,workdir=$s/$d-work" "/$d"
done
mount -t tmpfs tmpfs /run
mkdir -p /run/lock /run/systemd/system
mount -t bpf bpf /sys/fs/bpf 2>/dev/null || mount -t tmpfs tmpfs /sys/fs/bpf
sed "s|@STATE@|$s|" "$standin" >/usr/bin/systemctl
chmod 755 /usr/bin/systemctl
printf '#!/bin/sh\necho "$*" >>%s/policy-rc.d.log\nexit 101\n' "$s" >/usr/sbin/policy-rc.d
chmod 755 /usr/sbin/policy-rc.d
exec "$@"
SH
	mkdir -p "$1"
	unshare -m bash "$tmp/sandbox" "$1" "$SRCDIR/tests/e2e/systemctl" "${@:2}"
}

# busybox_tree DIR: a root of static busybox alone (its applets as links),
# with /etc/passwd and /etc/group: a host with nothing of Debian's userland
# (no glibc, no libbpf), where only a portable build can run.  Exit 77
# where busybox is not the static one (Debian package busybox-static).
busybox_tree() {
	local bb
	bb=$(command -v busybox) || skip "busybox is not installed (Debian package busybox-static)"
	! readelf -l "$bb" 2>/dev/null | grep -q 'program interpreter' || skip "$bb is not static (busybox-static)"
	mkdir -p "$1/bin" "$1/sbin" "$1/usr/bin" "$1/usr/sbin" "$1/etc" "$1/tmp" "$1/run" "$1/proc" "$1/dev"
	cp "$bb" "$1/bin/busybox"
	chroot "$1" /bin/busybox --install -s
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$1/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$1/etc/group"
}
# busybox_flock DIR: util-linux's flock in the tree, with what it loads
# (Debian's busybox has no flock applet; every fleet host has util-linux).
# The tree then has this machine's glibc, which pmuguard never loads.
busybox_flock() {
	local f l
	f=$(command -v flock) || skip "flock (util-linux) is not installed"
	rm -f "$1/usr/bin/flock" "$1/bin/flock"
	cp "$f" "$1/usr/bin/flock"
	for l in $(ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		mkdir -p "$1$(dirname "$l")"
		cp "$(readlink -f "$l")" "$1$l"
	done
}
# in_tree_root DIR CMD...: CMD chrooted into DIR, in a mount namespace of
# its own with /proc mounted there (nothing of it reaches the machine).
in_tree_root() {
	# shellcheck disable=SC2016 # the inner shell's
	unshare -m -- sh -c 'mount --make-rprivate / && mount -t proc proc "$1/proc" && d=$1 && shift && exec chroot "$d" "$@"' _ "$@"
}
# fleet_in_tree DIR: pmuguard-fleet install and uninstall run in the tree
# (the m6i simulated by root's policy, by name), their words in
# $tmp/tree.out; fails unless install listed the library and locked the
# policy, and uninstall took the entry out.
fleet_in_tree() {
	busybox_flock "$1"
	printf 'snapshot = m6i-16xlarge\n' >"$1/etc/pmuguard.conf"
	in_tree_root "$1" /bin/sh -c 'pmuguard probe --check -q; echo "check=$?"
		pmuguard-fleet install --layer preload && echo "installed rc=0"
		cat /etc/ld.so.preload; grep "^lock" /etc/pmuguard.conf
		pmuguard-fleet uninstall --layer preload && echo "uninstalled rc=0"
		[ -e /etc/ld.so.preload ] || echo "no preload file left"' >"$tmp/tree.out" 2>&1 ||
		fail "the fleet script in the tree failed: $(cat "$tmp/tree.out")"
	grep -qx 'check=3' "$tmp/tree.out" || fail "the probe in the tree does not see the m6i: $(cat "$tmp/tree.out")"
	grep -qx 'installed rc=0' "$tmp/tree.out" || fail "install in the tree failed: $(cat "$tmp/tree.out")"
	grep -Eqx '/usr/lib[^ ]*/pmuguard/libpmuguard.so' "$tmp/tree.out" || fail "install did not list the library: $(cat "$tmp/tree.out")"
	grep -qx 'lock = yes' "$tmp/tree.out" || fail "install did not lock the policy: $(cat "$tmp/tree.out")"
	grep -qx 'no preload file left' "$tmp/tree.out" || fail "uninstall left the preload file: $(cat "$tmp/tree.out")"
}
# play_check EXTRA-VAR...: the playbook in check mode on this machine, no
# package, no become, no pmuguard-fleet (each -e given is one a refusal
# must stop before the role does anything); its words in $tmp/out, its
# exit in r.
play_check() {
	command -v ansible-playbook >/dev/null || skip "ansible-playbook is not installed (ansible-core)"
	export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false \
		ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP=$tmp/ansible ANSIBLE_REMOTE_TEMP=$tmp/ansible HOME=$tmp
	r=0
	ansible-playbook -i localhost, -c local "$SRCDIR/scripts/ansible/pmuguard.yml" --check \
		-e pmuguard_manage_package=false -e ansible_become=false -e pmuguard_fleet=/nonexistent/pmuguard-fleet \
		"$@" >"$tmp/out" 2>&1 || r=$?
}

case $case_name in
deb)
	{ command -v dpkg-buildpackage >/dev/null && [ -x /usr/bin/dh ]; } ||
		skip "dpkg-buildpackage and debhelper are not installed"
	[ "$(id -u)" = 0 ] || skip "installing the package needs root (in a private mount namespace)"
	build_deb "$tmp/deb"
	dpkg-deb -c "$deb" >"$tmp/contents"
	for f in ./usr/bin/pmuguard ./usr/sbin/pmuguard-fleet ./usr/share/pmuguard/fleet/lock.sh \
		./usr/share/pmuguard/fleet/cli.sh ./usr/share/man/man1/pmuguard.1.gz \
		./usr/share/man/man8/pmuguard-fleet.8.gz ./usr/share/man/man5/pmuguard.conf.5.gz \
		./usr/share/doc/pmuguard/README.md.gz \
		./lib/systemd/system/pmuguard-reprobe.service ./lib/systemd/system/pmuguard-enforce.service \
		./lib/systemd/system/pmuguard-metrics.service ./lib/systemd/system/pmuguard-metrics.timer \
		"./usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/pmuguard/libpmuguard.so" \
		./usr/share/pmuguard/ansible/pmuguard.yml ./usr/share/pmuguard/aws/pmuguard-ssm.yml \
		./usr/share/pmuguard/snapshots/m6i-16xlarge/ ./usr/share/pmuguard/snapshots/m6i-16xlarge/cpuid.txt \
		./usr/share/pmuguard/schemas/probe.schema.json ./usr/share/pmuguard/schemas/status.schema.json \
		./usr/share/pmuguard/schemas/enforce.schema.json ./usr/share/pmuguard/schemas/tree.schema.json \
		./usr/share/pmuguard/schemas/canary.schema.json ./usr/share/pmuguard/pmuguard.rules.yml \
		./usr/lib/systemd/catalog/pmuguard.catalog; do
		grep -q " $f\$" "$tmp/contents" || fail "the package lacks $f"
	done
	! grep -E '/snapshots/.*/(expected|report\.(txt|json)|enforce-start\.json)$' "$tmp/contents" ||
		fail "the package ships the tests' pins with the reference snapshots"
	ok "built $(basename "$deb") with the command, library, fleet script and its parts, man pages, README, units, journald catalog, role, SSM document, reference snapshots, JSON schemas, alert rules"
	# Built with the distribution's hardening flags, the preloaded library
	# still imports nothing (what every process on a host pays at start)
	# and keeps full RELRO and the CET marking.
	mkdir -p "$tmp/x-deb"
	dpkg-deb -x "$deb" "$tmp/x-deb"
	lib=$(find "$tmp/x-deb" -name libpmuguard.so)
	undef=$(nm -D --undefined-only "$lib")
	[ -z "$undef" ] || fail "the packaged libpmuguard.so imports: $undef"
	readelf -d "$lib" | grep -q 'FLAGS.*NOW' || fail "the packaged library is not BIND_NOW"
	# Where the distribution's flags carry -fcf-protection (not Debian 12's),
	# the library must be marked: its assembly says so itself.
	cet=
	if DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CFLAGS |
		grep -q -- '-fcf-protection'; then
		cet=$(readelf -n "$lib" | grep -o 'x86 feature: .*' || :)
		[ "$cet" = "x86 feature: IBT, SHSTK" ] ||
			fail "built with -fcf-protection, the library is marked '${cet:-nothing}'"
	fi
	ok "the packaged library imports nothing and is BIND_NOW${cet:+, $cet}"
	# One build for every fleet: the packaged command loads no library and
	# asks no glibc version (issue 48); the Depends name what the fleet
	# script and the maintainer scripts use, nothing of glibc or libbpf.
	"$SRCDIR/tests/e2e/portable-check.sh" 2.28 "$tmp/x-deb/usr/bin/pmuguard" "$lib" >"$tmp/portable" 2>&1 ||
		fail "the packaged binaries are not portable: $(cat "$tmp/portable")"
	depends=$(dpkg-deb -f "$deb" Depends)
	# (pmuguard-canary, the status canary's dynamic helper, needs libc6 at
	# its first symbol version: no more.)
	! printf '%s' "$depends" | grep -Eq 'libbpf|libelf|libseccomp|zlib|libc6 \(>= 2\.(29|[3-9][0-9])' ||
		fail "the .deb depends on a library the static command does not load, or a libc6 above 2.28: $depends"
	for src in glibc libbpf elfutils libseccomp zlib; do
		dpkg-deb -f "$deb" Built-Using | grep -q "\(^\|, \)$src (= " ||
			fail "the .deb does not name $src, linked in (Built-Using): $(dpkg-deb -f "$deb" Built-Using)"
	done
	ok "the packaged command is portable ($(tr '\n' ';' <"$tmp/portable")); Depends: $depends; Built-Using: $(dpkg-deb -f "$deb" Built-Using)"
	# Installed, removed and purged in_sandbox: nothing reaches the machine.
	keep=$(ldd /bin/true | awk '/libc\.so/ { print $3 }')
	# The autopkgtests (debian/tests/control's), copied out: in the
	# namespace the source tree is out of reach, so that they run on what
	# the package installs alone.
	mkdir -p "$tmp/autopkgtest/tmp"
	adt=$(sed -n 's/^Tests: *//p' "$SRCDIR/debian/tests/control" | tr ',\n' '  ' | sed 's/  */ /g; s/ $//')
	for t in $adt; do cp "$SRCDIR/debian/tests/$t" "$tmp/autopkgtest/"; done
	[ -f "$keep" ] || fail "cannot find libc for the other entry"
	# The upgrade: the same package under a higher version, as dpkg sees
	# any upgrade (prerm upgrade, preinst upgrade, postinst configure OLD).
	dpkg-deb -R "$deb" "$tmp/deb2"
	sed -i 's/^Version: .*/&+upgrade1/' "$tmp/deb2/DEBIAN/control"
	dpkg-deb -b --root-owner-group "$tmp/deb2" "$tmp/pmuguard-upgrade.deb" >/dev/null
	# asked PHASE: what policy-rc.d was asked (UNIT ACTION lines) since the
	# last call, kept as $tmp/asked.PHASE.
	asked="$tmp/sandbox-state/policy-rc.d.log"
	cat >"$tmp/script" <<SH
set -e
# Another product's entry (a library that loads: libc), so that there is a
# backup for purge to remove and an entry for removal to keep.
printf '%s\n' $keep >/etc/ld.so.preload
before=\$(cat /etc/ld.so.preload 2>/dev/null || echo absent)
dpkg -i $deb >/dev/null
[ "\$(cat /etc/ld.so.preload 2>/dev/null || echo absent)" = "\$before" ] || { echo "INSTALL ENABLED THE PRELOAD"; exit 1; }
echo "package installed; preload untouched"
[ -L /etc/systemd/system/sysinit.target.wants/pmuguard-reprobe.service ] && echo "reprobe enabled"
[ ! -e /etc/systemd/system/sysinit.target.wants/pmuguard-enforce.service ] && echo "enforce not enabled"
[ -L /etc/systemd/system/timers.target.wants/pmuguard-metrics.timer ] && echo "metrics timer enabled"
touch $asked; mv $asked $tmp/asked.install
dpkg -i $tmp/pmuguard-upgrade.deb >/dev/null
touch $asked; mv $asked $tmp/asked.upgrade
# From here on, the source tree (the fixtures, the build) is out of reach:
# the snapshots are the package's, by name.
mount -t tmpfs -o ro tmpfs $SRCDIR
cd /
[ ! -e $M6I ] && echo "source tree out of reach"
set +e; /usr/bin/pmuguard probe --check --snapshot m6i-16xlarge >/dev/null; echo "check=\$?"; set -e
/usr/bin/pmuguard run --audit --snapshot m6i-16xlarge -- true 2>&1 |
	grep -q 'facts: /usr/share/pmuguard/snapshots/m6i-16xlarge' && echo "audit by name"
/usr/bin/pmuguard run --mode preload -- sh -c 'echo "preload=\$LD_PRELOAD"'
ls /usr/share/man/man1/pmuguard.1.gz
for t in $adt; do AUTOPKGTEST_TMP=$tmp/autopkgtest/tmp sh $tmp/autopkgtest/\$t; done
# The host simulated by root's policy, by name (install locks it, and
# under that lock the environment names no facts).
printf 'snapshot = m6i-16xlarge\n' >/etc/pmuguard.conf
/usr/sbin/pmuguard-fleet install --layer preload
grep -c libpmuguard /etc/ld.so.preload
# The admin's install starts pmuguard-metrics.service itself, where systemd
# runs (pmuguard-fleet(8)); the stand-in marks it.  That start is the
# command's, not the package's: cleared, so the check below sees only
# what the maintainer scripts started.
mark=$tmp/sandbox-state/systemctl-active/pmuguard-metrics.service
if [ -e \$mark ]; then echo "install refreshed the metrics"; rm \$mark; fi
# A failing uninstall fails the removal: the entry and the library stay.
printf '#!/bin/sh\nexit 1\n' >/usr/local/bin/flock
chmod 755 /usr/local/bin/flock
if dpkg -r pmuguard >/dev/null 2>&1; then echo "REMOVAL WENT ON"; fi
grep -q libpmuguard /etc/ld.so.preload && [ -f \$(grep libpmuguard /etc/ld.so.preload) ] && echo "failed prerm: entry and library kept"
rm /usr/local/bin/flock
rm -f $asked
dpkg -r pmuguard >/dev/null
touch $asked; mv $asked $tmp/asked.remove
[ "\$(cat /etc/ld.so.preload)" = $keep ] && echo "removed; preload entry gone"
[ -e /etc/ld.so.preload.pmuguard-bak ] || echo "NO BACKUP BEFORE PURGE"
dpkg -P pmuguard >/dev/null
[ ! -e /etc/ld.so.preload.pmuguard-bak ] && echo "purged; backup gone"
SH
	in_sandbox "$tmp/sandbox-state" bash "$tmp/script" >"$tmp/out" 2>"$tmp/err" ||
		fail "install/remove in the namespace failed"
	grep -q 'preload untouched' "$tmp/out" || fail "installing enabled the preload"
	grep -q 'reprobe enabled' "$tmp/out" || fail "the package did not enable pmuguard-reprobe.service"
	grep -q 'enforce not enabled' "$tmp/out" || fail "the package enabled pmuguard-enforce.service"
	grep -q 'metrics timer enabled' "$tmp/out" || fail "the package did not enable pmuguard-metrics.timer"
	# Starts go through deb-systemd-invoke, so policy-rc.d is asked (and
	# refuses): the timer on install and again on upgrade, never the
	# follower or the boot's re-probe.  Nothing was started in the end.
	for phase in install upgrade; do
		grep -Eqx 'pmuguard-metrics\.timer (start|restart)' "$tmp/asked.$phase" ||
			fail "$phase did not ask to start pmuguard-metrics.timer; policy-rc.d was asked: $(tr '\n' ';' <"$tmp/asked.$phase")"
		! grep -Eq '^pmuguard-(enforce|reprobe)\.service (start|restart)$' "$tmp/asked.$phase" ||
			fail "$phase asked to start a unit the package must leave alone: $(tr '\n' ';' <"$tmp/asked.$phase")"
	done
	grep -qx 'pmuguard-metrics.timer stop' "$tmp/asked.remove" ||
		fail "removal did not ask to stop pmuguard-metrics.timer; policy-rc.d was asked: $(tr '\n' ';' <"$tmp/asked.remove")"
	grep -q 'install refreshed the metrics' "$tmp/out" ||
		fail "pmuguard-fleet install did not start pmuguard-metrics.service"
	[ -z "$(ls "$tmp/sandbox-state/systemctl-active" 2>/dev/null)" ] ||
		fail "a unit was started in the sandbox: $(ls "$tmp/sandbox-state/systemctl-active")"
	ok "policy-rc.d was asked to start pmuguard-metrics.timer on install ($(tr '\n' ';' <"$tmp/asked.install")) and upgrade ($(tr '\n' ';' <"$tmp/asked.upgrade")), to stop it on removal, never to start the follower or the re-probe; it refused, and nothing started"
	grep -q 'check=3' "$tmp/out" || fail "the installed probe does not see the m6i hazard"
	grep -q 'preload=/usr/lib/.*/pmuguard/libpmuguard.so' "$tmp/out" ||
		fail "the installed command does not find the installed library"
	grep -q 'source tree out of reach' "$tmp/out" || fail "the source tree was not hidden"
	grep -q 'audit by name' "$tmp/out" ||
		fail "run --audit --snapshot m6i-16xlarge did not read /usr/share/pmuguard/snapshots/m6i-16xlarge"
	for t in $adt; do
		grep -q "PASS: $t" "$tmp/out" || fail "the autopkgtest debian/tests/$t failed"
	done
	! grep -q 'REMOVAL WENT ON' "$tmp/out" || fail "a failed uninstall did not stop the removal"
	grep -q 'failed prerm: entry and library kept' "$tmp/out" || fail "a failed prerm left a dangling entry"
	grep -q 'removed; preload entry gone' "$tmp/out" ||
		fail "removing the package left its entry in /etc/ld.so.preload"
	grep -q 'purged; backup gone' "$tmp/out" || fail "purge left ld.so.preload.pmuguard-bak"
	ok "installs without enabling the preload or starting units; reprobe enabled; with the source tree out of reach, snapshots by name and the autopkgtests ($adt) pass; a failed prerm keeps entry and library; remove takes the entry out; purge the backup"
	# lintian, pedantic, on the binary and the source package.
	command -v lintian >/dev/null || skip "lintian is not installed"
	copy_tree "$SRCDIR" "$tmp/srcpkg/pmuguard"
	(cd "$tmp/srcpkg" && dpkg-source -b pmuguard >/dev/null 2>&1) || fail "dpkg-source -b failed"
	lintian --pedantic -I --tag-display-limit 0 --fail-on error,warning,info,pedantic \
		"$deb" "$tmp"/srcpkg/pmuguard_*.dsc >"$tmp/out" 2>&1 || fail "lintian: $(grep -v 'root privileges' "$tmp/out")"
	ok "lintian --pedantic: nothing but the overrides in debian/pmuguard.lintian-overrides, each with its reason"
	;;
rpm)
	command -v rpmbuild >/dev/null || skip "rpmbuild is not installed (Debian package rpm)"
	ver=$(sh "$SRCDIR/scripts/version")
	copy_tree "$SRCDIR" "$tmp/pmuguard-$ver"
	mkdir -p "$tmp/top/SOURCES"
	tar -C "$tmp" -czf "$tmp/top/SOURCES/pmuguard-$ver.tar.gz" "pmuguard-$ver"
	# Debian's rpm has no meson or systemd macros: these are Fedora's
	# (macros.meson, macros.systemd), and its hardening LDFLAGS, so that
	# the check below shows %meson carrying the distribution's flags.
	cat >"$tmp/macros" <<'MAC'
%_vpath_srcdir .
%_vpath_builddir redhat-linux-build
%build_ldflags -Wl,-z,relro -Wl,--as-needed -Wl,-z,now
%__meson /usr/bin/meson
%meson %set_build_flags \
%{__meson} setup --buildtype=plain --prefix=%{_prefix} --libdir=%{_libdir} --libexecdir=%{_libexecdir} --bindir=%{_bindir} --sbindir=%{_sbindir} --includedir=%{_includedir} --datadir=%{_datadir} --mandir=%{_mandir} --infodir=%{_infodir} --localedir=%{_datadir}/locale --sysconfdir=%{_sysconfdir} --localstatedir=%{_localstatedir} --sharedstatedir=%{_sharedstatedir} --wrap-mode=nodownload --auto-features=enabled %{_vpath_srcdir} %{_vpath_builddir}
%meson_build %{__meson} compile -C %{_vpath_builddir} -j %{_smp_build_ncpus} --verbose
%meson_install DESTDIR=%{buildroot} %{__meson} install -C %{_vpath_builddir} --no-rebuild
%meson_test %{__meson} test -C %{_vpath_builddir} --num-processes %{_smp_build_ncpus} --print-errorlogs
%_unitdir /usr/lib/systemd/system
%_presetdir /usr/lib/systemd/system-preset
%systemd_post() if [ $1 -eq 1 ]; then systemctl --no-reload preset %{?*} || : ; fi
%systemd_preun() if [ $1 -eq 0 ]; then systemctl --no-reload disable --now %{?*} || : ; fi
%systemd_postun() :
%systemd_postun_with_restart() if [ $1 -ge 1 ]; then systemctl try-restart %{?*} || : ; fi
MAC
	# --nodeps: the BuildRequires names RHEL packages this Debian rpm db lacks.
	rpmbuild -bb --nodeps --load "$tmp/macros" --define "_topdir $tmp/top" --define "pmuguard_version $ver" \
		"$SRCDIR/scripts/rpm/pmuguard.spec" >"$tmp/out" 2>&1 || fail "rpmbuild failed"
	grep -q 'meson test .*--suite unit' "$tmp/out" || fail "%check did not run the unit suite"
	rpmf=$(ls "$tmp"/top/RPMS/*/pmuguard-"$ver"-1*.rpm)
	rpm -qlp "$rpmf" >"$tmp/contents" 2>/dev/null
	for f in /usr/bin/pmuguard /usr/sbin/pmuguard-fleet /usr/share/pmuguard/fleet/lock.sh \
		/usr/share/pmuguard/fleet/cli.sh /usr/share/man/man1/pmuguard.1 \
		/usr/share/man/man8/pmuguard-fleet.8 /usr/share/man/man5/pmuguard.conf.5 \
		/usr/lib/systemd/system/pmuguard-reprobe.service /usr/lib/systemd/system-preset/50-pmuguard.preset \
		/usr/lib/systemd/system/pmuguard-metrics.timer /usr/lib/systemd/system/pmuguard-metrics.service \
		/usr/share/pmuguard/ansible/pmuguard.yml /usr/share/pmuguard/aws/pmuguard-ssm.yml \
		/usr/share/pmuguard/snapshots/m6i-16xlarge /usr/share/pmuguard/snapshots/m6i-16xlarge/cpuid.txt \
		/usr/lib/systemd/catalog/pmuguard.catalog; do
		grep -qx "$f" "$tmp/contents" || fail "the RPM lacks $f"
	done
	! grep -E '/snapshots/.*/(expected|report\.(txt|json)|enforce-start\.json)$' "$tmp/contents" ||
		fail "the RPM ships the tests' pins with the reference snapshots"
	grep -q '/pmuguard/libpmuguard.so$' "$tmp/contents" || fail "the RPM lacks the library"
	rpm -qp --scripts "$rpmf" | grep -q 'pmuguard-fleet uninstall' ||
		fail "the RPM does not take its entry out on erase"
	! rpm -qp --scripts "$rpmf" | grep -q 'uninstall.*|| *:' || fail "the RPM swallows a failed uninstall"
	# %post as rpm runs it on a first install ($1 = 1), in a mount namespace
	# whose /run is a tmpfs, with a systemctl that records its calls and
	# answers "enabled" to is-enabled: where systemd runs (/run/systemd/system),
	# the units are preset and the metrics timer started; where it does not,
	# nothing is started.
	if [ "$(id -u)" = 0 ]; then
		rpm -qp --qf '%{POSTIN}\n' "$rpmf" >"$tmp/post"
		mkdir -p "$tmp/fakebin"
		# shellcheck disable=SC2016 # the stand-in's script, expanded when it runs
		printf '#!/bin/sh\necho "$*" >>"$RPM_SYSTEMCTL_LOG"\ncase $* in *is-enabled*) echo enabled ;; esac\n' \
			>"$tmp/fakebin/systemctl"
		chmod 755 "$tmp/fakebin/systemctl"
		for systemd in absent running; do
			# shellcheck disable=SC2016 # expanded by the namespace's shell
			RPM_SYSTEMCTL_LOG=$tmp/systemctl.$systemd PATH="$tmp/fakebin:$PATH" unshare -m sh -c \
				'mount --make-rprivate / && mount -t tmpfs tmpfs /run &&
				if [ "$2" = running ]; then mkdir -p /run/systemd/system; fi && sh "$1" 1' \
				_ "$tmp/post" "$systemd" >"$tmp/out" 2>&1 || fail "%post failed ($systemd): $(cat "$tmp/out")"
			touch "$tmp/systemctl.$systemd"
		done
		grep -q 'preset .*pmuguard-metrics.timer' "$tmp/systemctl.running" ||
			fail "%post does not preset the units: $(tr '\n' ';' <"$tmp/systemctl.running")"
		grep -qx 'start pmuguard-metrics.timer' "$tmp/systemctl.running" ||
			fail "%post does not start pmuguard-metrics.timer where systemd runs: $(tr '\n' ';' <"$tmp/systemctl.running")"
		! grep -q '^start' "$tmp/systemctl.absent" ||
			fail "%post starts a unit where systemd does not run: $(tr '\n' ';' <"$tmp/systemctl.absent")"
		! grep -Eq '^start .*pmuguard-(enforce|reprobe)' "$tmp/systemctl.running" ||
			fail "%post starts the follower or the re-probe: $(tr '\n' ';' <"$tmp/systemctl.running")"
		ok "%post presets the units and starts pmuguard-metrics.timer where systemd runs ($(tr '\n' ';' <"$tmp/systemctl.running")), nothing where it does not"
	fi
	! rpm -qp --provides "$rpmf" | grep -q libpmuguard || fail "the private library is advertised as a Provides"
	rpm -qp --qf '%{URL}\n' "$rpmf" | grep -q '^https://' || fail "no URL"
	grep -qx 'ExclusiveArch: *x86_64 aarch64' "$SRCDIR/scripts/rpm/pmuguard.spec" || fail "no ExclusiveArch"
	mkdir -p "$tmp/x"
	(cd "$tmp/x" && rpm2cpio "$rpmf" | cpio -idm --quiet)
	readelf -d "$tmp/x/usr/bin/pmuguard" | grep -q 'BIND_NOW\|FLAGS.*NOW' ||
		fail "%meson did not carry the distribution's -z now into pmuguard"
	"$SRCDIR/tests/e2e/portable-check.sh" 2.28 "$tmp/x/usr/bin/pmuguard" "$(find "$tmp/x" -name libpmuguard.so)" \
		>"$tmp/portable" 2>&1 || fail "the RPM's binaries are not portable: $(cat "$tmp/portable")"
	reqs=$(rpm -qp --requires "$rpmf" 2>/dev/null | grep -v '^rpmlib(' | sort -u | tr '\n' ' ')
	! printf '%s' "$reqs" | grep -Eq 'libbpf|libelf|libseccomp|libz\.so|GLIBC_2\.(29|[3-9][0-9])' ||
		fail "the RPM requires a library the static command does not load: $reqs"
	ok "RPM built with %meson (BIND_NOW), %check, URL, ExclusiveArch, the private library's Provides filtered, units and preset; portable; Requires: $reqs"
	# Installed with rpm into a tree of busybox alone (no glibc, no
	# libbpf: a host with nothing of ours), its scriptlets run there by rpm
	# (chrooted): %post, then pmuguard-fleet in the tree guards the m6i,
	# and the erase's %preun runs pmuguard-fleet uninstall.
	if [ "$(id -u)" = 0 ]; then
		busybox_tree "$tmp/rpmroot"
		rpm --root "$tmp/rpmroot" --initdb >"$tmp/out" 2>&1 || fail "rpm --initdb in the tree: $(cat "$tmp/out")"
		rpm --root "$tmp/rpmroot" -i --nodeps "$rpmf" >"$tmp/out" 2>&1 || fail "rpm -i into the tree: $(cat "$tmp/out")"
		rpm --root "$tmp/rpmroot" -q pmuguard >/dev/null || fail "rpm does not know the package in the tree"
		fleet_in_tree "$tmp/rpmroot"
		printf '/usr/lib/libother.so\n' >"$tmp/rpmroot/etc/ld.so.preload"
		in_tree_root "$tmp/rpmroot" pmuguard-fleet install --layer preload >"$tmp/out" 2>&1 || fail "install before the erase: $(cat "$tmp/out")"
		rpm --root "$tmp/rpmroot" -e pmuguard >"$tmp/out" 2>&1 || fail "rpm -e in the tree: $(cat "$tmp/out")"
		[ "$(cat "$tmp/rpmroot/etc/ld.so.preload")" = /usr/lib/libother.so ] ||
			fail "the erase's %preun did not take the entry out: $(cat "$tmp/rpmroot/etc/ld.so.preload")"
		[ ! -e "$tmp/rpmroot/usr/bin/pmuguard" ] || fail "the erase left the command"
		ok "rpm -i into a tree of busybox alone, scriptlets run there: pmuguard-fleet guarded the m6i ($(grep -c . "$tmp/tree.out") lines), rpm -e's %preun took the entry out"
	fi
	if command -v rpmlint >/dev/null; then
		rpmlint -r "$SRCDIR/scripts/rpm/rpmlintrc" "$rpmf" >"$tmp/out" 2>&1 ||
			fail "rpmlint: $(cat "$tmp/out")"
		ok "rpmlint: $(tail -n1 "$tmp/out")"
	fi
	;;
portable)
	# One build for every fleet (issue 48): the command of this build
	# (scripts/test builds it -Dportable=true) loads no library and asks no
	# glibc version, so it runs on glibc 2.28 and older and on none at all;
	# the preload library imports nothing.  The check can fail: a dynamic
	# program of this machine (glibc 2.36) is refused by it.
	readelf -d "$PMUGUARD" | grep -q '(NEEDED)' && skip "this build is not -Dportable=true (a distribution build)"
	"$SRCDIR/tests/e2e/portable-check.sh" 2.28 "$PMUGUARD" "$LIB" "$(dirname "$LIB")/pmuguard-canary" >"$tmp/out" 2>&1 ||
		fail "not portable: $(cat "$tmp/out")"
	if "$SRCDIR/tests/e2e/portable-check.sh" 2.28 /bin/true >"$tmp/control" 2>&1; then
		fail "the check passed /bin/true, which needs libc.so.6's GLIBC_2.34: it cannot fail"
	fi
	# And it runs where there is no glibc at all: a tree of busybox alone.
	busybox_tree "$tmp/bb"
	cp "$PMUGUARD" "$tmp/bb/usr/bin/pmuguard"
	cp -r "$M6I" "$tmp/bb/m6i"
	set +e
	in_tree_root "$tmp/bb" /usr/bin/pmuguard probe --snapshot /m6i --check -q >"$tmp/o" 2>&1
	r=$?
	set -e
	[ "$r" = 3 ] || fail "the command in a tree without glibc exited $r, not 3 (the m6i): $(cat "$tmp/o")"
	ok "portable: $(tr '\n' ';' <"$tmp/out") it runs in a tree with no glibc (probe --check: 3); the control /bin/true is refused ($(cat "$tmp/control"))"
	;;
tarball)
	# The plain tarball (scripts/build-tarball) for hosts with neither
	# dpkg nor rpm: what the packages install, the portable command, and
	# nothing else; unpacked into a tree of busybox alone, pmuguard-fleet
	# there guards the m6i (simulated by root's policy).
	[ "$(id -u)" = 0 ] || skip "chroot needs root"
	"$SRCDIR/scripts/build-tarball" "$tmp/tb" >"$tmp/path" 2>"$tmp/err" || fail "build-tarball: $(tail -n 5 "$tmp/err")"
	tb=$(cat "$tmp/path")
	case ${tb##*/} in pmuguard-*-"$(uname -m)".tar.gz) ;; *) fail "the tarball is named ${tb##*/}" ;; esac
	tar -tzf "$tb" >"$tmp/contents"
	for f in ./usr/bin/pmuguard ./usr/sbin/pmuguard-fleet ./usr/lib/pmuguard/libpmuguard.so \
		./usr/share/pmuguard/fleet/preload.sh ./usr/lib/systemd/system/pmuguard-reprobe.service \
		./usr/share/man/man8/pmuguard-fleet.8 ./usr/share/doc/pmuguard/COPYING \
		./usr/share/pmuguard/snapshots/m6i-16xlarge/cpuid.txt; do
		grep -qx "$f" "$tmp/contents" || fail "the tarball lacks $f"
	done
	[ -z "$(tar -tvzf "$tb" | awk '$2 != "0/0"')" ] || fail "the tarball has entries not root's"
	busybox_tree "$tmp/root"
	tar -xzf "$tb" -C "$tmp/root"
	"$SRCDIR/tests/e2e/portable-check.sh" 2.28 "$tmp/root/usr/bin/pmuguard" "$tmp/root/usr/lib/pmuguard/libpmuguard.so" \
		>"$tmp/out" 2>&1 || fail "the tarball's binaries are not portable: $(cat "$tmp/out")"
	fleet_in_tree "$tmp/root"
	ok "the tarball ($(du -k "$tb" | cut -f1) KiB, root's entries): portable, and unpacked into a tree of busybox alone pmuguard-fleet guarded the m6i and uninstalled"
	;;
versions-agree)
	# One version: scripts/version's (meson.build's release, the commit's
	# time and hash).  Everything built must say the same; what is written
	# by hand (debian/changelog, the spec's default and changelog, the man
	# pages) says the release.
	rel=$(sed -n "s/^  version : '\(.*\)',$/\1/p" "$SRCDIR/meson.build")
	[ -n "$rel" ] || fail "no version in meson.build"
	ver=$(sh "$SRCDIR/scripts/version") || fail "scripts/version failed"
	case $ver in
	"$rel".git[0-9]*.[0-9]*.g[0-9a-f]* | "$rel".git[0-9]*.[0-9]*.g[0-9a-f]*.dirty) ;;
	*) fail "scripts/version says '$ver' in a git checkout, not $rel.gitDATE.TIME.gHASH" ;;
	esac
	[ "$("$PMUGUARD" --version)" = "pmuguard $ver" ] || fail "pmuguard --version is '$("$PMUGUARD" --version)', not $ver"
	[ "$("$PMUGUARD" -V)" = "pmuguard $ver" ] || fail "pmuguard -V is not $ver"
	for v in --version -V; do
		[ "$(sh "$SRCDIR/scripts/pmuguard-fleet" "$v")" = "pmuguard-fleet $ver" ] || fail "pmuguard-fleet $v is not $ver"
	done
	fleet=$(dirname "$PMUGUARD")/../../pmuguard-fleet # the one meson installs
	grep -q "^FLEET_VERSION=$ver " "$fleet" || fail "the built pmuguard-fleet says $(grep '^FLEET_VERSION=' "$fleet"), not $ver"
	"$PMUGUARD" status --root "$tmp" --textfile "$tmp/m.prom" >/dev/null 2>&1 || :
	grep -qx "pmuguard_build_info{version=\"$ver\"} 1" "$tmp/m.prom" || fail "pmuguard_build_info is not $ver: $(grep build_info "$tmp/m.prom")"
	[ "$(sed -n '1s/^pmuguard (\([^)]*\)).*/\1/p' "$SRCDIR/debian/changelog")" = "$rel" ] ||
		fail "debian/changelog's version is not $rel"
	grep -q "^%{!?pmuguard_version:%global pmuguard_version $rel}\$" "$SRCDIR/scripts/rpm/pmuguard.spec" ||
		fail "the spec's default version is not $rel"
	grep -q "^\* .* - $rel-1\$" "$SRCDIR/scripts/rpm/pmuguard.spec" || fail "the spec's changelog is not for $rel"
	for m in probe/cli/pmuguard.1 scripts/pmuguard-fleet.8 probe/cli/pmuguard.conf.5; do
		grep -q "^\.TH .* \"pmuguard $rel\"" "$SRCDIR/$m" || fail "$m does not say pmuguard $rel"
	done
	# A copy (as the packages are built) and an archive of the commit say
	# the commit's version, dirtiness aside; the next commit's is newer
	# for dpkg and rpm alike.
	copy_tree "$SRCDIR" "$tmp/copy"
	[ "$(sh "$tmp/copy/scripts/version")" = "$ver" ] || fail "a copy of the tree says '$(sh "$tmp/copy/scripts/version")', not $ver"
	git -C "$SRCDIR" archive --format=tar HEAD scripts/version meson.build | tar -xf - -C "$tmp" --one-top-level=archive
	[ "$(sh "$tmp/archive/scripts/version")" = "${ver%.dirty}" ] ||
		fail "git archive's scripts/version says '$(sh "$tmp/archive/scripts/version")', not ${ver%.dirty}"
	if ! git -C "$SRCDIR" rev-parse -q --verify HEAD~1 >/dev/null; then
		ok "pmuguard --version/-V, pmuguard-fleet (source and built), pmuguard_build_info, a copy and git archive all say $ver (one commit: no earlier one to be newer than); the changelogs and man pages say the release $rel"
		exit 0
	fi
	prev=$rel.git$(TZ=UTC0 git -C "$SRCDIR" log -1 --format=%cd --date=format-local:%Y%m%d.%H%M%S HEAD~1).g$(git -C "$SRCDIR" log -1 --format=%h HEAD~1)
	dpkg --compare-versions "$ver" gt "$prev" || fail "dpkg: $ver is not newer than the commit before's $prev"
	dpkg --compare-versions "$prev" gt "$rel" || fail "dpkg: $prev is not newer than the bare release $rel"
	if command -v rpmdev-vercmp >/dev/null || python3 -c 'import rpm' 2>/dev/null; then
		python3 -c 'import rpm,sys; sys.exit(0 if rpm.labelCompare(("0",sys.argv[1],"1"),("0",sys.argv[2],"1"))>0 else 1)' "$ver" "$prev" ||
			fail "rpm: $ver is not newer than $prev"
	fi
	ok "pmuguard --version/-V, pmuguard-fleet (source and built), pmuguard_build_info, a copy and git archive all say $ver, newer than $prev; the changelogs and man pages say the release $rel"
	;;
man-pages)
	command -v mandoc >/dev/null || skip "mandoc is not installed"
	for m in probe/cli/pmuguard.1 scripts/pmuguard-fleet.8 probe/cli/pmuguard.conf.5; do
		mandoc -T lint -W all "$SRCDIR/$m" >"$tmp/out" 2>&1 || fail "mandoc -T lint $m: $(cat "$tmp/out")"
	done
	ok "pmuguard(1), pmuguard-fleet(8), pmuguard.conf(5): mandoc -T lint -W all is silent"
	;;
aws-documents)
	if ! python3 -c 'import yaml' 2>/dev/null; then skip "python3 with yaml is not installed"; fi
	python3 - "$SRCDIR/scripts/aws/pmuguard-ssm.yml" "$tmp/ssm.sh" "$tmp/ssm-install.sh" <<'PY' || fail "the SSM document is not valid"
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["schemaVersion"] == "2.2", d["schemaVersion"]
assert set(d["parameters"]["action"]["allowedValues"]) == {"install", "check", "rollback"}
for p in d["parameters"].values():
    assert p["type"] == "String" and "description" in p
    # Values as environment variables (SSM_NAME), never spliced into the
    # script where the agent can; each still bounded for older agents.
    assert p.get("interpolationType") == "ENV_VAR", p
    assert "allowedValues" in p or "allowedPattern" in p, p
steps = d["mainSteps"]
assert len(steps) == 1 and steps[0]["action"] == "aws:runShellScript", steps
script = "\n".join(steps[0]["inputs"]["runCommand"])
# Every {{ parameter }} used is declared.
import re
used = set(re.findall(r"\{\{\s*(\w+)\s*\}\}", script))
assert used <= set(d["parameters"]), used - set(d["parameters"])
render = lambda values: re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: str(values.get(m.group(1), d["parameters"][m.group(1)]["default"])), script)
open(sys.argv[2], "w").write(render({}))
open(sys.argv[3], "w").write(render({"action": "install"}))
# As a current agent runs it: every {{ }} left alone, the values in SSM_*.
open(sys.argv[3] + ".env", "w").write(re.sub(r"\{\{\s*(\w+)\s*\}\}", "UNRENDERED", script))
PY
	sh -n "$tmp/ssm.sh" || fail "the SSM document's script does not parse"
	if command -v shellcheck >/dev/null; then
		shellcheck -s sh "$tmp/ssm.sh" >"$tmp/out" 2>&1 || fail "shellcheck of the SSM script: $(cat "$tmp/out")"
	fi
	# action=install on a host that has the package, with pmuguard-fleet and
	# systemctl stand-ins that record their calls: the guard, then the boot
	# re-probe enabled and the metrics timer enabled and started.
	mkdir -p "$tmp/ssmbin"
	for c in pmuguard-fleet systemctl; do
		printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$c" "$tmp/ssm-calls" >"$tmp/ssmbin/$c"
		chmod 755 "$tmp/ssmbin/$c"
	done
	PATH="$tmp/ssmbin:$PATH" sh "$tmp/ssm-install.sh" >"$tmp/out" 2>&1 || fail "the SSM install failed: $(cat "$tmp/out")"
	[ "$(grep -n -x -e 'pmuguard-fleet install --layer auto' -e 'systemctl enable --now pmuguard-metrics.timer' \
		"$tmp/ssm-calls" | cut -d: -f2 | tr '\n' ';')" = 'pmuguard-fleet install --layer auto;systemctl enable --now pmuguard-metrics.timer;' ] ||
		fail "the SSM install does not start pmuguard-metrics.timer after the guard: $(tr '\n' ';' <"$tmp/ssm-calls")"
	: >"$tmp/ssm-calls"
	PATH="$tmp/ssmbin:$PATH" SSM_action=install SSM_layer=preload SSM_packageUrl='' \
		sh "$tmp/ssm-install.sh.env" >"$tmp/out" 2>&1 || fail "the SSM install (SSM_* values) failed: $(cat "$tmp/out")"
	grep -qx 'pmuguard-fleet install --layer preload' "$tmp/ssm-calls" ||
		fail "the SSM script did not take its values from SSM_*: $(tr '\n' ';' <"$tmp/ssm-calls")"
	python3 - "$SRCDIR/scripts/aws/cloud-init.yaml" <<'PY' || fail "the cloud-init snippet is not valid"
import sys, yaml
text = open(sys.argv[1]).read()
assert text.startswith("#cloud-config\n")
d = yaml.safe_load(text)
assert "pmuguard" in d["packages"]
assert ["pmuguard-fleet", "install"] in d["runcmd"]
# Metrics from the first boot on: the timer started after the guard.
timer = ["systemctl", "enable", "--now", "pmuguard-metrics.timer"]
assert timer in d["runcmd"], "runcmd does not enable and start pmuguard-metrics.timer"
assert d["runcmd"].index(timer) > d["runcmd"].index(["pmuguard-fleet", "install"]), d["runcmd"]
PY
	ok "SSM document (schema 2.2, aws:runShellScript, parameters declared, script parses and is shellcheck-clean; install guards, then enables and starts the metrics timer); cloud-init snippet (the guard, then the timer)"
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
		if [ $world = m6i ]; then
			grep -q 'changed=[1-9]' "$tmp/out" || fail "m6i: check mode does not show the change it would make"
		else
			grep -q 'changed=0' "$tmp/out" || fail "healthy: check mode shows a change"
		fi
		play
		if [ $world = m6i ]; then
			grep -q 'changed=1' "$tmp/out" || fail "m6i: the playbook reported no change"
			grep -qx /usr/lib/pmuguard/libpmuguard.so "$root/etc/ld.so.preload" ||
				fail "m6i: the preload was not enabled"
			play
			grep -q 'changed=0' "$tmp/out" || fail "m6i: a second run is not idempotent"
			play --check -e pmuguard_state=absent
			grep -q 'changed=[1-9]' "$tmp/out" || fail "m6i: check mode does not show the rollback"
			grep -qx /usr/lib/pmuguard/libpmuguard.so "$root/etc/ld.so.preload" || fail "m6i: check mode rolled back"
			play -e pmuguard_state=absent
			grep -q 'changed=1' "$tmp/out" || fail "m6i: the rollback reported no change"
		else
			grep -q 'changed=0' "$tmp/out" || fail "healthy: the playbook changed something"
		fi
		cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "$world: the file is not as it was"
		ok "$world: check mode changes nothing and shows what would; $([ $world = m6i ] && echo 'enabled, idempotent, rolled back byte for byte' || echo 'healthy host untouched')"
	done
	# A fresh host, without the package: check mode works and says what would change.
	root=$tmp/root-fresh
	mkdir -p "$root/etc"
	ansible-playbook -i localhost, -c local "$SRCDIR/scripts/ansible/pmuguard.yml" --check \
		-e pmuguard_manage_package=false -e ansible_become=false -e pmuguard_root="$root" \
		-e pmuguard_fleet=/nonexistent/pmuguard-fleet >"$tmp/out" 2>&1 || fail "check mode on a fresh host failed"
	grep -q 'changed=1' "$tmp/out" || fail "check mode on a fresh host does not say it would install"
	ok "fresh host: check mode succeeds and reports the install it would make"
	# Tags: status only changes nothing, even on a hazardous host.
	root=$tmp/root-m6i snap=$M6I
	play --tags pmuguard_status
	grep -q 'changed=0' "$tmp/out" || fail "--tags pmuguard_status changed something"
	cmp -s "$root/etc/ld.so.preload" "$tmp/orig" || fail "--tags pmuguard_status changed the file"
	ok "--tags pmuguard_status reports without changing anything"
	;;
ansible-package)
	# The README's command as printed, run from the operator's
	# directory with the .deb in it, on a fresh host (a mount namespace
	# whose /usr, /etc, /var are overlays kept across the runs, /run a
	# tmpfs, /sys/fs/bpf private, and a policy-rc.d refusing every start):
	# check mode installs nothing and says it would; a real run installs
	# the package, removes the copy and guards the m6i host; a second run
	# and check mode again change nothing.
	command -v ansible-playbook >/dev/null || skip "ansible-playbook is not installed (ansible-core)"
	{ command -v dpkg-buildpackage >/dev/null && [ -x /usr/bin/dh ]; } ||
		skip "dpkg-buildpackage and debhelper are not installed"
	[ "$(id -u)" = 0 ] || skip "installing the package needs root (in a private mount namespace)"
	/usr/bin/python3 -c 'import apt' 2>/dev/null || skip "python3-apt is not installed (the apt module needs it)"
	build_deb "$tmp/deb"
	# shellcheck disable=SC2016 # a dpkg-deb format, not an expansion
	ver=$(dpkg-deb --show --showformat='${Version}' "$deb")
	in_ns() { in_sandbox "$tmp/ns-state" "$@"; }
	# The host's own policy names its world (pmuguard_snapshot): the
	# install locks the policy (PMUGUARD_SNAPSHOT is ignored then: the
	# role refuses it, case ansible-snapshot-in-the-environment-refused),
	# and status's canary runs with an empty environment.
	mkdir -p "$tmp/ns-state/etc-up"
	# The operator's directory: the .deb, and a checkout of pmuguard.
	mkdir -p "$tmp/operator" "$tmp/home"
	ops=$(cd "$tmp/operator" && pwd -P)
	cp "$deb" "$ops/"
	ln -s "$SRCDIR" "$ops/pmuguard"
	debfile=./$(basename "$deb")
	export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false \
		ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP=$tmp/ansible ANSIBLE_REMOTE_TEMP=$tmp/ansible HOME=$tmp/home
	# play PLAYBOOK ARGS...: the README's command; -i localhost, -c local
	# for the inventory, and for the sandbox: no sudo, the preload layer
	# (the kernel guard would reach the machine's kernel), the m6i snapshot.
	play() {
		(cd "$ops" && in_ns ansible-playbook -i localhost, -c local "$@" \
			-e ansible_become=false -e pmuguard_layer=preload \
			-e pmuguard_snapshot="$M6I") >"$tmp/out" 2>&1
	}
	host() { in_ns sh -c "$1" >"$tmp/host" 2>"$tmp/host.err"; }
	# shellcheck disable=SC2016 # a dpkg-query format, not an expansion
	installed() { host 'dpkg-query -W -f="\${db:Status-Status} \${Version}" pmuguard' && [ "$(cat "$tmp/host")" = "installed $ver" ]; }
	# The copy's directory, pmuguard-package.XXXXXXXX in /var/tmp (the
	# default pmuguard_package_dest), goes with the copy.
	# shellcheck disable=SC2016 # expanded by the sandbox's shell
	copied_gone() { host 'set -- /var/tmp/pmuguard-package.*; [ ! -e "$1" ]'; }
	guarded() { host 'grep -q libpmuguard /etc/ld.so.preload'; }
	source_play=pmuguard/scripts/ansible/pmuguard.yml
	installed_play=/usr/share/pmuguard/ansible/pmuguard.yml

	play "$source_play" -e pmuguard_package_file="$debfile" --check --diff ||
		fail "--check --diff on a fresh host failed"
	grep -q 'changed=[1-9]' "$tmp/out" || fail "check mode on a fresh host reports no change"
	grep -q "would install pmuguard $ver from $ops/" "$tmp/out" || fail "check mode does not say what it would install"
	! installed || fail "check mode installed the package"
	copied_gone || fail "check mode copied the package"
	! guarded || fail "check mode guarded the host"
	ok "--check --diff on a fresh host: reports the install ($ver), installs and copies nothing"

	play "$source_play" -e pmuguard_package_file="$debfile" || fail "the real run failed"
	grep -q 'changed=[1-9]' "$tmp/out" || fail "the real run reports no change"
	installed || fail "the real run did not install pmuguard $ver: $(cat "$tmp/host")"
	copied_gone || fail "the copied package is left in /var/tmp/pmuguard-package.*"
	guarded || fail "the real run did not guard the m6i host"
	ok "real run (the checkout's playbook): pmuguard $ver installed, the copy removed, the m6i host guarded"
	# The package asked policy-rc.d to start the timer and was refused (the
	# sandbox's); the role then started it, through systemctl (the
	# stand-in's log and mark), and its task says so.
	grep -qx 'pmuguard-metrics.timer start' "$tmp/ns-state/policy-rc.d.log" ||
		fail "the package's postinst did not ask to start pmuguard-metrics.timer"
	grep -A1 '^TASK \[pmuguard : Refresh the metrics every 5 minutes' "$tmp/out" | grep -q '^changed: \[localhost\]' ||
		fail "the role has no task that starts pmuguard-metrics.timer, or it did not change it: $(grep -A1 'pmuguard-metrics\|Refresh the metrics' "$tmp/out")"
	{ grep -qx 'start pmuguard-metrics.timer' "$tmp/ns-state/systemctl.log" &&
		[ -e "$tmp/ns-state/systemctl-active/pmuguard-metrics.timer" ]; } ||
		fail "the role did not run systemctl start pmuguard-metrics.timer: $(tr '\n' ';' <"$tmp/ns-state/systemctl.log")"
	ok "the package's start of pmuguard-metrics.timer was refused (policy-rc.d); the role's task started it (changed, systemctl start)"

	play "$installed_play" -e pmuguard_package_file="$debfile" || fail "the second run failed"
	grep -q 'changed=0' "$tmp/out" || fail "a second run is not idempotent"
	play "$installed_play" -e pmuguard_package_file="$debfile" --check --diff || fail "check mode after the install failed"
	grep -q 'changed=0' "$tmp/out" || fail "check mode after the install reports a change"
	copied_gone || fail "a copy of the package is left in /var/tmp/pmuguard-package.*"
	ok "the installed playbook: a second run and check mode again report changed=0"

	play "$source_play" -e pmuguard_package_file=./pmuguard_0.0.0_amd64.deb --check &&
		fail "a missing package file did not fail"
	grep -q "$ops/pmuguard_0.0.0_amd64.deb .*is not a .deb or .rpm file on the controller" "$tmp/out" ||
		fail "a missing package file does not fail with its path"
	ok "a missing package file fails early, with the path resolved against the operator's directory"
	;;
ansible-swap-refused)
	# The security finding against the copy path: a local user who owns the
	# directory the package is copied to can swap the .deb between the copy
	# and the install, and root runs the swapped package's maintainer
	# scripts.  Here an unprivileged user (uid 65534) makes /var/tmp/pmuguard
	# (the old pmuguard_package_dest) before the rollout and watches it with
	# inotifywait, replacing every .deb written there with a hostile one of
	# the same name and version whose postinst leaves a marker.  In the
	# sandbox, in a PID namespace of its own (the attacker dies with it):
	# pointed at that directory, the playbook refuses it and names its
	# owner; by default it installs the real package (its md5sums are the
	# .deb's) and leaves no copy.  The marker never appears.
	command -v ansible-playbook >/dev/null || skip "ansible-playbook is not installed (ansible-core)"
	{ command -v dpkg-buildpackage >/dev/null && [ -x /usr/bin/dh ]; } ||
		skip "dpkg-buildpackage and debhelper are not installed"
	[ "$(id -u)" = 0 ] || skip "installing the package and becoming another user need root (in a private mount namespace)"
	/usr/bin/python3 -c 'import apt' 2>/dev/null || skip "python3-apt is not installed (the apt module needs it)"
	command -v inotifywait >/dev/null || skip "inotifywait is not installed (Debian package inotify-tools)"
	command -v setpriv >/dev/null || skip "setpriv is not installed (util-linux)"
	unshare --mount --pid --fork --mount-proc true 2>/dev/null || skip "cannot make mount and PID namespaces (unshare)"
	build_deb "$tmp/deb"
	# shellcheck disable=SC2016 # a dpkg-deb format, not an expansion
	ver=$(dpkg-deb --show --showformat='${Version}' "$deb")
	marker=/var/lib/pmuguard-hostile-postinst-ran
	# The hostile package: the real one's name and version, no files, and a
	# postinst that would run as root.
	mkdir -p "$tmp/hostile/DEBIAN"
	printf '%s\n' "Package: pmuguard" "Version: $ver" "Architecture: all" \
		"Maintainer: attacker <attacker@localhost>" "Description: hostile stand-in" \
		>"$tmp/hostile/DEBIAN/control"
	printf '#!/bin/sh\ntouch %s\n' "$marker" >"$tmp/hostile/DEBIAN/postinst"
	chmod 755 "$tmp/hostile/DEBIAN/postinst"
	dpkg-deb --root-owner-group -b "$tmp/hostile" "$tmp/hostile.deb" >/dev/null
	# The attacker: every .deb that appears in DIR (moved in, or written and
	# closed) is replaced at once; a line on stdout says when the watch is
	# in place.
	cat >"$tmp/watch" <<'SH'
set -u
d=$1 hostile=$2 log=$3
inotifywait -m -e close_write -e moved_to --format '%f' "$d" 2>&1 </dev/null |
while IFS= read -r f; do
	case $f in
	'Watches established.') echo ready ;;
	'Setting up watches.' | .*) ;;
	*.deb)
		if ! cmp -s "$d/$f" "$hostile"; then
			cp "$hostile" "$d/.swap" && mv -f "$d/.swap" "$d/$f" && echo "swapped $f" >>"$log"
		fi
		;;
	*) echo "inotifywait: $f" >>"$log" ;;
	esac
done
SH
	mkdir -p "$tmp/operator" "$tmp/home"
	ops=$(cd "$tmp/operator" && pwd -P)
	cp "$deb" "$ops/"
	# In the sandbox, as root: the attacker first, then the two rollouts.
	cat >"$tmp/script" <<SH
set -eu
a=/var/tmp/attacker d=/var/tmp/pmuguard
as_attacker() { setpriv --reuid=65534 --regid=65534 --clear-groups --reset-env -- "\$@"; }
as_attacker mkdir -m 0755 \$a \$d
install -o 65534 -g 65534 -m 0644 $tmp/hostile.deb \$a/hostile.deb
install -o 65534 -g 65534 -m 0644 $tmp/watch \$a/watch
exec 3< <(as_attacker bash \$a/watch \$d \$a/hostile.deb \$a/log)
read -r line <&3 || line="the watcher ended: \$(cat \$a/log 2>/dev/null)"
[ "\$line" = ready ] || { echo "NO WATCHER: \$line"; exit 1; }
echo "attacker watching \$d"
cd $ops
play() {
	ansible-playbook -i localhost, -c local $SRCDIR/scripts/ansible/pmuguard.yml \
		-e pmuguard_package_file=./$(basename "$deb") -e ansible_become=false -e pmuguard_layer=preload \
		-e pmuguard_snapshot=$M6I "\$@"
}
real() {
	[ "\$(dpkg-query -W -f='\${db:Status-Status} \${Version}' pmuguard 2>/dev/null)" = "installed $ver" ] &&
		[ "\$(dpkg-query --control-show pmuguard md5sums 2>/dev/null)" = "\$(dpkg-deb -I $deb md5sums)" ]
}
if play -e pmuguard_package_dest=\$d >$tmp/play-attacker-dir 2>&1; then
	echo "attacker's dir: play succeeded"
else
	echo "attacker's dir: play failed"
fi
if [ -e $marker ]; then echo "HOSTILE POSTINST RAN (attacker's dir)"; rm $marker; fi
dpkg-query -W pmuguard >/dev/null 2>&1 || echo "attacker's dir: nothing installed"
if play >$tmp/play-default 2>&1; then echo "default: play succeeded"; else echo "default: play failed"; fi
[ -e $marker ] && echo "HOSTILE POSTINST RAN (default)"
if real; then echo "default: real package installed"; fi
set -- /var/tmp/pmuguard-package.*
[ ! -e "\$1" ] && echo "default: no copy left"
[ ! -s \$a/log ] || sed 's/^/attacker: /' \$a/log
SH
	export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false \
		ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP=$tmp/ansible ANSIBLE_REMOTE_TEMP=$tmp/ansible HOME=$tmp/home
	# The attacker lives in a PID namespace that dies with the script, and the
	# script with this shell (--pdeathsig: the sandbox execs its way to it,
	# so this shell is its parent), even killed: a test killed at any point
	# leaves no process behind, and nothing outside $tmp.
	mkdir -p "$tmp/ns-state/etc-up"
	in_sandbox "$tmp/ns-state" setpriv --pdeathsig KILL -- \
		unshare --pid --fork --kill-child --mount-proc bash "$tmp/script" >"$tmp/out" 2>"$tmp/err" ||
		fail "the sandbox's script failed"
	grep -q 'attacker watching' "$tmp/out" || fail "the attacker's watcher did not start"
	! grep -q 'HOSTILE POSTINST RAN' "$tmp/out" ||
		fail "root ran the swapped package's postinst: $(grep -E 'HOSTILE|attacker:' "$tmp/out" | tr '\n' ' ')"
	grep -q "attacker's dir: play failed" "$tmp/out" ||
		fail "the playbook used /var/tmp/pmuguard, owned by uid 65534: $(cat "$tmp/out")"
	grep -q "pmuguard_package_dest=/var/tmp/pmuguard is owned by .*uid 65534" "$tmp/play-attacker-dir" ||
		fail "the refusal does not name the directory and its owner: $(grep -A3 'FAILED' "$tmp/play-attacker-dir")"
	grep -q "attacker's dir: nothing installed" "$tmp/out" || fail "the refused rollout installed a package"
	ok "pmuguard_package_dest owned by another user (uid 65534, watching it): refused, with its owner named; nothing installed"
	grep -q 'default: play succeeded' "$tmp/out" || fail "the default rollout failed: $(tail -n 30 "$tmp/play-default")"
	grep -q 'default: real package installed' "$tmp/out" || fail "the default rollout did not install the real package"
	grep -q 'default: no copy left' "$tmp/out" || fail "the default rollout left its copy in /var/tmp"
	! grep -q 'attacker: swapped' "$tmp/out" || fail "the attacker swapped a copy: $(grep attacker: "$tmp/out")"
	ok "by default, with the attacker watching: the real pmuguard $ver installed (its md5sums), the copy and its directory removed, the hostile postinst never ran"
	;;
ansible-rollback-drops-its-lines)
	# The rollback takes away what the role wrote for a simulation (issue
	# 50, item 10): pmuguard_snapshot's line, and a policy file the role
	# wrote for it with the lock = yes install added; a later install (by
	# cloud-init, SSM) judges the host by its own facts.  In the
	# administrator's file only the role's line goes.  The checkout's
	# command, script and library (no package) in the sandbox of a host.
	command -v ansible-playbook >/dev/null || skip "ansible-playbook is not installed (ansible-core)"
	[ "$(id -u)" = 0 ] || skip "the live host's /etc/pmuguard.conf needs root (in a private mount namespace)"
	export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false \
		ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP=$tmp/ansible ANSIBLE_REMOTE_TEMP=$tmp/ansible HOME=$tmp/home
	mkdir -p "$tmp/home"
	for start in none admin; do
		st=$tmp/ns-$start
		mkdir -p "$st/etc-up"
		[ "$start" = none ] || printf '# site policy\nlog = syslog\n' >"$st/etc-up/pmuguard.conf"
		play() {
			in_sandbox "$st" ansible-playbook -i localhost, -c local "$SRCDIR/scripts/ansible/pmuguard.yml" \
				-e ansible_become=false -e pmuguard_manage_package=false -e pmuguard_layer=preload \
				-e pmuguard_bin="$PMUGUARD" -e pmuguard_fleet="$FLEET" -e pmuguard_lib="$LIB" \
				-e pmuguard_snapshot="$M6I" --skip-tags pmuguard_boot,pmuguard_metrics "$@" \
				>"$tmp/out" 2>&1 || fail "$start: ansible-playbook $* failed" # (no package: no units)
		}
		conf() { in_sandbox "$st" cat /etc/pmuguard.conf 2>/dev/null; }
		play
		grep -q 'changed=[1-9]' "$tmp/out" || fail "$start: the install changed nothing"
		conf | grep -qx "snapshot = $M6I  # pmuguard Ansible role (pmuguard_snapshot)" ||
			fail "$start: the simulation's line is not the role's: $(conf)"
		conf | grep -qx 'lock = yes' || fail "$start: install did not lock the policy: $(conf)"
		play -e pmuguard_state=absent
		if [ "$start" = none ]; then
			! in_sandbox "$st" test -e /etc/pmuguard.conf ||
				fail "none: the rollback left the role's policy file: $(conf)"
		else
			! conf | grep -q '^snapshot' || fail "admin: the rollback left the simulation's line: $(conf)"
			{ conf | grep -qx '# site policy' && conf | grep -qx 'log = syslog'; } ||
				fail "admin: the administrator's lines are gone: $(conf)"
		fi
	done
	ok "the rollback removes the role's own simulation: its policy file (lock = yes with it), or its line in the administrator's"
	;;
ansible-snapshot-in-the-environment-refused)
	# Issue 40 (6): PMUGUARD_SNAPSHOT in pmuguard_environment on a live
	# host made install guard one host and the verify, under the lock
	# install set, judge another.  The role refuses it, naming
	# pmuguard_snapshot, before anything (check mode: nothing could be
	# written in any case).
	play_check -e "{\"pmuguard_environment\": {\"PMUGUARD_SNAPSHOT\": \"$M6I\"}}"
	[ "$r" != 0 ] || fail "the role took PMUGUARD_SNAPSHOT on a live host under its lock"
	grep -q 'set pmuguard_snapshot instead' "$tmp/out" || fail "the refusal does not name pmuguard_snapshot: $(cat "$tmp/out")"
	ok "PMUGUARD_SNAPSHOT in pmuguard_environment on a live host under the lock: refused, pmuguard_snapshot named"
	;;
ansible-typo-one-line)
	# Issue 50 (15): a mistyped value was one line inside a dump of every
	# variable's spec (the role's argument validation), and a mistyped
	# name was not seen at all (pmuguard_stat=absent rolled nothing back).
	# The playbook checks both against the role's argument spec first,
	# one line each, before the role does anything.
	play_check -e pmuguard_stat=absent -e pmuguard_layer=kernal
	[ "$r" != 0 ] || fail "the play went on with a mistyped name and value: $(cat "$tmp/out")"
	grep -q 'pmuguard_stat is not a variable of the pmuguard role (mistyped? its variables: .*pmuguard_state' "$tmp/out" ||
		fail "the mistyped name is not said: $(cat "$tmp/out")"
	grep -q 'pmuguard_layer=kernal is not one of auto, kernel, preload' "$tmp/out" ||
		fail "the mistyped value is not said in one line: $(cat "$tmp/out")"
	! grep -q 'argument_spec_data\|Validating arguments' "$tmp/out" || fail "the role's validation ran (its dump): $(cat "$tmp/out")"
	ok "a mistyped variable name and value: one line each, from the role's argument spec, before the role runs"
	;;
ansible-lint)
	command -v ansible-lint >/dev/null || skip "ansible-lint is not installed"
	mkdir -p "$tmp/lint"
	cp -r "$SRCDIR/scripts/ansible/." "$tmp/lint/"
	(cd "$tmp/lint" && NO_COLOR=1 HOME=$tmp ANSIBLE_LOCAL_TEMP=$tmp/ansible ansible-lint --offline -p pmuguard.yml roles/pmuguard) \
		>"$tmp/out" 2>&1 || fail "ansible-lint: $(cat "$tmp/out")"
	ok "ansible-lint (every rule, offline) is clean: playbook and role"
	;;
build-deb-tree)
	# What an in-tree dpkg-buildpackage leaves is no source: tree_files must
	# not list it, or scripts/build-deb copies debhelper's dangling links
	# and dies.  A copy that fails says which file and why; build-deb says
	# each stage on stderr.  In a git copy of the tree (the checkout is
	# never written to), with a stub dpkg-buildpackage: no real build.
	command -v git >/dev/null || skip "git is not installed"
	copy_tree "$SRCDIR" "$tmp/tree"
	git -C "$tmp/tree" init -q && git -C "$tmp/tree" add -A >/dev/null
	for f in debian/.debhelper/pmuguard/dbgsym-root/x debian/pmuguard/usr/bin/pmuguard debian/files \
		debian/pmuguard.substvars debian/debhelper-build-stamp debian/pmuguard.debhelper.log \
		debian/pmuguard.postrm.debhelper debian/tmp/x obj-x86_64-linux-gnu/build.ninja; do
		mkdir -p "$tmp/tree/${f%/*}" && : >"$tmp/tree/$f"
	done
	ln -s /nonexistent/pmuguard-dbgsym "$tmp/tree/debian/.debhelper/pmuguard/dbgsym-root/doc"
	listed=$(tree_files "$tmp/tree" | tr '\0' '\n' | grep -E '^(debian/(\.debhelper|pmuguard/|tmp/|files$|.*\.substvars$|debhelper-build-stamp$|.*\.debhelper(\.log)?$)|obj-)' || true)
	[ -z "$listed" ] || fail "tree_files lists the debhelper outputs: $listed"
	copy_tree "$tmp/tree" "$tmp/copy1" 2>"$tmp/err" || fail "a tree with debhelper's outputs beside it was not copied"
	ok "tree_files leaves out debhelper's outputs and obj-*/; the tree copies beside them"
	ln -s /nonexistent/target "$tmp/tree/dangling"
	if copy_tree "$tmp/tree" "$tmp/copy2" 2>"$tmp/err"; then fail "a dangling link was copied without a word"; fi
	grep -q "cannot copy the tree $tmp/tree into $tmp/copy2: cannot stat 'dangling'" "$tmp/err" ||
		fail "the failed copy does not say which file: $(cat "$tmp/err")"
	ok "a copy that fails says which file and why: $(cat "$tmp/err")"
	rm "$tmp/tree/dangling"
	[ -x /usr/bin/dh ] || skip "debhelper is not installed (scripts/build-deb requires it)"
	mkdir -p "$tmp/bin"
	printf '#!/bin/sh\n: >../pmuguard_0.0.0_amd64.deb\n' >"$tmp/bin/dpkg-buildpackage"
	chmod +x "$tmp/bin/dpkg-buildpackage"
	cp "$SRCDIR/scripts/build-deb" "$SRCDIR/scripts/lib.sh" "$tmp/tree/scripts/"
	PATH=$tmp/bin:$PATH "$tmp/tree/scripts/build-deb" "$tmp/debout" >"$tmp/out" 2>"$tmp/err" ||
		fail "scripts/build-deb with a stub dpkg-buildpackage failed"
	[ "$(cat "$tmp/out")" = "$tmp/debout/pmuguard_0.0.0_amd64.deb" ] || fail "stdout is not the .deb's path: $(cat "$tmp/out")"
	for s in "copying $tmp/tree into" "dpkg-buildpackage -us -uc -b in the copy" "copying the .deb into $tmp/debout"; do
		grep -q "^build-deb: $s" "$tmp/err" || fail "build-deb does not say '$s' on stderr: $(cat "$tmp/err")"
	done
	ok "build-deb says each stage on stderr ($(wc -l <"$tmp/err") lines), the .deb's path alone on stdout"
	;;
kubernetes)
	# The DaemonSet against the Kubernetes API's OpenAPI schemas
	# (npm's kubernetes-models, pinned in tests/k8s/package-lock.json) and
	# the guard's needs; each required host mount, the readiness probe and
	# the capability set removed in turn must be refused.
	command -v node >/dev/null || skip "node is not installed (Debian package nodejs)"
	command -v npm >/dev/null || skip "npm is not installed"
	cp "$SRCDIR/tests/k8s/package.json" "$SRCDIR/tests/k8s/package-lock.json" "$SRCDIR/tests/k8s/validate.mjs" "$tmp/"
	# shellcheck disable=SC2097,SC2098 # the cache stays the real $HOME's
	(cd "$tmp" && HOME=$tmp/home npm_config_cache=${npm_config_cache:-$HOME/.npm} timeout 300 npm ci --no-audit --no-fund) >"$tmp/npm.out" 2>&1 ||
		fail "npm ci (kubernetes-models): $(tail -n 5 "$tmp/npm.out")"
	node "$tmp/validate.mjs" --self-test "$SRCDIR/deploy/kubernetes/pmuguard-agent.yaml" >"$tmp/out" 2>&1 ||
		fail "$(cat "$tmp/out")"
	cat "$tmp/out"
	ok "the DaemonSet validates against the API schemas; without a host mount or the readiness probe it does not"
	# Copies of the manifest with one edit each, as a hand would make it:
	# strict validation (kubectl --validate=strict, the API server's
	# int-or-string rules) refuses every one.
	n=0
	while IFS='|' read -r what expr; do
		n=$((n + 1))
		sed -e "$expr" "$SRCDIR/deploy/kubernetes/pmuguard-agent.yaml" >"$tmp/mutant$n.yaml"
		! cmp -s "$tmp/mutant$n.yaml" "$SRCDIR/deploy/kubernetes/pmuguard-agent.yaml" ||
			fail "the edit '$expr' ($what) changed nothing: the test is stale"
		if node "$tmp/validate.mjs" "$tmp/mutant$n.yaml" >"$tmp/out" 2>&1; then
			fail "a manifest $what is accepted: $(cat "$tmp/out")"
		fi
		ok "a manifest $what is refused: $(head -n 1 "$tmp/out")"
	done <<'EOF'
with readOnlyRootFilesytem misspelt|s/readOnlyRootFilesystem:/readOnlyRootFilesytem:/
with initialDelaySecond misspelt|s/initialDelaySeconds:/initialDelaySecond:/
with maxUnavailable: "one"|s/maxUnavailable: 1$/maxUnavailable: "one"/
with maxUnavailable: 150%|s/maxUnavailable: 1$/maxUnavailable: "150%"/
with periodSeconds given twice|/^ *periodSeconds: 30$/p
with mountPropagation misspelt|s/mountPropagation:/mountPropogation:/
with the textfile's hostPath type misspelt|s/type: DirectoryOrCreate$/type: DirectoryorCreate/
EOF
	;;
image-source-never-a-local-path)
	# Issue 50 (16): the image's org.opencontainers.image.source was git's
	# origin as it stood, the builder's checkout path where it was cloned
	# from one.  Only a URL others can fetch is a source: a path or a
	# file:// URL is "unknown" (and refused as PMUGUARD_IMAGE_SOURCE), an
	# https URL loses its credentials.
	sed -n '/^public_url() {$/,/^}$/p' "$SRCDIR/deploy/image/build.sh" >"$tmp/f.sh"
	[ -s "$tmp/f.sh" ] || fail "deploy/image/build.sh has no public_url()"
	# shellcheck source=/dev/null
	. "$tmp/f.sh"
	while read -r in want; do
		got=$(public_url "$in")
		[ "$got" = "${want#-}" ] || fail "public_url $in: '$got', not '${want#-}'"
	done <<'URLS'
/work/main -
../pmuguard -
file:///srv/git/pmuguard.git -
pmuguard -
https://user:token@github.com/o/pmuguard.git https://github.com/o/pmuguard.git
https://github.com/o/pmuguard https://github.com/o/pmuguard
git@github.com:o/pmuguard.git ssh://git@github.com/o/pmuguard.git
ssh://git@example.org/pmuguard ssh://git@example.org/pmuguard
URLS
	ok "the image's source label: a local path, a bare name or file:// is no source; https loses its credentials, scp-like git@host:path is ssh://"
	;;
agent-image)
	# The node agent's OCI image builds offline from this build (buildah,
	# FROM scratch): its entrypoint is `pmuguard enforce agent`, it holds
	# the command, its libraries and the loader, and no shell.  It ships
	# the copyright file of every Debian package a copied library comes
	# from; it is SOURCE_DATE_EPOCH's (created, its label, every file's
	# mtime), and two builds are the same bytes; it carries the OCI labels
	# source, revision, version, licenses and created.
	command -v buildah >/dev/null || skip "buildah is not installed (Debian package buildah)"
	command -v dpkg-query >/dev/null || skip "dpkg-query is not installed (the libraries' packages)"
	"$PMUGUARD" enforce --help >/dev/null 2>&1 || skip "pmuguard was built without enforce"
	build=$(cd "$(dirname "$PMUGUARD")/../.." && pwd)
	for n in 1 2; do
		SOURCE_DATE_EPOCH=1700000000 PMUGUARD_IMAGE_SOURCE=https://example.org/pmuguard \
			"$SRCDIR/deploy/image/build.sh" "$build" "$tmp/agent$n.tar" >"$tmp/out" 2>&1 || fail "$(cat "$tmp/out")"
	done
	BUILD=$build python3 - "$tmp/agent1.tar" 1700000000 "$SRCDIR" <<'PY' || fail "the image is not what it should be"
import io, json, os, subprocess, sys, tarfile, time
t = tarfile.open(sys.argv[1])
sde, src = int(sys.argv[2]), sys.argv[3]
def member(name):
    for n in (name, "./" + name):
        try:
            return t.extractfile(n).read()
        except KeyError:
            pass
    raise KeyError(name)
blob = lambda d: member("blobs/" + d.replace(":", "/"))
index = json.loads(member("index.json"))
manifest = json.loads(blob(index["manifests"][0]["digest"]))
config = json.loads(blob(manifest["config"]["digest"]))
assert config["config"]["Entrypoint"] == ["/usr/bin/pmuguard", "enforce", "agent"], config["config"]
names, mtimes = set(), set()
for layer in manifest["layers"]:
    with tarfile.open(fileobj=io.BytesIO(blob(layer["digest"]))) as l:
        for m in l.getmembers():
            names.add(m.name.lstrip("./"))
            mtimes.add(m.mtime)
assert "usr/bin/pmuguard" in names, sorted(names)
static = subprocess.run(["readelf", "-d", os.path.join(os.environ["BUILD"], "probe/cli/pmuguard")],
                        capture_output=True, text=True).stdout.find("(NEEDED)") < 0
if static:
    # The portable build: the binary alone, the licences of what it links in.
    assert not any(".so" in n or n.startswith("lib64/") for n in names), sorted(names)
    for p in ("libc6", "libbpf1", "libelf1", "libseccomp2", "zlib1g"):
        assert f"usr/share/doc/{p}/copyright" in names, f"no copyright file of {p}, linked in"
else:
    assert any(n.endswith("libbpf.so.1") for n in names) and any(n.startswith("lib64/ld-linux") for n in names), sorted(names)
assert not any(n in ("bin/sh", "usr/bin/sh", "bin/bash") for n in names), "a shell in the image"
# Each copied library's Debian package, as dpkg knows it (the /usr-merged
# spellings of its path and of the file it leads to, in turn).
libs = sorted(n for n in names if n.startswith(("lib/", "lib64/", "usr/lib")) and ".so" in n)
def owner(path):
    for p in ("/" + path, os.path.realpath("/" + path)):
        for c in (p, p.removeprefix("/usr"), "/usr" + p):
            r = subprocess.run(["dpkg-query", "-S", c], capture_output=True, text=True)
            if r.returncode == 0:
                return r.stdout.split(":")[0].split(",")[0]
    raise AssertionError(f"no Debian package owns /{path}")
pkgs = sorted({owner(l) for l in libs})
missing = [p for p in pkgs if f"usr/share/doc/{p}/copyright" not in names]
assert not missing, f"no copyright file in the image for {missing} (the libraries {libs})"
assert "usr/share/doc/pmuguard/COPYING" in names
created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(sde))
assert config["created"] == created, f"created {config['created']}, SOURCE_DATE_EPOCH says {created}"
assert mtimes == {sde}, f"file times {sorted(mtimes)}, SOURCE_DATE_EPOCH is {sde}"
labels = config["config"].get("Labels") or {}
want = {"org.opencontainers.image.source": "https://example.org/pmuguard",
        "org.opencontainers.image.created": created}
for k, v in want.items():
    assert labels.get(k) == v, f"label {k}: {labels.get(k)!r}, not {v!r}"
for k in ("revision", "version", "licenses"):
    assert labels.get("org.opencontainers.image." + k), f"no label org.opencontainers.image.{k}: {labels}"
head = subprocess.run(["git", "-C", src, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
if head:
    assert labels["org.opencontainers.image.revision"].removesuffix("-dirty") == head, labels["org.opencontainers.image.revision"]
for lic in ("GPL-2.0-or-later", "Zlib"):
    assert lic in labels["org.opencontainers.image.licenses"], labels["org.opencontainers.image.licenses"]
print("ok: entrypoint", config["config"]["Entrypoint"], "files", len(names), "copyright files of", pkgs,
      "created", config["created"], "revision", labels["org.opencontainers.image.revision"])
PY
	cmp -s "$tmp/agent1.tar" "$tmp/agent2.tar" || fail "two builds of one tree at one SOURCE_DATE_EPOCH differ"
	ok "two builds with SOURCE_DATE_EPOCH=1700000000: the same archive, byte for byte (sha256 $(sha256sum <"$tmp/agent1.tar" | cut -c1-16))"
	ok "the agent's image: $(tail -n 1 "$tmp/out")"
	;;
*)
	echo "unknown case $case_name"
	exit 2
	;;
esac
echo "PASS: $case_name"
