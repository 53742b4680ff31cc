#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Rewrites a CPUID dump in the "CPUID <leaf>:<subleaf> = eax ebx ecx edx | ascii"
# form (optionally quoted with "> ", as in a mail) into the `cpuid -r` lines
# the probe reads:
#   "   0x<leaf> 0x<sub>: eax=0x<eax> ebx=0x<ebx> ecx=0x<ecx> edx=0x<edx>"
# The order of the four words is eax ebx ecx edx (leaf 0 then spells the
# vendor as ebx, edx, ecx).  Only the layout changes: every value is copied
# as it stands, in the order it stands (a duplicate leaf stays where it is;
# the probe keeps the first).  Other lines become "# " comments, so nothing
# of the original is lost.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DUMP" >&2; exit 2; }
echo "# converted by tests/snapshots/cpuid-dump-to-r.sh from the capture's dump (values unchanged)"
echo "CPU:"
sed -E \
	-e 's/^(> )?CPUID ([0-9a-fA-F]{8}):([0-9a-fA-F]{2}) = ([0-9a-fA-F]{8}) ([0-9a-fA-F]{8}) ([0-9a-fA-F]{8}) ([0-9a-fA-F]{8}) \|.*$/   0x\2 0x\3: eax=0x\4 ebx=0x\5 ecx=0x\6 edx=0x\7/' \
	-e '/^   0x[0-9a-fA-F]{8} 0x[0-9a-fA-F]{2}: eax=/!s/^/# /' "$1"
