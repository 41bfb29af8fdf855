package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/report"
)

// Tests of per-line attribution, the instruction mix, the formats other
// tools read (callgrind_annotate, go tool pprof, benchstat) and icount
// annotate, on the test programs `make testprogs` builds (the -g ones carry
// DWARF).

func parseCount(s string) uint64 {
	n, err := strconv.ParseUint(strings.ReplaceAll(s, ",", ""), 10, 64)
	if err != nil {
		panic(fmt.Sprintf("not a count: %q", s))
	}
	return n
}

// topBySelf returns the first n functions of a Profile (they are kept by
// self cost) whose self cost differs from the next one's, so that their
// order is the same in any tool.
func topBySelf(p *profile.Profile, n int) []profile.FunctionCount {
	fs := p.Functions
	n = min(n, len(fs))
	for n > 0 && n < len(fs) && fs[n-1].Self == fs[n].Self {
		n--
	}
	return fs[:n]
}

// TestLinesExact counts hand-written assembly built with -g line by line:
// each instruction's line is executed as often as the header of
// callgraph.S works out, and the lines sum to the total.
func TestLinesExact(t *testing.T) {
	t.Parallel()
	src := filepath.Join(repoRoot, "testdata", "amd64", "callgraph.S")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// The instruction lines in order, with the times each runs.
	want := []struct {
		text string
		n    uint64
	}{
		{"mov\t$3, %r12d", 1}, {"1:\tcall\ta", 3}, {"dec\t%r12d", 3}, {"jnz\t1b", 3}, {"call\tb", 1}, {"call\tb", 1},
		{"mov\t$231, %eax", 1}, {"xor\t%edi, %edi", 1}, {"syscall", 1},
		{"a:\tcall\tc", 3}, {"ret", 3},
		{"b:\tnop", 2}, {"call\tc", 2}, {"call\tc", 2}, {"ret", 2},
		{"c:\tnop", 7}, {"nop", 7}, {"ret", 7},
	}
	wantLine := map[int]uint64{}
	lines := strings.Split(string(b), "\n")
	next := 0
	for _, w := range want {
		for next < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[next]), w.text) {
			next++
		}
		if next == len(lines) {
			t.Fatalf("%s: no line %q", src, w.text)
		}
		wantLine[next+1] = w.n
		next++
	}
	r := runIcount(t, nil, []string{"--lines"}, testProgram(t, "amd64/callgraph-g"))
	if r.profile == nil || r.status != 0 {
		t.Fatalf("status %d\n%s", r.status, r.stderr)
	}
	got := map[int]uint64{}
	var sum uint64
	// DWARF names the source where the binary was built: this checkout or
	// another.
	srcName := "/testdata/amd64/callgraph.S"
	for _, l := range r.profile.Lines {
		if !strings.HasSuffix(l.File, srcName) {
			t.Errorf("line %+v: file is not %s", l, srcName)
		}
		got[l.Line] += l.Self
		sum += l.Self
	}
	if sum != r.profile.Totals.Instructions {
		t.Errorf("lines sum to %d, total %d", sum, r.profile.Totals.Instructions)
	}
	for line, n := range wantLine {
		if got[line] != n {
			t.Errorf("line %d (%s): %d, want %d", line, strings.TrimSpace(lines[line-1]), got[line], n)
		}
	}
	if len(got) != len(wantLine) {
		t.Errorf("lines %v, want %v", got, wantLine)
	}
	// A function's position is its first line: gas gives no declaration.
	for name, text := range map[string]string{"_start": "mov\t$3, %r12d", "c": "c:\tnop"} {
		f, _ := functionByName(r.profile, name)
		if !strings.HasSuffix(f.File, srcName) || f.Line < 1 || !strings.HasPrefix(strings.TrimSpace(lines[f.Line-1]), text) {
			t.Errorf("%s at %s:%d, want the line %q", name, f.File, f.Line, text)
		}
	}
	// Without --lines, no lines in the JSON even when a format needed them.
	plain := runIcount(t, nil, []string{"--callgrind", filepath.Join(t.TempDir(), "cg.out")}, testProgram(t, "amd64/callgraph-g"))
	if plain.profile == nil || len(plain.profile.Lines) != 0 || len(plain.profile.Blocks) != 0 {
		t.Errorf("--callgrind without --lines put lines or blocks in the JSON")
	}
}

// TestLinesC checks per-line costs and source positions on C built with -g
// at -O2: the lines of each function sum to its self cost, functions have
// their declaration's file and line, and code inlined into main is named.
func TestLinesC(t *testing.T) {
	t.Parallel()
	r := runIcount(t, nil, []string{"--lines"}, testProgram(t, "c/crunch-musl-g"))
	if r.profile == nil || r.status != 0 {
		t.Fatalf("status %d\n%s", r.status, r.stderr)
	}
	p := r.profile
	checkTree(t, p)
	byFunc := map[string]uint64{}
	inlined := map[string]bool{}
	var sum uint64
	for _, l := range p.Lines {
		byFunc[l.Function] += l.Self
		sum += l.Self
		if l.Inlined != "" {
			inlined[l.Inlined] = true
		}
	}
	if sum != p.Totals.Instructions {
		t.Errorf("lines sum to %d, total %d", sum, p.Totals.Instructions)
	}
	for _, f := range p.Functions {
		if byFunc[f.Name] != f.Self {
			t.Errorf("%s: lines sum to %d, self %d", f.Name, byFunc[f.Name], f.Self)
		}
	}
	src := filepath.Join(repoRoot, "testdata", "c", "crunch.c")
	text, _ := os.ReadFile(src)
	lines := strings.Split(string(text), "\n")
	for _, name := range []string{"main", "merge_sort", "push"} {
		f, _ := functionByName(p, name)
		if !strings.HasSuffix(f.File, "/testdata/c/crunch.c") || f.Line < 1 || f.Line > len(lines) || !strings.Contains(lines[f.Line-1], name+"(") {
			t.Errorf("%s declared at %s:%d", name, f.File, f.Line)
		}
	}
	if !inlined["sieve"] || !inlined["matrix"] {
		t.Errorf("inlined into main: %v, want sieve and matrix", inlined)
	}
	var blocks uint64
	for _, b := range p.Blocks {
		blocks += b.Executions
	}
	if blocks != p.Totals.Blocks || len(p.Blocks) != int(p.Totals.DistinctBlocks) {
		t.Errorf("blocks: %d executions of %d blocks, totals %d of %d", blocks, len(p.Blocks), p.Totals.Blocks, p.Totals.DistinctBlocks)
	}
}

var mixLine = regexp.MustCompile(`(?m)^# mix: loads=(\d+) stores=(\d+) branches=(\d+) calls=(\d+) returns=(\d+) syscalls=(\d+) simd_fp=(\d+) other=(\d+)$`)

// TestMixExact checks the instruction mix of hand-written assembly against
// the mix its header works out, in all and per function.
func TestMixExact(t *testing.T) {
	t.Parallel()
	src := filepath.Join(repoRoot, "testdata", "amd64", "mix.S")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	m := mixLine.FindStringSubmatch(string(b))
	if m == nil {
		t.Fatalf("%s has no `# mix:` line", src)
	}
	var v [8]uint64
	for i := range v {
		v[i] = parseCount(m[i+1])
	}
	want := profile.Mix{Loads: v[0], Stores: v[1], Branches: v[2], Calls: v[3], Returns: v[4], Syscalls: v[5], SIMDFP: v[6], Other: v[7]}
	for _, variant := range []string{"mix", "mix-pie"} {
		for _, flags := range [][]string{nil, {"--count-only"}} {
			r := runIcount(t, nil, append([]string{"--mix"}, flags...), testProgram(t, "amd64/"+variant))
			if r.profile == nil || r.profile.Mix == nil {
				t.Fatalf("%s %v: no mix\n%s", variant, flags, r.stderr)
			}
			if *r.profile.Mix != want {
				t.Errorf("%s %v: mix %+v, want %+v", variant, flags, *r.profile.Mix, want)
			}
			var sum profile.Mix
			for _, f := range r.profile.Functions {
				if f.Mix != nil {
					sum.Loads += f.Mix.Loads
					sum.Stores += f.Mix.Stores
					sum.Returns += f.Mix.Returns
					sum.Other += f.Mix.Other
				}
			}
			if sum.Loads != want.Loads || sum.Stores != want.Stores || sum.Returns != want.Returns || sum.Other != want.Other {
				t.Errorf("%s %v: functions' mixes sum to %+v", variant, flags, sum)
			}
			if !strings.Contains(r.stderr, "icount: mix: loads 38.5%, stores 38.5%, branches 6.2%, calls 6.2%, returns 6.2%, syscalls 1.5%, SIMD/FP 18.5%, other 16.9%\n") {
				t.Errorf("%s %v: no mix line in the summary:\n%s", variant, flags, r.stderr)
			}
		}
	}
}

// annotated is one function as callgrind_annotate or pprof lists it.
type annotated struct{ self, incl uint64 }

// callgrindLine is a function line of callgrind_annotate: "1,234 (5.6%)
// file:function [object]"; the file has no colon, the function may.
var callgrindLine = regexp.MustCompile(`^\s*([\d,]+) \(\s*[\d.]+%\)\s+([^:\s]*):(.*) \[[^\]]*\]$`)

// callgrindAnnotate runs callgrind_annotate on file and returns its total
// and its functions' costs by name, summed over the files they appear in.
func callgrindAnnotate(t *testing.T, file string, args ...string) (uint64, map[string]uint64, []string) {
	t.Helper()
	out, err := exec.Command("callgrind_annotate", append(args, file)...).CombinedOutput()
	if err != nil {
		t.Fatalf("callgrind_annotate: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "WARNING") {
		t.Errorf("callgrind_annotate warns:\n%s", out)
	}
	var total uint64
	fns := map[string]uint64{}
	var order []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasSuffix(line, "PROGRAM TOTALS") {
			total = parseCount(strings.Fields(line)[0])
			continue
		}
		if strings.HasPrefix(line, "-- Auto-annotated source") {
			break
		}
		if m := callgrindLine.FindStringSubmatch(line); m != nil {
			if _, ok := fns[m[3]]; !ok {
				order = append(order, m[3])
			}
			fns[m[3]] += parseCount(m[1])
		}
	}
	return total, fns, order
}

// TestCallgrindAnnotateReadsIcount writes callgrind files of programs with
// and without DWARF and of C++, and checks that callgrind_annotate reads
// them and prints the same total and the same top functions, with the same
// self costs; and, with --inclusive=yes, the same inclusive costs.
func TestCallgrindAnnotateReadsIcount(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("callgrind_annotate"); err != nil {
		t.Fatal("callgrind_annotate is not installed: run `make deps`")
	}
	for _, prog := range []string{"c/callgraph-musl-g", "c/crunch-musl", "c/crunch-musl-g", "cxx/throw"} {
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "callgrind.out")
			r := runIcount(t, nil, []string{"--callgrind", out}, testProgram(t, prog))
			if r.profile == nil || r.status != 0 {
				t.Fatalf("status %d\n%s", r.status, r.stderr)
			}
			p := r.profile
			total, fns, order := callgrindAnnotate(t, out, "--threshold=100")
			if total != p.Totals.Instructions {
				t.Errorf("callgrind_annotate total %d, icount %d", total, p.Totals.Instructions)
			}
			top := topBySelf(p, 5)
			for i, f := range top {
				name := report.DisplayName(f.Name)
				if fns[name] != f.Self {
					t.Errorf("%s: callgrind_annotate %d, icount self %d", name, fns[name], f.Self)
				}
				if i < len(order) && order[i] != name {
					t.Errorf("top function %d: callgrind_annotate %s, icount %s", i+1, order[i], name)
				}
			}
			if prog != "c/callgraph-musl-g" {
				return
			}
			_, incl, _ := callgrindAnnotate(t, out, "--threshold=100", "--inclusive=yes")
			for _, name := range []string{"main", "body", "mid", "leaf", "fib", "setup"} {
				f, _ := functionByName(p, name)
				if incl[name] != f.Inclusive {
					t.Errorf("%s: callgrind_annotate inclusive %d, icount %d", name, incl[name], f.Inclusive)
				}
			}
		})
	}
}

// pprofRow is a row of go tool pprof -top: flat flat% sum% cum cum% name.
var pprofRow = regexp.MustCompile(`^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.+)$`)
var pprofTotal = regexp.MustCompile(`of (\d+) total`)

// pprofTop runs go tool pprof -top on file and returns its total and each
// function's flat and cumulative cost.
func pprofTop(t *testing.T, file string, args ...string) (uint64, map[string]annotated, []string) {
	t.Helper()
	cmd := exec.Command("go", append(append([]string{"tool", "pprof", "-top", "-nodecount=100000", "-nodefraction=0", "-edgefraction=0"}, args...), file)...)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir(), "PPROF_BINARY_PATH=/nonexistent")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, out)
	}
	m := pprofTotal.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no total in go tool pprof's output:\n%s", out)
	}
	fns := map[string]annotated{}
	var order []string
	for _, line := range strings.Split(string(out), "\n") {
		if r := pprofRow.FindStringSubmatch(line); r != nil {
			fns[r[3]] = annotated{parseCount(r[1]), parseCount(r[2])}
			order = append(order, r[3])
		}
	}
	return parseCount(string(m[1])), fns, order
}

// TestPprofTopReadsIcount writes pprof profiles and checks that go tool
// pprof -top prints the same total and the same top functions, each with
// icount's self cost as flat and its inclusive cost as cum; and that the
// blocks sample type totals the block executions.
func TestPprofTopReadsIcount(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"c/callgraph-musl-g", "c/crunch-musl", "c/textstat-glibc", "cxx/throw"} {
		for _, flags := range [][]string{nil, {"--count-only"}} {
			t.Run(prog+strings.Join(flags, ""), func(t *testing.T) {
				t.Parallel()
				out := filepath.Join(t.TempDir(), "prof.pb.gz")
				stdin, _ := os.ReadFile(filepath.Join(repoRoot, "testdata", "c", "textstat.c"))
				r := runIcount(t, stdin, append([]string{"--pprof", out}, flags...), testProgram(t, prog))
				if r.profile == nil || r.status != 0 {
					t.Fatalf("status %d\n%s", r.status, r.stderr)
				}
				p := r.profile
				total, fns, order := pprofTop(t, out)
				if total != p.Totals.Instructions {
					t.Errorf("pprof total %d, icount %d", total, p.Totals.Instructions)
				}
				for i, f := range topBySelf(p, 5) {
					name := report.DisplayName(f.Name)
					got, ok := fns[name]
					if !ok || got.self != f.Self || flags == nil && got.incl != f.Inclusive {
						t.Errorf("%s: pprof flat %d cum %d, icount self %d inclusive %d", name, got.self, got.incl, f.Self, f.Inclusive)
					}
					if i < len(order) && order[i] != name {
						t.Errorf("top function %d: pprof %s, icount %s", i+1, order[i], name)
					}
				}
				blocks, _, _ := pprofTop(t, out, "-sample_index=blocks")
				if blocks != p.Totals.Blocks {
					t.Errorf("pprof blocks total %d, icount %d", blocks, p.Totals.Blocks)
				}
			})
		}
	}
}

// TestBenchstatReadsIcount writes two --bench results of one program on
// different inputs and checks that benchstat compares them and prints the
// change icount counted.
func TestBenchstatReadsIcount(t *testing.T) {
	t.Parallel()
	benchstat := filepath.Join(repoRoot, ".deps", "bin", "benchstat")
	if _, err := os.Stat(benchstat); err != nil {
		t.Fatalf("%s is missing: run `make deps`", benchstat)
	}
	dir := t.TempDir()
	prog := testProgram(t, "c/crunch-musl")
	old, new := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
	a := runIcount(t, nil, []string{"--bench", "Crunch", "--bench-out", old}, prog)
	b := runIcount(t, []byte("5 3 9 1 7 2 8"), []string{"--bench", "Crunch", "--bench-out", new}, prog)
	if a.profile == nil || b.profile == nil {
		t.Fatalf("icount failed:\n%s\n%s", a.stderr, b.stderr)
	}
	text, _ := os.ReadFile(old)
	want := fmt.Sprintf("BenchmarkCrunch 1 %d instructions %d blocks\n", a.profile.Totals.Instructions, a.profile.Totals.Blocks)
	if !strings.Contains(string(text), want) || !strings.Contains(string(text), "Unit instructions assume=exact better=lower\n") {
		t.Errorf("--bench wrote:\n%s\nwant a line %q", text, want)
	}
	out, err := exec.Command(benchstat, old, new).CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out)
	}
	for _, unit := range []struct {
		name     string
		old, new uint64
	}{{"instructions", a.profile.Totals.Instructions, b.profile.Totals.Instructions}, {"blocks", a.profile.Totals.Blocks, b.profile.Totals.Blocks}} {
		delta := fmt.Sprintf("%+.2f%%", 100*(float64(unit.new)-float64(unit.old))/float64(unit.old))
		re := regexp.MustCompile(`(?m)^Crunch\s.*\s` + regexp.QuoteMeta(delta) + ` \(n=1\)$`)
		if !strings.Contains(string(out), unit.name) || !re.Match(out) {
			t.Errorf("benchstat did not print the %s change %s:\n%s", unit.name, delta, out)
		}
	}
	bad := runIcount(t, nil, []string{"--bench", "Crunch"}, prog)
	if bad.status != exitUsage || !strings.Contains(bad.stderr, "--bench-out") {
		t.Errorf("--bench without --bench-out: status %d\n%s", bad.status, bad.stderr)
	}
}

var disasmHeader = regexp.MustCompile(`^-- Disassembly of (.+) \((.*)\), ([\d,]+) instructions`)
var disasmRow = regexp.MustCompile(`^\s+([\d,]+|\.)\s+[0-9a-f]+:  `)
var sourceRow = regexp.MustCompile(`^\s+([\d,]+|\.)  (.*)$`)

// TestAnnotate annotates a saved run: each source line shows the count the
// Profile gives it, each function's instruction counts sum to its self
// cost, and icount says when a source or the binary is missing or changed.
func TestAnnotate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A copy of the binary, to change it later.
	bin := filepath.Join(dir, "callgraph")
	data, err := os.ReadFile(testProgram(t, "c/callgraph-musl-g"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	prof := filepath.Join(dir, "prof.json")
	if status, _, stderr := icountIn(t, "", "run", "-q", "--lines", "--json", prof, bin); status != 0 {
		t.Fatalf("run: %d %s", status, stderr)
	}
	p, err := profile.Read(prof)
	if err != nil {
		t.Fatal(err)
	}
	status, out, stderr := icountIn(t, "", "annotate", "--top", "100", prof)
	if status != 0 {
		t.Fatalf("annotate: %d %s", status, stderr)
	}
	src := filepath.Join(repoRoot, "testdata", "c", "callgraph.c")
	text, _ := os.ReadFile(src)
	srcLines := strings.Split(string(text), "\n")
	want := map[int]uint64{}
	isSrc := func(file string) bool { return strings.HasSuffix(file, "/testdata/c/callgraph.c") }
	for _, l := range p.Lines {
		if isSrc(l.File) {
			want[l.Line] += l.Self
		}
	}
	// The source part: every counted line with its count.
	got := map[int]string{}
	section, lineNo := "", 0
	selfOf := map[string]uint64{}
	for _, f := range p.Functions {
		selfOf[report.DisplayName(f.Name)] = f.Self
	}
	var fn string
	var fnSum uint64
	checkFn := func() {
		if fn != "" && fnSum != selfOf[fn] {
			t.Errorf("disassembly of %s: instructions sum to %d, self %d", fn, fnSum, selfOf[fn])
		}
	}
	disassembled := 0
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "-- Source: "):
			section = strings.Fields(strings.TrimPrefix(line, "-- Source: "))[0]
		case disasmHeader.MatchString(line):
			checkFn()
			fn, fnSum, section = disasmHeader.FindStringSubmatch(line)[1], 0, "disasm"
			disassembled++
		case section == "disasm" && disasmRow.MatchString(line):
			if c := disasmRow.FindStringSubmatch(line)[1]; c != "." {
				fnSum += parseCount(c)
			}
		case isSrc(section) && strings.HasPrefix(line, "-- line "):
			lineNo, _ = strconv.Atoi(strings.Fields(line)[2])
		case isSrc(section) && sourceRow.MatchString(line):
			m := sourceRow.FindStringSubmatch(line)
			if lineNo < 1 || lineNo > len(srcLines) {
				t.Fatalf("source row %q outside the file's lines (%d): was the binary built from another copy of the source?", line, lineNo)
			}
			if m[2] != srcLines[lineNo-1] {
				t.Errorf("line %d shown as %q, the file has %q", lineNo, m[2], srcLines[lineNo-1])
			}
			got[lineNo] = m[1]
			lineNo++
		}
	}
	checkFn()
	if disassembled < 10 {
		t.Errorf("%d functions disassembled, want every one that ran (--top 100)", disassembled)
	}
	for line, n := range want {
		if c := got[line]; c != report.Group(n) {
			t.Errorf("%s:%d %q annotated %q, want %s", src, line, srcLines[line-1], c, report.Group(n))
		}
	}
	if !strings.Contains(out, "-- not found: ") || !strings.Contains(out, "-- No source line information: ") {
		t.Errorf("annotate does not say which sources are missing and which code has no lines:\n%s", out)
	}

	// Only the functions asked for.
	_, out, _ = icountIn(t, "", "annotate", prof, "leaf")
	if n := strings.Count(out, "-- Disassembly of "); n != 1 || !strings.Contains(out, "-- Disassembly of leaf (callgraph), 8,000 instructions") {
		t.Errorf("annotate leaf:\n%s", out)
	}
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		if disasmRow.MatchString(line) {
			rows = append(rows, disasmRow.FindStringSubmatch(line)[1])
		}
	}
	sort.Strings(rows)
	if strings.Join(rows, " ") != "2,000 2,000 2,000 2,000" {
		t.Errorf("leaf's instructions ran %v times, want 2,000 each", rows)
	}
	if status, _, stderr := icountIn(t, "", "annotate", prof, "no_such_function"); status != exitUsage || !strings.Contains(stderr, "no_such_function") {
		t.Errorf("annotate of a missing function: %d %s", status, stderr)
	}

	// The binary changed since the run.
	if err := os.WriteFile(bin, append(data, 0), 0o755); err != nil {
		t.Fatal(err)
	}
	_, out, _ = icountIn(t, "", "annotate", prof)
	if !strings.Contains(out, "-- No disassembly: "+bin+" changed since the run") {
		t.Errorf("annotate of a changed binary:\n%s", out)
	}
	// A run saved without --lines.
	plain := filepath.Join(dir, "plain.json")
	icountIn(t, "", "run", "-q", "--json", plain, bin)
	if status, _, stderr := icountIn(t, "", "annotate", plain); status != exitUsage || !strings.Contains(stderr, "--lines") {
		t.Errorf("annotate without lines: %d %s", status, stderr)
	}
}
