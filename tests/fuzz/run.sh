#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh HARNESS [SECONDS]: build one libFuzzer harness with clang
# (-fsanitize=fuzzer,address,undefined), replay its regression inputs, then
# fuzz from the seed corpus for SECONDS (default $PMUGUARD_FUZZ_SECONDS or 20).
# Seeds come from the snapshot fixtures; any crash is saved under
# tests/fuzz/regressions/HARNESS/ by hand to become a regression test.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
name=${1:?usage: run.sh HARNESS [SECONDS]}
secs=${2:-${PMUGUARD_FUZZ_SECONDS:-20}}
src=$(cd "$(dirname "$0")/../.." && pwd)
cc=$(command -v clang-14 || command -v clang || true)
[ -n "$cc" ] || skip "clang is not installed (Debian packages clang-14, libclang-rt-14-dev)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

probe="$src/probe"
# Every file of the facts (probe/facts/meson.build builds them all into one
# library), and the parts of the report and the guard the harnesses call.
sources=("$probe"/facts/*.c
	"$probe/report/findings.c" "$probe/report/machine.c" "$probe/guard/classify.c" "$probe/guard/conf.c"
	"$probe/guard/policy.c")
flags=(-g -O1 -std=c11 -D_GNU_SOURCE "-fsanitize=fuzzer,address,undefined" -fno-sanitize-recover=undefined)
# Only a toolchain that cannot build a fuzzer at all is a skip; a harness
# that does not build is a failure.
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$tmp/t.c"
"$cc" "${flags[@]}" "$tmp/t.c" -o "$tmp/t" 2>"$tmp/cc.log" ||
	{ cat "$tmp/cc.log"; skip "cannot build with $cc -fsanitize=fuzzer (libclang-rt-14-dev?)"; }
"$cc" "${flags[@]}" -I"$probe/facts" -I"$probe/guard" -I"$probe/doc" -I"$probe/report" \
	"$src/tests/fuzz/fuzz_$name.c" "${sources[@]}" -o "$tmp/fuzz" 2>"$tmp/cc.log" ||
	{ cat "$tmp/cc.log"; echo "FAIL: fuzz_$name does not build"; exit 1; }

mkdir -p "$tmp/corpus"
fx="$src/tests/snapshots"
case $name in
cpuid) for f in "$fx"/*/cpuid.txt; do cp "$f" "$tmp/corpus/$(basename "$(dirname "$f")")"; done ;;
klog) for f in "$fx"/*/dmesg.txt; do cp "$f" "$tmp/corpus/$(basename "$(dirname "$f")")"; done
	printf 'mode = auto\nlog = syslog\nlock = yes\nsnapshot = /x\n' >"$tmp/corpus/conf" ;;
sysfs) i=0
	for f in "$fx"/*/sys/bus/event_source/devices/*/{format,events}/*; do
		cp "$f" "$tmp/corpus/$((i++))"
	done ;;
classify) for i in $(seq 1 16); do head -c 96 /dev/urandom >"$tmp/corpus/r$i"; done ;;
*) echo "unknown harness $name"; exit 2 ;;
esac
reg="$src/tests/fuzz/regressions/$name"
if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
	"$tmp/fuzz" "$reg"/* >"$tmp/replay.log" 2>&1 || { cat "$tmp/replay.log"; echo "FAIL: a regression input crashes again"; exit 1; }
	echo "ok: $(find "$reg" -type f | wc -l) regression inputs replayed"
fi
cd "$tmp"
if ! "$tmp/fuzz" -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=1024 \
	-print_final_stats=1 "$tmp/corpus" >"$tmp/fuzz.log" 2>&1; then
	tail -n 60 "$tmp/fuzz.log"
	for c in "$tmp"/crash-* "$tmp"/timeout-* "$tmp"/leak-*; do
		[ -e "$c" ] && { echo "input ($c), base64:"; base64 "$c"; }
	done
	echo "FAIL: $name found a crash: add the input under tests/fuzz/regressions/$name/ and fix it"
	exit 1
fi
grep -E 'stat::number_of_executed_units|stat::new_units_added' "$tmp/fuzz.log" || true
echo "ok: fuzz_$name ran ${secs}s clean"
