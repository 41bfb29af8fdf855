#!/usr/bin/env bash
# Times the CPU-bound bench workload natively, under valgrind's callgrind and
# under icount, and prints the wall times and the ratios icount/callgrind and
# icount/native; then times icount's start-up on trivial static programs.
# Not a test: it never fails because icount does; it prints what it got.
#
# Then times icount counting only (run --count-only) against full
# attribution (the default: call tree, inclusive costs), alternating, and
# prints both and their ratio, which must stay at or below 1.3.
#
# Then the Go benchmark of testdata/go/bench (built here with go test -c):
# native, callgrind and icount --count-only --fixed-clock, as above.
#
# Then processes (issue 14): a shell loop running /bin/true 200 times,
# natively, under callgrind following every child (--trace-children=yes)
# and under icount, and the ratio icount/callgrind (at most 0.10); and the
# cost of one fork, exec and exit of a static program, natively and under
# icount: testdata/build/proc/forkexec-musl runs testdata/build/c/empty-musl
# FORKS times and 0 times, and the difference over FORKS is the cost.
#
# Usage: scripts/bench.sh [ITERATIONS]   (run by `make bench`, after a build)
# Environment: ICOUNT (default bin/icount), BENCH (default
# testdata/build/c/bench), REPEAT (start-up runs, best is kept; default 5),
# ATTR_REPEAT (runs of each attribution mode, best is kept; default 3),
# FORKS (fork+exec+exit cycles timed; default 200).
set -uo pipefail
export LC_ALL=C

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
icount=${ICOUNT:-bin/icount}
bench=${BENCH:-testdata/build/c/bench}
repeat=${REPEAT:-5}
attr_repeat=${ATTR_REPEAT:-3}
args=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME CMD...: runs CMD with stdin from /dev/null, its stdout and stderr
# in $tmp/NAME.out and $tmp/NAME.err, and sets $secs (wall seconds) and $rc.
run() {
	local name=$1 start end
	shift
	start=$EPOCHREALTIME
	"$@" </dev/null >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	end=$EPOCHREALTIME
	secs=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.4f", e - s }')
}

# timed NAME CMD...: like run, and also sets $cpu (user + system seconds of
# CMD and its children).
timed() {
	local name=$1 t
	shift
	t=$( { TIMEFORMAT='%R %U %S'; time "$@" </dev/null >"$tmp/$name.out" 2>"$tmp/$name.err"; } 2>&1 )
	rc=$?
	secs=$(awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.4f", a[1] }')
	cpu=$(awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.4f", a[2] + a[3] }')
}

# least A B: the smaller of two numbers, B if A is empty.
least() {
	awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }'
}

# ratio A B: A/B with two decimals, or "n/a".
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 <= 0 || a + 0 <= 0) print "n/a"; else printf "%.2f", a / b }'
}

# ms SECONDS: milliseconds with one decimal, or "n/a".
ms() {
	awk -v s="$1" 'BEGIN { if (s == "") print "n/a"; else printf "%.1f", s * 1000 }'
}

# mips INSTRUCTIONS SECONDS
mips() {
	awk -v n="$1" -v s="$2" 'BEGIN { if (n == "" || s + 0 <= 0) print "n/a"; else printf "%.0f", n / s / 1e6 }'
}

if [ ! -x "$bench" ]; then
	echo "bench: $bench is not built (run make testprogs)" >&2
	exit 1
fi
have_icount=1
if [ ! -x "$icount" ]; then
	echo "bench: $icount is not built; its times are left out" >&2
	have_icount=0
fi
have_valgrind=1
command -v valgrind >/dev/null || { echo "bench: valgrind is not installed; callgrind is left out" >&2; have_valgrind=0; }

echo "bench: $bench ${args[*]:-} ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"

run native "$bench" "${args[@]}"
t_native=$secs native_rc=$rc
printf '  %-10s %8.3fs  exit %d  %s\n' native "$t_native" "$rc" "$(head -n1 "$tmp/native.out")"

t_cg= irefs=
if [ "$have_valgrind" = 1 ]; then
	run callgrind valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bench" "${args[@]}"
	t_cg=$secs
	irefs=$(sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' "$tmp/callgrind.err" | tr -d , | head -n1)
	printf '  %-10s %8.3fs  exit %d  %s\n' callgrind "$t_cg" "$rc" "$(head -n1 "$tmp/callgrind.out")"
	cmp -s "$tmp/native.out" "$tmp/callgrind.out" || echo "    (callgrind's output differs from the native run)"
fi

t_ic=
if [ "$have_icount" = 1 ]; then
	# The count alone: what callgrind's I refs is (full attribution below).
	run icount "$icount" run -q --count-only "$bench" "${args[@]}"
	t_ic=$secs
	printf '  %-10s %8.3fs  exit %d  %s\n' icount "$t_ic" "$rc" "$(head -n1 "$tmp/icount.out")"
	if ! cmp -s "$tmp/native.out" "$tmp/icount.out"; then
		echo "    (icount's output differs from the native run)"
	fi
	if [ "$rc" != 0 ] || [ -s "$tmp/icount.err" ]; then
		sed 's/^/    stderr: /' "$tmp/icount.err" | head -n 10
	fi
	if [ "$rc" != "$native_rc" ]; then
		echo "    (icount's exit status differs from the native run's, $native_rc: no ratios)"
		t_ic=
	fi
fi

echo
[ -n "$irefs" ] && echo "  instructions (callgrind I refs): $irefs"
echo "  MIPS: native $(mips "$irefs" "$t_native"), callgrind $(mips "$irefs" "$t_cg"), icount $(mips "$irefs" "$t_ic")"
echo "  ratio icount/callgrind: $(ratio "$t_ic" "$t_cg") (counting only)"
echo "  ratio icount/native:    $(ratio "$t_ic" "$t_native")"

if [ "$have_icount" = 1 ]; then
	echo
	echo "attribution cost (best of $attr_repeat runs each, alternating):"
	co_wall= co_cpu= at_wall= at_cpu=
	for _ in $(seq "$attr_repeat"); do
		timed countonly "$icount" run -q --count-only "$bench" "${args[@]}"
		co_wall=$(least "$co_wall" "$secs") co_cpu=$(least "$co_cpu" "$cpu")
		timed attribution "$icount" run -q "$bench" "${args[@]}"
		at_wall=$(least "$at_wall" "$secs") at_cpu=$(least "$at_cpu" "$cpu")
	done
	printf '  %-34s %8.3fs wall %8.3fs CPU\n' "counting only (run -q --count-only)" "$co_wall" "$co_cpu"
	printf '  %-34s %8.3fs wall %8.3fs CPU\n' "full attribution (run -q)" "$at_wall" "$at_cpu"
	echo "  ratio attribution/counting-only: $(ratio "$at_wall" "$co_wall") wall, $(ratio "$at_cpu" "$co_cpu") CPU (at most 1.30)"
	echo "  ratio icount with full attribution/callgrind: $(ratio "$at_wall" "$t_cg") wall"
fi

# The Go benchmark: testdata/go/bench's test binary (go test -c), run
# natively, under callgrind and under icount. Natively and under callgrind
# it runs with GOMAXPROCS=1, the one CPU icount gives the guest, so that all
# three do the same work (with more, idle Ps spin: 13.8e9 I refs against
# 48e6 on 2 host CPUs). callgrind can assert on the signal Go's runtime
# sends to preempt a goroutine (SIGURG): when it fails so, its row says why
# and it runs again with asynchronous preemption off.
echo
gobench=$tmp/bench.test
goargs=(-test.run='^$' -test.bench=. -test.benchtime=100x)
echo "Go benchmark: testdata/go/bench (go test -c) ${goargs[*]}"
if ! (cd testdata/go && CGO_ENABLED=0 GOARCH=amd64 GOFLAGS= GOTOOLCHAIN=local ${GO:-go} test -c -o "$gobench" ./bench) >"$tmp/gobuild.err" 2>&1; then
	echo "  not built: $(head -n 3 "$tmp/gobuild.err" | tr '\n' ' ')"
else
	# firstbench NAME: the first benchmark line of NAME's output.
	firstbench() { grep -m1 '^Benchmark' "$tmp/$1.out" | tr -s ' \t' ' '; }
	run gonative env GOMAXPROCS=1 "$gobench" "${goargs[@]}"
	t_gn=$secs
	printf '  %-10s %8.3fs  exit %d  %s\n' native "$t_gn" "$rc" "$(firstbench gonative)"
	t_gcg= girefs=
	if [ "$have_valgrind" = 1 ]; then
		run gocallgrind env GOMAXPROCS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$gobench" "${goargs[@]}"
		how=
		if [ "$rc" != 0 ]; then
			why=$(grep -m1 -E 'Assertion|valgrind: ' "$tmp/gocallgrind.err" | sed 's/^==[0-9]*== //')
			printf '  %-10s   failed  exit %d  %s\n' callgrind "$rc" "${why:-see its stderr}"
			how=" (GODEBUG=asyncpreemptoff=1)"
			run gocallgrind env GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$gobench" "${goargs[@]}"
		fi
		if [ "$rc" = 0 ]; then
			t_gcg=$secs
			girefs=$(sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' "$tmp/gocallgrind.err" | tr -d , | head -n1)
		fi
		printf '  %-10s %8.3fs  exit %d  %s%s\n' callgrind "$secs" "$rc" "$(firstbench gocallgrind)" "$how"
	fi
	t_gic= gcount=
	if [ "$have_icount" = 1 ]; then
		run goicount "$icount" run --count-only --fixed-clock "$gobench" "${goargs[@]}"
		[ "$rc" = 0 ] && t_gic=$secs
		gcount=$(sed -n 's/^icount: \([0-9,]*\) instructions.*/\1/p' "$tmp/goicount.err" | tr -d , | head -n1)
		printf '  %-10s %8.3fs  exit %d  %s\n' icount "$secs" "$rc" "$(firstbench goicount)"
		[ "$rc" = 0 ] || grep -v '^icount:  ' "$tmp/goicount.err" | sed 's/^/    stderr: /' | head -n 5
	fi
	echo "  instructions: callgrind I refs ${girefs:-n/a}, icount ${gcount:-n/a} (--fixed-clock; both GOMAXPROCS 1)"
	echo "  ratio icount/callgrind: $(ratio "$t_gic" "$t_gcg") (counting only)"
	echo "  ratio icount/native:    $(ratio "$t_gic" "$t_gn")"
fi

# Processes: every side gets the same environment, PATH alone.
echo
loop='for i in $(seq 200); do /bin/true; done'
penv=(env -i PATH=/usr/bin:/bin)
echo "processes: sh -c '$loop'"
run shnative "${penv[@]}" /bin/sh -c "$loop"
printf '  %-10s %8.3fs  exit %d\n' native "$secs" "$rc"
t_shcg=
if [ "$have_valgrind" = 1 ]; then
	run shcallgrind "${penv[@]}" valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=/dev/null /bin/sh -c "$loop"
	[ "$rc" = 0 ] && t_shcg=$secs
	printf '  %-10s %8.3fs  exit %d  (--trace-children=yes)\n' callgrind "$secs" "$rc"
fi
t_shic=
if [ "$have_icount" = 1 ]; then
	run shicount "$icount" run -q --count-only --fixed-clock --env PATH=/usr/bin:/bin /bin/sh -c "$loop"
	[ "$rc" = 0 ] && t_shic=$secs
	printf '  %-10s %8.3fs  exit %d\n' icount "$secs" "$rc"
	[ "$rc" = 0 ] || sed 's/^/    stderr: /' "$tmp/shicount.err" | head -n 5
fi
echo "  ratio icount/callgrind: $(ratio "$t_shic" "$t_shcg") (at most 0.10)"

forks=${FORKS:-200}
forkexec=testdata/build/proc/forkexec-musl
empty=testdata/build/c/empty-musl
echo
echo "fork+exec+exit of $empty (forkexec $forks times less 0 times, best of $repeat):"
if [ ! -x "$forkexec" ] || [ ! -x "$empty" ]; then
	echo "  $forkexec or $empty: not built"
else
	# forkcost CMD...: the best of $repeat runs of CMD $forks and 0 times,
	# as milliseconds per fork+exec+exit; "n/a" and why if a run failed.
	forkcost() {
		local many= none=
		for _ in $(seq "$repeat"); do
			run forks "$@" "$forkexec" "$forks" "$empty"
			if [ "$rc" != 0 ]; then
				echo "n/a (exit $rc: $(head -n 1 "$tmp/forks.err"))"
				return
			fi
			many=$(least "$many" "$secs")
			run noforks "$@" "$forkexec" 0 "$empty"
			none=$(least "$none" "$secs")
		done
		awk -v a="$many" -v b="$none" -v n="$forks" 'BEGIN { printf "%.3f ms\n", (a - b) / n * 1000 }'
	}
	echo "  native $(forkcost "${penv[@]}")"
	if [ "$have_icount" = 1 ]; then
		echo "  icount $(forkcost "$icount" run -q --count-only --fixed-clock)"
	fi
fi

echo
echo "address space and threads at scale (best of $repeat runs; issue 14's bounds: mmapstress under 5 s, threads20k under 3 s):"
for prog in testdata/build/c/mmapstress-glibc testdata/build/c/threads20k-musl testdata/build/arm64/c/threads20k-glibc; do
	if [ ! -x "$prog" ] || [ "$have_icount" != 1 ]; then
		echo "  $prog: not built"
		continue
	fi
	best=
	for _ in $(seq "$repeat"); do
		run scale "$icount" run -q --count-only --fixed-clock "$prog"
		[ "$rc" = 0 ] || { best="exit $rc"; break; }
		best=$(least "$best" "$secs")
	done
	printf "  %-40s icount %s s\n" "$prog" "$best"
done

echo
echo "start-up (best of $repeat runs):"
for prog in testdata/build/amd64/write testdata/build/c/empty-glibc testdata/build/c/empty-musl; do
	if [ ! -x "$prog" ]; then
		echo "  $prog: not built"
		continue
	fi
	best_n= best_i= failed=
	for _ in $(seq "$repeat"); do
		run native "$prog"
		native_rc=$rc
		best_n=$(awk -v a="$best_n" -v b="$secs" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
		if [ "$have_icount" = 1 ]; then
			run icount "$icount" run -q "$prog"
			[ "$rc" = "$native_rc" ] || failed="icount exit $rc, native $native_rc"
			best_i=$(awk -v a="$best_i" -v b="$secs" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
		fi
	done
	printf "  %-30s native %6s ms  icount %6s ms%s\n" "$prog" "$(ms "$best_n")" "$(ms "$best_i")" "${failed:+  ($failed)}"
done
exit 0
