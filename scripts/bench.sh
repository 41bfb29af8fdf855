#!/usr/bin/env bash
# `make bench`: icount's speed on real programs, beside the tools it is
# measured against. Not a test: it never fails because icount or another
# tool does; it prints what it got.
#
# First one table (markdown), a row per workload:
#   - the CoreMark-like C workload testdata/c/bench.c, x86-64 glibc-static
#     and arm64 glibc-static, ITERATIONS iterations (about 1e9 instructions);
#   - Debian's python3 -S running testdata/bench/fib.py (x86-64 and arm64);
#   - Debian's sqlite3 on an in-memory database (testdata/bench/sqlite.sql);
#   - xz -1 of 2 MB of generated text (testdata/build/bench/text.txt, made
#     here by a fixed linear congruential sequence);
#   - gcc's cc1 -O2 on testdata/bench/compile.c;
#   - Debian's arm64 lua5.4 (testdata/bench/sort.lua) and bzip2 -9 of the text;
#   - short rows, start-up alone: /bin/true (dynamic), empty static glibc
#     and musl programs, and a hand-written program with no libc.
# The arm64 programs of Debian come from the sysroot .deps/sysroot-arm64
# (scripts/fetch-sysroot-arm64.sh, run by make deps), given to icount as
# --sysroot and to qemu-aarch64 as -L.
#
# Columns: the run natively (x86-64 only), under qemu-user uncounted
# (qemu-x86_64, qemu-aarch64), under icount with full attribution
# (run -q) and counting only (run --count-only), under callgrind and under
# cachegrind --cache-sim=no (valgrind: x86-64 only); the ratios of icount
# full and count-only to callgrind and to qemu-user; the peak resident
# memory (what GNU time's %M says) of icount full and callgrind; and
# icount's instruction count (from the count-only runs' summary). Every
# figure is the median of REPEAT runs (SHORT_REPEAT for the short rows), the
# columns taking turns within each repetition. Every command gets an empty
# environment, as icount gives its guest, and stdin from /dev/null. Every
# run's stdout and exit status must be the reference run's (native, or
# qemu-aarch64's for arm64); a row where one differs gives no ratios, and
# what differed is listed under the table. scripts/benchrun.py times each
# run.
#
# Then further sections: a Go benchmark binary (testdata/go/bench),
# processes (a shell loop of 200 /bin/true, and the cost of one
# fork+exec+exit), address space and threads at scale, and the Go
# micro-benchmarks of the system-call path, of a first-seen block and of
# the block hook's floor (BenchmarkSyscall*, BenchmarkNewBlock*,
# BenchmarkBlockHook in ./emu ./kernel ./count) when there are any.
#
# Usage: scripts/bench.sh [ITERATIONS]   (run by `make bench`, after a build)
# Environment: ICOUNT (default bin/icount); ITERATIONS of the CoreMark-like
# rows (default 2400; the argument wins); REPEAT (default 3); SHORT_REPEAT
# (default 5); BENCH_TIME (wall, the default, or cpu: user+system seconds);
# ROWS (an extended regular expression: only the rows whose key matches,
# such as 'python|sqlite'; keys are listed by ROWS=list); SECTIONS (0: the
# table alone); SYSROOT_ARM64 (default .deps/sysroot-arm64); FORKS
# (fork+exec+exit cycles timed; default 200).
set -uo pipefail
export LC_ALL=C

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
icount=${ICOUNT:-bin/icount}
iterations=${1:-${ITERATIONS:-2400}}
repeat=${REPEAT:-3}
short_repeat=${SHORT_REPEAT:-5}
metric=${BENCH_TIME:-wall}
only=${ROWS:-}
sections=${SECTIONS:-1}
sysroot=${SYSROOT_ARM64:-.deps/sysroot-arm64}
python=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

case "$metric" in
wall | cpu) ;;
*) echo "bench: BENCH_TIME is wall or cpu, not $metric" >&2; exit 2 ;;
esac
if [ ! -x "$python" ]; then
	echo "bench: $python (Debian's python3) is needed to time the runs (scripts/benchrun.py)" >&2
	exit 1
fi

have_icount=1
[ -x "$icount" ] || { echo "bench: $icount is not built; its columns are left out" >&2; have_icount=0; }
# tool NAME: the path of the program NAME, or nothing.
tool() { command -v "$1" 2>/dev/null || true; }
valgrind=$(tool valgrind)
qemu_x86=$(tool qemu-x86_64)
qemu_a64=$(tool qemu-aarch64)
cc1=$(gcc -print-prog-name=cc1 2>/dev/null || true)

# ---- the workloads ----------------------------------------------------------

# The text the compressors read: 2,000,000 bytes of lines of words and
# numbers from a fixed sequence (exact in any awk: every product < 2^53).
text=testdata/build/bench/text.txt
mkdir -p "$(dirname "$text")"
awk -v bytes=2000000 'BEGIN {
	nw = split("the of and to in is that for it as with was on be by at this from or an are not have which but all were when we there can more one their if has been will its also into than other some time these two may only new such first any used over most where after", w, " ")
	x = 12345
	while (n < bytes) {
		line = ""
		for (j = 0; j < 12; j++) { x = (x * 69069 + 1) % 4294967296; line = line w[int(x / 65536) % nw + 1] " " }
		x = (x * 69069 + 1) % 4294967296
		line = line int(x / 256) "\n"
		if (n + length(line) > bytes) line = substr(line, 1, bytes - n)
		printf "%s", line
		n += length(line)
	}
}' >"$text"

# Each row: its key, arch (x86 or arm), whether it is short, its label and
# its command, and for an arm64 program of the sysroot "sysroot".
keys=()
declare -A arch label short cmd needsys
# row KEY ARCH SHORT LABEL [sysroot] -- CMD...
row() {
	local key=$1
	keys+=("$key")
	arch[$key]=$2 short[$key]=$3 label[$key]=$4 needsys[$key]=
	shift 4
	[ "$1" = sysroot ] && { needsys[$key]=1; shift; }
	shift # --
	cmd[$key]=$(printf '%q ' "$@")
}
row coremark x86 0 "CoreMark-like $iterations, x86-64 static" -- testdata/build/c/bench "$iterations"
row coremark-arm64 arm 0 "CoreMark-like $iterations, arm64 static" -- testdata/build/arm64/c/bench "$iterations"
row python x86 0 "python3 -S fib(25), x86-64" -- /usr/bin/python3 -S testdata/bench/fib.py 25
row python-arm64 arm 0 "python3 -S fib(25), arm64" sysroot -- "$sysroot/usr/bin/python3.11" -S testdata/bench/fib.py 25
row sqlite x86 0 "sqlite3 :memory: sqlite.sql" -- /usr/bin/sqlite3 :memory: ".read testdata/bench/sqlite.sql"
row xz x86 0 "xz -1 of 2 MB of text" -- /usr/bin/xz -1 -T1 -c "$text"
row cc1 x86 0 "cc1 -O2 compile.c" -- "${cc1:-cc1}" -quiet -O2 testdata/bench/compile.c -o /dev/null
row lua-arm64 arm 0 "lua5.4 sort.lua, arm64" sysroot -- "$sysroot/usr/bin/lua5.4" testdata/bench/sort.lua
row bzip2-arm64 arm 0 "bzip2 -9 of 2 MB of text, arm64" sysroot -- "$sysroot/bin/bzip2" -9 -c "$text"
row true x86 1 "/bin/true (dynamic)" -- /bin/true
row empty-glibc x86 1 "empty static glibc" -- testdata/build/c/empty-glibc
row empty-musl x86 1 "empty static musl" -- testdata/build/c/empty-musl
row write x86 1 "write, no libc (asm)" -- testdata/build/amd64/write

if [ "$only" = list ]; then
	printf '%s\n' "${keys[@]}"
	exit 0
fi

# The columns, in the order they run; the first that applies is the
# reference whose stdout and status the others must give.
columns=(native qemu full co cg cache)
declare -A colname=([native]=native [qemu]=qemu-user [full]="icount full" [co]="icount count-only" [cg]=callgrind [cache]=cachegrind)

# colcmd KEY COL: sets the array c to the command of row KEY in column COL,
# or leaves it empty when the column does not apply or its tool is missing
# (then sets $why to "—" or "n/a").
colcmd() {
	local key=$1 col=$2 base sys=()
	eval "base=(${cmd[$key]})"
	c=() why="n/a"
	[ -n "${needsys[$key]}" ] && sys=(--sysroot "$sysroot")
	case "$col/${arch[$key]}" in
	native/x86) c=("${base[@]}") ;;
	native/arm | cg/arm | cache/arm) why="—" ;;
	qemu/x86) [ -n "$qemu_x86" ] && c=("$qemu_x86" "${base[@]}") ;;
	qemu/arm)
		if [ -n "$qemu_a64" ]; then
			c=("$qemu_a64")
			[ -n "${needsys[$key]}" ] && c+=(-L "$sysroot")
			c+=("${base[@]}")
		fi
		;;
	full/*) [ "$have_icount" = 1 ] && c=("$icount" run -q "${sys[@]}" "${base[@]}") ;;
	co/*) [ "$have_icount" = 1 ] && c=("$icount" run --count-only "${sys[@]}" "${base[@]}") ;;
	cg/x86) [ -n "$valgrind" ] && c=("$valgrind" --tool=callgrind --callgrind-out-file=/dev/null "${base[@]}") ;;
	cache/x86) [ -n "$valgrind" ] && c=("$valgrind" --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "${base[@]}") ;;
	esac
}

# What the runs gave: secs[KEY/COL] and rss[KEY/COL] the figures of every
# run, counts[KEY] icount's instruction counts, ndiffer[KEY/COL] how many
# runs differed from the reference and firstdiff[KEY/COL] how the first did,
# differs[KEY] all that for the row (a line each), skip[KEY] why the row
# did not run.
declare -A secs rss counts ndiffer firstdiff differs skip
refcol=

# measure KEY COL RUN: one run of row KEY in column COL, compared with the
# reference run (the first run of the row's reference column).
measure() {
	local key=$1 col=$2 n=$3 out=$tmp/$1.$2.out err=$tmp/$1.$2.err line wall user sys max st
	line=$("$python" -I -S scripts/benchrun.py "$out" "$err" "${c[@]}" 2>"$tmp/benchrun.err")
	if [ -z "$line" ]; then
		ndiffer[$key/$col]=$((${ndiffer[$key/$col]:-0} + 1))
		[ -n "${firstdiff[$key/$col]:-}" ] || firstdiff[$key/$col]="run $n: not started: $(head -n1 "$tmp/benchrun.err")"
		return
	fi
	read -r wall user sys max st <<<"$line"
	if [ "$col" = "$refcol" ] && [ ! -f "$tmp/$key.ref.out" ]; then
		cp "$out" "$tmp/$key.ref.out"
		echo "$st" >"$tmp/$key.ref.status"
	fi
	local want what= ref=${colname[$refcol]} said
	want=$(cat "$tmp/$key.ref.status")
	if [ "$st" != "$want" ]; then
		said=$(grep -v '^icount:  ' "$err" | head -n 3 | tr '\n' ' ')
		what="exit $st, $ref's $want${said:+; stderr: $said}"
	elif ! cmp -s "$out" "$tmp/$key.ref.out"; then
		what="stdout differs from $ref's ($(wc -c <"$out") bytes against $(wc -c <"$tmp/$key.ref.out")): $(diff "$tmp/$key.ref.out" "$out" 2>/dev/null | head -n 3 | tr '\n' ' ')"
	fi
	if [ -n "$what" ]; then
		ndiffer[$key/$col]=$((${ndiffer[$key/$col]:-0} + 1))
		[ -n "${firstdiff[$key/$col]:-}" ] || firstdiff[$key/$col]="run $n: $what"
	fi
	if [ "$metric" = cpu ]; then
		secs[$key/$col]+=" $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.4f", u + s }')"
	else
		secs[$key/$col]+=" $wall"
	fi
	rss[$key/$col]+=" $max"
	if [ "$col" = co ]; then
		counts[$key]+=" $(sed -n 's/^icount: \([0-9,]*\) instructions.*/\1/p' "$err" | tr -d , | head -n1)"
	fi
}

# median LIST: the median of the numbers in LIST, or nothing.
median() {
	tr ' ' '\n' <<<"$1" | awk 'NF { v[++n] = $1 } END {
		if (n == 0) exit
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		print (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}'
}

# seconds S: S to three significant figures, or "n/a".
seconds() {
	awk -v s="$1" 'BEGIN { if (s == "") print "n/a"; else if (s < 0.1) printf "%.3f", s; else if (s < 10) printf "%.2f", s; else printf "%.1f", s }'
}

# ratio A B: A/B with two decimals, or "n/a".
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 <= 0 || a + 0 <= 0) print "n/a"; else printf "%.2f", a / b }'
}

# thousands N: N with commas between thousands.
thousands() {
	awk -v n="$1" 'BEGIN { s = ""; while (length(n) > 3) { s = "," substr(n, length(n) - 2) s; n = substr(n, 1, length(n) - 3) } print n s }'
}

echo "bench: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $metric seconds, median of $repeat runs ($short_repeat for the short rows)"
echo

table=$tmp/table.tsv
printf '%s\n' "workload	instructions (icount)	native	qemu-user	icount full	icount count-only	callgrind	cachegrind	full/callgrind	count-only/callgrind	full/qemu	count-only/qemu	RSS icount full	RSS callgrind" >"$table"
for key in "${keys[@]}"; do
	[ -n "$only" ] && ! grep -Eq -- "$only" <<<"$key" && continue
	eval "base=(${cmd[$key]})"
	if [ ! -x "${base[0]}" ]; then
		skip[$key]="${base[0]} is not there (make testprogs, make deps)"
	elif [ -n "${needsys[$key]}" ] && [ ! -d "$sysroot" ]; then
		skip[$key]="no sysroot $sysroot (make deps)"
	fi
	if [ -n "${skip[$key]:-}" ]; then
		printf '%s\t%s\n' "${label[$key]}" "not run: ${skip[$key]}" >>"$table"
		continue
	fi
	refcol=
	for col in "${columns[@]}"; do
		colcmd "$key" "$col"
		[ ${#c[@]} -gt 0 ] && { refcol=$col; break; }
	done
	runs=$repeat
	[ "${short[$key]}" = 1 ] && runs=$short_repeat
	for n in $(seq "$runs"); do
		for col in "${columns[@]}"; do
			colcmd "$key" "$col"
			[ ${#c[@]} -gt 0 ] && measure "$key" "$col" "$n"
		done
	done

	for col in "${columns[@]}"; do
		[ -n "${ndiffer[$key/$col]:-}" ] &&
			differs[$key]+="${colname[$col]}: ${ndiffer[$key/$col]} of $runs runs differ; ${firstdiff[$key/$col]}"$'\n'
	done

	# The row: each column's median, "—" where it does not apply.
	declare -A med=()
	cells=("${label[$key]}")
	countlist=$(tr ' ' '\n' <<<"${counts[$key]:-}" | awk NF | sort -u)
	case $(awk NF <<<"$countlist" | wc -l) in
	0) cells+=("n/a") ;;
	1) cells+=("$(thousands "$countlist")") ;;
	*) cells+=("$(thousands "$(head -n1 <<<"$countlist")")*")
	   clock=
	   grep -q 'the guest read the host clock' "$tmp/$key.co.err" 2>/dev/null && clock=" (it reads the host clock, which --fixed-clock would pin)"
	   differs[$key]+="icount's counts differ between its count-only runs$clock: $(tr '\n' ' ' <<<"$countlist")"$'\n' ;;
	esac
	for col in "${columns[@]}"; do
		colcmd "$key" "$col"
		med[$col]=$(median "${secs[$key/$col]:-}")
		if [ ${#c[@]} -eq 0 ]; then
			cells+=("$why")
		else
			cells+=("$(seconds "${med[$col]}")")
		fi
	done
	# The counts differing between runs is no reason to withhold the
	# ratios; a different stdout or status is.
	if grep -v "^icount's counts differ" <<<"${differs[$key]:-}" | grep -q .; then
		cells+=("differs" "differs" "differs" "differs")
	else
		for pair in "full cg" "co cg" "full qemu" "co qemu"; do
			read -r a b <<<"$pair"
			if [ -z "${med[$a]}" ] || [ -z "${med[$b]}" ]; then
				colcmd "$key" "$b"
				[ ${#c[@]} -eq 0 ] && cells+=("$why") || cells+=("n/a")
			else
				cells+=("$(ratio "${med[$a]}" "${med[$b]}")")
			fi
		done
	fi
	for col in full cg; do
		m=$(median "${rss[$key/$col]:-}")
		colcmd "$key" "$col"
		if [ -n "$m" ]; then
			cells+=("$(awk -v k="$m" 'BEGIN { printf "%.0f MB", k / 1024 }')")
		else
			cells+=("$why")
		fi
	done
	(IFS=$'\t'; printf '%s\n' "${cells[*]}") >>"$table"
	unset med
done

# The table as markdown, its columns padded to their widest cell (UTF-8
# aware: "—" is one column wide).
awk -F '\t' '
	function width(s) { return length(s) - 2 * gsub(/\342\200\224/, "&", s) }
	function spaces(n,  s) { s = ""; while (n-- > 0) s = s " "; return s }
	{ for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (width($i) > w[i]) w[i] = width($i) } nf[NR] = NF; if (NF > cols) cols = NF }
	END {
		for (r = 1; r <= NR; r++) {
			line = "|"
			for (i = 1; i <= (nf[r] == 2 && r > 1 ? 2 : cols); i++) {
				s = cell[r, i]
				pad = w[i] - width(s)
				line = line " " (i == 1 ? s spaces(pad) : spaces(pad) s) " |"
			}
			print line
			if (r == 1) {
				line = "|"
				for (i = 1; i <= cols; i++) { d = ""; for (k = 0; k < w[i]; k++) d = d "-"; line = line (i == 1 ? " " d " |" : " " substr(d, 2) ": |") }
				print line
			}
		}
	}' "$table"

noted=0
for key in "${keys[@]}"; do
	[ -n "${differs[$key]:-}" ] || continue
	[ "$noted" = 0 ] && { echo; echo "what differed:"; noted=1; }
	while IFS= read -r line; do
		[ -n "$line" ] && echo "  ${label[$key]}: $line"
	done <<<"${differs[$key]}"
done

[ "$sections" = 0 ] && exit 0

# ---- further sections --------------------------------------------------------

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

# least A B: the smaller of two numbers, B if A is empty.
least() {
	awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }'
}

# The Go benchmark: testdata/go/bench's test binary (go test -c), run
# natively, under callgrind and under icount. Its output holds its own
# timings, so it is not compared. Natively and under callgrind it runs with
# GOMAXPROCS=1, the one CPU icount gives the guest, so that all three do the
# same work (with more, idle Ps spin: 13.8e9 I refs against 48e6 on 2 host
# CPUs). callgrind can assert on the signal Go's runtime sends to preempt a
# goroutine (SIGURG): when it fails so, its line says why and it runs again
# with asynchronous preemption off.
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
	if [ -n "$valgrind" ]; then
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
		run goicount "$icount" run --count-only "$gobench" "${goargs[@]}"
		[ "$rc" = 0 ] && t_gic=$secs
		gcount=$(sed -n 's/^icount: \([0-9,]*\) instructions.*/\1/p' "$tmp/goicount.err" | tr -d , | head -n1)
		printf '  %-10s %8.3fs  exit %d  %s\n' icount "$secs" "$rc" "$(firstbench goicount)"
		[ "$rc" = 0 ] || grep -v '^icount:  ' "$tmp/goicount.err" | sed 's/^/    stderr: /' | head -n 5
	fi
	echo "  instructions: callgrind I refs ${girefs:-n/a}, icount ${gcount:-n/a} (both GOMAXPROCS 1)"
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
if [ -n "$valgrind" ]; then
	run shcallgrind "${penv[@]}" valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=/dev/null /bin/sh -c "$loop"
	[ "$rc" = 0 ] && t_shcg=$secs
	printf '  %-10s %8.3fs  exit %d  (--trace-children=yes)\n' callgrind "$secs" "$rc"
fi
t_shic=
if [ "$have_icount" = 1 ]; then
	run shicount "$icount" run -q --count-only --env PATH=/usr/bin:/bin /bin/sh -c "$loop"
	[ "$rc" = 0 ] && t_shic=$secs
	printf '  %-10s %8.3fs  exit %d\n' icount "$secs" "$rc"
	[ "$rc" = 0 ] || sed 's/^/    stderr: /' "$tmp/shicount.err" | head -n 5
fi
echo "  ratio icount/callgrind: $(ratio "$t_shic" "$t_shcg") (at most 0.10)"

forks=${FORKS:-200}
forkexec=testdata/build/proc/forkexec-musl
empty=testdata/build/c/empty-musl
echo
echo "fork+exec+exit of $empty (forkexec $forks times less 0 times, best of $short_repeat):"
if [ ! -x "$forkexec" ] || [ ! -x "$empty" ]; then
	echo "  $forkexec or $empty: not built"
else
	# forkcost CMD...: the best of $short_repeat runs of CMD $forks and 0
	# times, as milliseconds per fork+exec+exit; "n/a" and why if a run
	# failed.
	forkcost() {
		local many= none=
		for _ in $(seq "$short_repeat"); do
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
		echo "  icount $(forkcost "$icount" run -q --count-only)"
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
		run scale "$icount" run -q --count-only "$prog"
		[ "$rc" = 0 ] || { best="exit $rc"; break; }
		best=$(least "$best" "$secs")
	done
	printf "  %-40s icount %s s\n" "$prog" "$best"
done

# The Go micro-benchmarks of the system-call path, of a first-seen block
# and of a block's execution under each kind of block hook (the floor that
# a call per block sets), where there are any.
micro=$(grep -lE '^func Benchmark(Syscall|NewBlock|BlockHook)' emu/*_test.go kernel/*_test.go count/*_test.go 2>/dev/null)
if [ -n "$micro" ]; then
	echo
	echo "Go micro-benchmarks: go test -run '^\$' -bench '^Benchmark(Syscall|NewBlock|BlockHook)' ./emu ./kernel ./count"
	${GO:-go} test -run '^$' -bench '^Benchmark(Syscall|NewBlock|BlockHook)' ./emu ./kernel ./count 2>&1 |
		grep -E '^(Benchmark|FAIL|--- FAIL|panic)' | sed 's/^/  /'
fi
exit 0
