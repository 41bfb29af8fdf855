#!/usr/bin/env bash
# Times icount binaries built against different Unicorns side by side on
# rows of scripts/bench.sh (the same commands), in CPU seconds (user +
# system, GNU time), the binaries taking turns within each repetition;
# prints, per row, the median of REPEAT runs of `run -q` (full) and of
# `run --count-only` for each binary, and checks that every binary gives
# the same instruction count. The study of issue 17's Unicorn patches
# (scripts/build-unicorn-src.sh); make the binaries with `go build -o`
# against each Unicorn, and run scripts/bench.sh once first (it writes the
# text the compressors read).
#
# Usage: scripts/bench-unicorn-variants.sh BIN...
# Environment: REPEAT (default 5), ROWS (an extended regular expression
# over the row keys below; default all), ITERATIONS (default 2400).
set -uo pipefail
export LC_ALL=C
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[ $# -ge 1 ] || { echo "usage: $0 BIN..." >&2; exit 2; }
repeat=${REPEAT:-5}
only=${ROWS:-}
iterations=${ITERATIONS:-2400}
sysroot=${SYSROOT_ARM64:-.deps/sysroot-arm64}
text=testdata/build/bench/text.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

keys=(coremark coremark-arm64 python python-arm64 sqlite xz true empty-glibc)
declare -A cmd=(
	[coremark]="testdata/build/c/bench $iterations"
	[coremark-arm64]="testdata/build/arm64/c/bench $iterations"
	[python]="/usr/bin/python3 -S testdata/bench/fib.py 25"
	[python-arm64]="--sysroot $sysroot $sysroot/usr/bin/python3.11 -S testdata/bench/fib.py 25"
	[sqlite]="/usr/bin/sqlite3 :memory: .read\ testdata/bench/sqlite.sql"
	[xz]="/usr/bin/xz -1 -T1 -c $text"
	[true]="/bin/true"
	[empty-glibc]="testdata/build/c/empty-glibc"
)

# cpu BIN MODE ARGS: one run's user+system seconds; its instruction count
# in $tmp/count.
cpu() {
	local bin=$1 mode=$2
	shift 2
	eval "set -- $*"
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$bin" run $mode "$@" </dev/null >/dev/null 2>"$tmp/err"
	sed -n 's/^icount: \([0-9,]*\) instructions.*/\1/p' "$tmp/err" | tr -d , | head -n1 >"$tmp/count"
	awk '{ printf "%.4f\n", $1 + $2 }' "$tmp/time"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-16s' row
for bin in "$@"; do printf ' | %-26s' "$(basename "$bin") full/co"; done
echo
for key in "${keys[@]}"; do
	[ -n "$only" ] && ! grep -Eq -- "$only" <<<"$key" && continue
	declare -A runs=() counts=()
	for _ in $(seq "$repeat"); do
		for bin in "$@"; do
			runs[$bin/full]+="$(cpu "$bin" -q "${cmd[$key]}") "
			runs[$bin/co]+="$(cpu "$bin" --count-only "${cmd[$key]}") "
			counts[$bin]+="$(cat "$tmp/count") "
		done
	done
	printf '%-16s' "$key"
	for bin in "$@"; do
		f=$(tr ' ' '\n' <<<"${runs[$bin/full]}" | awk NF | median)
		c=$(tr ' ' '\n' <<<"${runs[$bin/co]}" | awk NF | median)
		printf ' | %8.3f %8.3f %8s' "$f" "$c" "$(tr ' ' '\n' <<<"${counts[$bin]}" | awk NF | sort -u | head -n1)"
	done
	echo
	distinct=$(for bin in "$@"; do tr ' ' '\n' <<<"${counts[$bin]}"; done | awk NF | sort -u | wc -l)
	[ "$distinct" -le 1 ] || echo "  $key: the binaries' counts differ: $(for bin in "$@"; do echo "$(basename "$bin"): ${counts[$bin]}"; done | tr '\n' ' ')"
	unset runs counts
done
