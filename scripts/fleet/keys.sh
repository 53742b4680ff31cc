# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# pmuguard-fleet: what pmuguard says, as data.
#
# This script reads pmuguard's KEY=VALUE output (--keys: the JSON's paths
# joined by '.', array elements by index, strings with control characters
# and '\' as \xHH, null as an empty value), never the sentences it prints
# for people: rewording a message changes nothing here.

# The value of KEY in the --keys text TEXT (empty where absent or null).
kv() { printf '%s\n' "$1" | awk -v k="$2=" 'index($0, k) == 1 { print substr($0, length(k) + 1); exit }'; }
# kv_list TEXT ARRAY: the array's scalar elements, joined by ", ".
kv_list() {
	printf '%s\n' "$1" | awk -v a="$2." 'index($0, a) == 1 {
		r = substr($0, length(a) + 1); e = index(r, "="); i = substr(r, 1, e - 1)
		if (i ~ /^[0-9]+$/) v[i + 0] = substr(r, e + 1); if (i + 1 > n) n = i + 1 }
		END { for (j = 0; j < n; j++) printf "%s%s", (j ? ", " : ""), v[j] }'
}
# kv_rows TEXT ARRAY FIELD...: one line per element of ARRAY (ARRAY.0,
# ARRAY.1, ...), its FIELDs separated by US (\037, never in a value).
US=$(printf '\037')
kv_rows() {
	t=$1 a=$2
	shift 2
	printf '%s\n' "$t" | awk -v a="$a." -v fields="$*" -v us="$US" '
		BEGIN { nf = split(fields, f, " ") }
		index($0, a) == 1 {
			r = substr($0, length(a) + 1); d = index(r, "."); if (!d) next
			i = substr(r, 1, d - 1); if (i !~ /^[0-9]+$/) next
			r = substr(r, d + 1); e = index(r, "="); if (!e) next
			v[i + 0, substr(r, 1, e - 1)] = substr(r, e + 1); if (i + 1 > n) n = i + 1 }
		END { for (j = 0; j < n; j++) { l = ""; for (m = 1; m <= nf; m++) l = l (m > 1 ? us : "") v[j, f[m]]; print l } }'
}
