#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# enrolled.sh DIR NAME...: every DIR/*.sh is one of the NAMEs (NAME.sh), a
# suite's files as its meson.build names them, so that no file of cases is
# left out of the suite unseen.  Run by meson at configure time.
set -eu
dir=$1
shift
for f in "$dir"/*.sh; do
	n=${f##*/}
	case " $* " in
	*" ${n%.sh} "*) ;;
	*)
		echo "$f is not enrolled: name it in its meson.build" >&2
		exit 1
		;;
	esac
done
