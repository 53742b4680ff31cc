#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""README.md's table by release ("Where it runs, by release"), made from
the list below: one row a release a fleet runs, which artefact installs
there, which layers guard it (by the release's kernels and glibc), and
what of that the vm suite's matrix measured here versus what follows from
the artefacts' requirements alone.

    releases-table.py                      print the table
    releases-table.py --check README.md    exit 1 (and a diff) where README's is another
    releases-table.py --write README.md    put it there

The table lies between <!-- releases:begin --> and <!-- releases:end -->;
it is never typed by hand.  What the requirements are (the command: none
but a kernel, one static binary; the preload library: none, it imports
nothing; the kernel guard: BTF, BPF trampolines and the BPF ring buffer,
so 5.8 and later, attached as lsm where BPF LSM is active, else fmod_ret)
is README's and probe/enforce/README.md's; a release's kernels and glibc
are the distribution's.
"""
import difflib
import sys

BEGIN = "<!-- releases:begin -->"
END = "<!-- releases:end -->"

# The kernel guard, by kernel: what `pmuguard enforce start` takes.
FMOD = "fmod_ret (BPF LSM is built but not in the default `lsm=`)"
LSM_OR_FMOD = "lsm where `bpf` is in `lsm=`, else fmod_ret"
NONE_OLD = "none (before 5.8: no BPF ring buffer): the fleet takes the preload"

DEB = "the `.deb`"
RPM = "the `.rpm`"
TAR = "the tarball"
IMAGE = "the agent image (DaemonSet)"
MATRIX = "measured: `vm-matrix`"

# release, kernels, glibc, artefact, preload, `pmuguard run`, kernel guard, measured or derived
RELEASES = [
    ("Debian 11 (bullseye)", "5.10", "2.31", DEB, "yes", "yes", LSM_OR_FMOD,
     MATRIX + " (5.10, and 6.1 and 7.x under its userland): installs, `pmuguard-fleet install` guards"),
    ("Debian 12 (bookworm)", "6.1", "2.36", DEB, "yes", "yes", LSM_OR_FMOD,
     MATRIX + " (6.1): installs, guards"),
    ("Debian 13 (trixie)", "6.12", "2.41", DEB, "yes", "yes", LSM_OR_FMOD,
     MATRIX + " (6.12): installs, guards"),
    ("Debian sid", "7.x", "the newest", DEB, "yes", "yes", LSM_OR_FMOD,
     MATRIX + " (7.x): installs, guards"),
    ("Ubuntu 20.04", "5.4; 5.15 (HWE)", "2.31", DEB, "yes", "yes", NONE_OLD + "; " + FMOD + " on 5.15",
     "derived: glibc 2.31 is bullseye's (measured); the 5.4 kernel's lack of a ring buffer from the guard's needs"),
    ("Ubuntu 22.04", "5.15; 6.8 (HWE)", "2.35", DEB, "yes", "yes", FMOD,
     "derived: the .deb needs no glibc; 5.15 lies between measured 5.10 and 6.1"),
    ("Ubuntu 24.04", "6.8; 6.11+ (HWE)", "2.39", DEB, "yes", "yes", FMOD,
     "derived: between the measured 6.1 and 6.12"),
    ("Ubuntu 26.04", "7.x", "2.4x", DEB, "yes", "yes", FMOD,
     "derived: 7.x measured under sid's userland"),
    ("RHEL, Rocky, Alma 8", "4.18", "2.28", RPM, "yes", "yes",
     "unknown: 4.18 with RHEL's BPF backports; `enforce start` says where it refuses (exit 4) and the fleet takes the preload",
     "derived: the .rpm's command needs no glibc, its Requires only base tools; the package suite installs it into a tree with rpm"),
    ("RHEL, Rocky, Alma 9", "5.14", "2.34", RPM, "yes", "yes", FMOD, "derived: as RHEL 8; 5.14 between the measured 5.10 and 6.1"),
    ("RHEL, Rocky, Alma 10", "6.12", "2.39", RPM, "yes", "yes", FMOD, "derived: 6.12 measured on trixie"),
    ("Amazon Linux 2023", "6.1; 6.12", "2.34", RPM, "yes", "yes", FMOD, "derived: its kernels' series measured on Debian's 6.1 and 6.12"),
    ("Amazon Linux 2 (past its end of support)", "4.14; 5.10", "2.26", RPM + " (an xz payload, which its rpm 4.11 reads) or " + TAR,
     "yes (it imports nothing; glibc 2.26 not run here)", "yes",
     NONE_OLD + " on 4.14; " + FMOD + " on 5.10",
     "derived: the package suite unpacks the tarball into a tree of busybox alone and runs the fleet there"),
    ("SLES 15 (SP5, SP6)", "5.14; 6.4", "2.31; 2.38", RPM + " or " + TAR, "yes", "yes", FMOD, "derived: as RHEL 9"),
    ("Bottlerocket", "6.1", "(no shell, no preload)", IMAGE, "no (nothing to preload into)", "no", LSM_OR_FMOD,
     "derived: the agent's image is the static command alone (package suite: agent-image)"),
    ("Container-Optimized OS", "5.15; 6.1; 6.6", "(read-only root)", IMAGE, "no", "no", LSM_OR_FMOD,
     "derived: as Bottlerocket"),
]
HEAD = ["release", "kernels", "glibc", "installs", "preload", "`pmuguard run`", "kernel guard", "measured here, or derived"]


def cell(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def table():
    out = ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    for r in RELEASES:
        assert len(r) == len(HEAD), r
        out.append("| " + " | ".join(cell(c) for c in r) + " |")
    return out


def between(lines):
    try:
        b, e = lines.index(BEGIN), lines.index(END)
    except ValueError:
        sys.exit(f"releases-table: no {BEGIN} ... {END} in the README")
    return b, e


def main(argv):
    if len(argv) == 1:
        print("\n".join(table()))
        return 0
    if len(argv) != 3 or argv[1] not in ("--check", "--write"):
        print(__doc__, file=sys.stderr)
        return 2
    text = open(argv[2], encoding="utf-8").read().split("\n")
    b, e = between(text)
    want = table()
    if argv[1] == "--write":
        text[b + 1:e] = want
        open(argv[2], "w", encoding="utf-8").write("\n".join(text))
        return 0
    have = text[b + 1:e]
    if have != want:
        sys.stdout.writelines(difflib.unified_diff([l + "\n" for l in have], [l + "\n" for l in want],
                                                   "README.md", "releases-table.py"))
        print("releases-table: README's table by release is not the one this script makes "
              "(tests/lint/releases-table.py --write README.md)")
        return 1
    print(f"README's table by release: {len(RELEASES)} releases, as made")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
