# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# pmuguard-fleet: the command line (the usage texts, the options) and the
# words it prints.  fleet_options sets the options, once: CMD, ROOT,
# FORCE, NO_LOCK, LIB, PMUGUARD, LAYER (and LAYER_GIVEN), JSON, TEXTFILE,
# SYSLOG_FILE, QUIET, DRY_RUN.

usage_main() {
	cat <<'EOF'
Usage: pmuguard-fleet COMMAND [OPTIONS]

Guard this host against perf tools reaching a fixed counter (3: TOPDOWN.SLOTS;
4-6: the E-cores' topdown counters) its PMU advertises but does not implement
(AWS m6i and kin), where
`pmuguard probe --check` finds that hazard; leave healthy hosts alone.

Commands:
  install     guard the host if it has the hazard: the kernel guard
              (pmuguard enforce) where the kernel takes it, else the
              system-wide preload (/etc/ld.so.preload)
  uninstall   remove the guard: our preload entry, and the kernel guard
  remove      the same as uninstall
  reprobe     probe again and make the host match: guard a hazardous host,
              unguard a healthy one; quiet when nothing changes (the boot
              unit pmuguard-reprobe.service runs this)
  status      protected or not, by which layer (seen to work), since and
              verified when, the verdict, the blocks counted
  -V, --version  print pmuguard-fleet's version

Options (each command's --help says which it takes):
  --layer auto|kernel|preload   which guard to install (default auto;
                                preload under --root)
  --force                       install even where the probe finds no hazard
  --no-lock                     install, reprobe: leave /etc/pmuguard.conf as
                                it is (default: make sure it has lock = yes,
                                so no user can switch the guard off)
  --root DIR                    act on the files under DIR, not /
  --lib PATH                    the library path to list (as the loader sees it)
  --pmuguard PATH               the pmuguard command (default: from PATH)
  --json                        status: one JSON object on stdout
  --textfile FILE               status, reprobe: also write node_exporter
                                metrics to FILE (atomically)
  --syslog-file FILE            status: count blocks in FILE, not the journal
  --dry-run                     install, uninstall: say what would change,
                                write nothing
  -q, --quiet                   print only what changed (and errors; a wait
                                for another run's lock is still said)
  -h, --help                    this text; COMMAND --help: that command's

Exit codes (COMMAND --help: that command's):
  0  done, or nothing to do; status: guarded, or no guard needed
  1  failed, with /etc/ld.so.preload unchanged (also: install, uninstall
     or reprobe run by a user without --root: they need root, and say so
     first); reprobe: the verdict is unknown
  2  usage
  3  status: the host has the hazard and no layer was seen to guard it,
     or perf events of the class opened before the kernel guard escape it
     (PARTLY) (LSB's "not running")
  4  install, reprobe --layer kernel: the kernel could not take the guard
     (nothing changed); status: the verdict is unknown (LSB's "status
     unknown")
EOF
}

usage_install() {
	cat <<'EOF'
Usage: pmuguard-fleet install [--layer auto|kernel|preload] [--force] [--no-lock]
                              [--root DIR] [--lib PATH] [--pmuguard PATH] [--quiet]
                              [--dry-run]

Probe the host (`pmuguard probe --check`); where it has the hazard (or with
--force), guard it:
  auto      `pmuguard enforce start`; where the kernel refuses (no BTF, no
            BPF LSM or trampolines, lockdown, EPERM: exit 4 of enforce) or
            was built without it, the preload instead.  The default, except
            under --root, where it is preload (the running kernel is not
            that root's).
  kernel    only the kernel guard; exit 4 if the kernel cannot take it.
  preload   only /etc/ld.so.preload: the library is proven to load into
            /bin/true and env first; our entry goes first, every other byte
            is kept; a backup is kept in ld.so.preload.pmuguard-bak.
Once the host is guarded, the policy is locked, in every layer:
ROOT/etc/pmuguard.conf gets lock = yes (created, mode 0644, where there is
none; else its lock lines set or one added, every other byte, the owner
and the mode kept), so that PMUGUARD_MODE, PMUGUARD_SNAPSHOT and
PMUGUARD_SLOTS of any user can only make the guard stricter.  --no-lock
leaves the file as it is.  Install's own probe already judges as under
that lock (pmuguard probe --as-locked; not under --root), as every status
after it does: a PMUGUARD_SNAPSHOT in its environment is ignored, and
said, and where it names other facts than a policy not locked yet
(status honoured it) install refuses (exit 2, nothing changed); simulate
a host with snapshot = NAME in the policy file.  A policy
file that is a symbolic link or not a regular file is not changed (a
warning says so).
--dry-run: probe, and say what would change ("would: ..."), writing
nothing (no file, no kernel guard, no lock; where the kernel guard would
be tried, whether this kernel takes it is only known by trying).
Idempotent: an installed layer is left as it is.  Holds the lock
ROOT/run/pmuguard/fleet.lock while it reads and writes the files.  Where
/etc/ld.so.preload is a symbolic link, the file it leads to is edited and
the link kept; a dangling link, a loop, more than 8 links, a link to
anything but a regular file, through a directory other users can write,
or (--root) out of DIR is refused (exit 1, nothing changed).  Under
--root, a link in any directory on the way (DIR/etc, DIR/run, the
library's) that leads out of DIR, absolute or by "..", is refused alike.

Exit: 0 installed or nothing to do; 1 failed (file unchanged); 2 usage;
4 --layer kernel and the kernel could not take the guard.
EOF
}

usage_uninstall() {
	cat <<'EOF'
Usage: pmuguard-fleet uninstall [--layer auto|kernel|preload] [--root DIR]
                                [--lib PATH] [--pmuguard PATH] [--quiet] [--dry-run]
       pmuguard-fleet remove ...   (the same)

Remove the guard: exactly our line from /etc/ld.so.preload (every other
byte is kept; the file goes if it listed only ours, unless it is reached
through a symbolic link: then it is left empty, and the link is kept;
links are followed as install says), and the kernel guard
(`pmuguard enforce stop`).  --layer preload or kernel removes only that
one; under --root only the preload is touched unless --layer says
otherwise.  /etc/pmuguard.conf is removed where install created it and
nobody changed it since (with the preload, or alone under --layer kernel);
any other policy file is left as it is, lock = yes included.  Works while
the package is being removed: it needs neither the library nor the probe.
Off until the next install: where systemd runs, pmuguard-reprobe.service
is disabled (the next boot would guard a hazardous host again), and
install enables it again; not under --root, nor from a package's removal.
--dry-run: say what would be removed ("would: ..."), writing nothing.

Exit: 0 removed or nothing to do; 1 failed (file unchanged); 2 usage.
EOF
}

usage_reprobe() {
	cat <<'EOF'
Usage: pmuguard-fleet reprobe [--layer auto|kernel|preload] [--force] [--no-lock]
                              [--root DIR] [--lib PATH] [--pmuguard PATH]
                              [--textfile FILE] [--quiet]

Probe again and make the host match what it is now: a hazardous host is
guarded (as install, the policy locked unless --no-lock), a healthy one
is unguarded (as uninstall), an unknown verdict changes nothing.  A stopped and started instance can come
back as another type; pmuguard-reprobe.service runs this at every boot,
with the options in /etc/default/pmuguard-fleet (PMUGUARD_FLEET_ARGS, for
instance --force or --layer preload).  Prints nothing under --quiet when
nothing changed.

Exit: 0 the host matches; 1 failed or the verdict is unknown; 2 usage;
4 --layer kernel and the kernel could not take the guard.
EOF
}

usage_status() {
	cat <<'EOF'
Usage: pmuguard-fleet status [--json|--keys] [--textfile FILE] [--syslog-file FILE]
                             [--layer auto|kernel|preload] [--root DIR]
                             [--lib PATH] [--pmuguard PATH] [-q|--quiet]

The incident command: protected or not, by which layer, verified when and
since when, which version, what was blocked and by which programs, and
why a layer does not guard.  A layer counts only where it was seen to
work:
  kernel    `pmuguard enforce status` ran its self-test just now (a canary
            event the program refuses); attached but not verified, or in
            audit mode, is no guard.  Exact counts per encoding.  Perf
            events of the class opened before it escape it (one enabled
            still panics the host): PARTLY, naming their processes.
  preload   /etc/ld.so.preload lists the library, the loader takes it
            (/bin/true run with it preloaded), and a canary started now
            through /etc/ld.so.preload as nobody (uid 65534, no groups or
            capabilities) with an empty environment was refused (pmuguard
            canary): what such a user meets, every user meets.  The
            policy's mode off or audit, an unknown verdict, or a library
            only root can read leave it listed and guarding nothing, and
            status says so.  The running processes that
            do not map it (started before the install, static) are
            counted, and those of them holding perf event files are named:
            they are unguarded by the preload until they restart.  Reports
            "blocked perf_event_open(...)" (one per encoding per process)
            are counted in the journal of this boot (the preload's
            MESSAGE_ID with PMUGUARD_LAYER=preload), in /var/log/syslog or
            /var/log/messages, or in --syslog-file; blocks by program come
            from the journal only.  Fleet mode reports to journald or
            /dev/log only: where neither is there, reports are dropped and
            cannot be counted; status says so and gives "unknown", never 0.
--json prints one object (schema 2; keys in pmuguard-fleet(8)); --keys the
same, one KEY=VALUE a line.  -q prints nothing: the exit code (and, with
--textfile, the metrics) alone.
--layer kernel or auto, with --root: also ask the running kernel's guard
(under --root only the files are looked at by default).
--textfile FILE writes node_exporter textfile-collector metrics to FILE,
through a temporary in the same directory renamed into place
(pmuguard-metrics.timer refreshes it every 5 minutes; install, uninstall
and reprobe start pmuguard-metrics.service where systemd runs).

Exit, as LSB's status actions: 0 guarded, or no hazard (OK); 3 the
host has the hazard and no layer was seen to guard it, or events opened
before the kernel guard escape it (PARTLY) (not running); 4 the probe
gave no verdict (status unknown).  Also 1 failed (a --textfile
that could not be written; pmuguard not found; a path under --root that
leads out of DIR); 2 usage.  (LSB's 1 and 2, dead with a pid or lock
file left, have no counterpart here.)
EOF
}

say() { printf '%s: %s\n' "$PROG" "$*"; }
# What --dry-run would have changed: said, never done.
would() { say "would: $*"; }
info() { [ "$QUIET" = 1 ] || say "$@"; }
warn() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() {
	warn "$*"
	exit 1
}
die_usage() {
	warn "$*"
	printf "Try '%s --help'.\n" "$PROG" >&2
	exit 2
}

# fleet_options ARG...: the command and its options, checked; --help and
# --version answered here.
# shellcheck disable=SC2034 # the options are read by pmuguard-fleet and its other parts
fleet_options() {
	ROOT='' FORCE=0 NO_LOCK=0 LIB='' PMUGUARD='' LAYER='' JSON=0 TEXTFILE='' SYSLOG_FILE='' QUIET=0 DRY_RUN=0
	[ $# -ge 1 ] || die_usage "a command is required"
	CMD=$1
	shift
	case $CMD in
	-h | --help | help)
		usage_main
		exit 0
		;;
	-V | --version)
		# shellcheck disable=SC2154 # self: pmuguard-fleet's own path
		[ -n "$FLEET_VERSION" ] || FLEET_VERSION=$(sh "${self%/*}/version" 2>/dev/null) || FLEET_VERSION=
		echo "pmuguard-fleet ${FLEET_VERSION:-unknown (a source tree without scripts/version)}"
		exit 0
		;;
	install | uninstall | reprobe | status) ;;
	remove) CMD=uninstall ;;
	*) die_usage "unknown command '$CMD'" ;;
	esac
	while [ $# -gt 0 ]; do
		case $1 in
		--root) need_arg $# "$1"; ROOT=$2; shift 2 ;;
		--force) FORCE=1; shift ;;
		--no-lock) NO_LOCK=1; shift ;;
		--lib) need_arg $# "$1"; LIB=$2; shift 2 ;;
		--pmuguard) need_arg $# "$1"; PMUGUARD=$2; shift 2 ;;
		--layer) need_arg $# "$1"; LAYER=$2; shift 2 ;;
		--json)
			[ "$JSON" != keys ] || die_usage "$CMD: --json and --keys print the same document: choose one"
			JSON=1
			shift
			;;
		--keys)
			[ "$JSON" != 1 ] || die_usage "$CMD: --json and --keys print the same document: choose one"
			JSON=keys
			shift
			;;
		--textfile) need_arg $# "$1"; TEXTFILE=$2; shift 2 ;;
		--syslog-file) need_arg $# "$1"; SYSLOG_FILE=$2; shift 2 ;;
		--quiet | -q) QUIET=1; shift ;;
		--dry-run) DRY_RUN=1; shift ;;
		-h | --help)
			"usage_$CMD"
			exit 0
			;;
		*) die_usage "$CMD: unknown option '$1'" ;;
		esac
	done
	case $LAYER in "" | auto | kernel | preload) ;; *) die_usage "--layer is auto, kernel or preload, not '$LAYER'" ;; esac
	case $CMD in status) ;; *) [ "$JSON" = 0 ] || die_usage "$CMD: --json and --keys are for status" ;; esac
	case $CMD in install | reprobe) ;; *) [ "$NO_LOCK" = 0 ] || die_usage "$CMD: --no-lock is for install and reprobe" ;; esac
	case $CMD in status | reprobe) ;; *) [ -z "$TEXTFILE" ] || die_usage "$CMD: --textfile is for status and reprobe" ;; esac
	case $CMD in install | uninstall) ;; *) [ "$DRY_RUN" = 0 ] || die_usage "$CMD: --dry-run is for install and uninstall" ;; esac
	case $TEXTFILE in "" | /*) ;; *) die_usage "--textfile must be an absolute path" ;; esac
	# The kernel layer acts on the running kernel, which is not --root's: under
	# --root it is used only when --layer asks for it.
	LAYER_GIVEN=${LAYER:+yes}
	if [ -z "$LAYER" ]; then
		if [ -n "$ROOT" ]; then LAYER=preload; else LAYER=auto; fi
	fi
	case $LIB in /* | "") ;; *) die_usage "--lib must be an absolute path: the loader reads it verbatim" ;; esac
}
need_arg() { [ "$1" -ge 2 ] || die_usage "$CMD: $2 needs a value"; }
