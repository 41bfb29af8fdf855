#!/usr/bin/env bash
# The arm64 row of `make bench`: the CPU-bound bench workload built for
# arm64 (testdata/build/arm64/c/bench), counted under icount, and run
# uncounted under qemu-aarch64 (Debian's qemu-user) when it is installed;
# prints both wall times, icount's instruction count and the ratio
# icount/qemu-aarch64. Both outputs are checked against the amd64 build's
# native output. Not a test: it prints what it got and never fails because
# icount does.
#
# Usage: scripts/bench_arm64.sh [ITERATIONS]   (run by `make bench`)
# Environment: ICOUNT (default bin/icount), BENCH_ARM64 (default
# testdata/build/arm64/c/bench), BENCH (the amd64 build, default
# testdata/build/c/bench).
set -uo pipefail
export LC_ALL=C

cd "$(dirname "$0")/.."
icount=${ICOUNT:-bin/icount}
guest=${BENCH_ARM64:-testdata/build/arm64/c/bench}
host=${BENCH:-testdata/build/c/bench}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# timed NAME CMD...: runs CMD (stdin /dev/null, output in $out/NAME.out and
# $out/NAME.err) and prints "SECONDS STATUS".
timed() {
	local name=$1 t0 t1 st
	shift
	t0=$EPOCHREALTIME
	"$@" </dev/null >"$out/$name.out" 2>"$out/$name.err"
	st=$?
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" -v s="$st" 'BEGIN { printf "%.3f %d\n", b - a, s }'
}

# row NAME SECONDS STATUS: one line of the table, with the first line the
# program printed and whether it matches the amd64 build's.
row() {
	local same=""
	[ -f "$out/amd64.out" ] && ! cmp -s "$out/amd64.out" "$out/$1.out" && same="  (output differs from amd64's)"
	printf '  %-13s %8ss  exit %s  %s%s\n' "$1" "$2" "$3" "$(head -n1 "$out/$1.out")" "$same"
}

if [ ! -x "$guest" ]; then
	echo "bench arm64: $guest is not built (run make testprogs)" >&2
	exit 1
fi
echo "bench arm64: $guest ${*:-} ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"

if [ -x "$host" ]; then
	read -r t st < <(timed amd64 "$host" "$@")
	row amd64 "$t" "$st"
fi

t_q=
if command -v qemu-aarch64 >/dev/null; then
	read -r t_q st < <(timed qemu-aarch64 qemu-aarch64 "$guest" "$@")
	row qemu-aarch64 "$t_q" "$st"
	[ "$st" = 0 ] || t_q=
else
	echo "  qemu-aarch64  not installed (Debian's qemu-user): no ratio"
fi

t_i= insns=
if [ -x "$icount" ]; then
	read -r t_i st < <(timed icount "$icount" run --json "$out/profile.json" "$guest" "$@")
	row icount "$t_i" "$st"
	insns=$(sed -n 's/.*"instructions": *\([0-9]*\).*/\1/p' "$out/profile.json" 2>/dev/null | head -n1)
	if [ "$st" != 0 ]; then
		sed 's/^/    stderr: /' "$out/icount.err" | head -n 10
		t_i=
	fi
else
	echo "  icount        $icount is not built: no ratio"
fi

echo
[ -n "$insns" ] && echo "  instructions (icount, aarch64): $insns"
awk -v i="$t_i" -v q="$t_q" -v n="$insns" 'BEGIN {
	if (n != "" && i + 0 > 0) printf "  icount MIPS (aarch64): %.0f\n", n / i / 1e6
	if (i + 0 > 0 && q + 0 > 0) printf "  ratio icount/qemu-aarch64: %.2f\n", i / q
	else print "  ratio icount/qemu-aarch64: n/a"
}'
exit 0
