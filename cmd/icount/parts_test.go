package main

import (
	"bufio"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	pprofile "github.com/google/pprof/profile"

	"github.com/icount-dev/icount/profile"
)

// dumpParts are the parts testdata/c/dumps.c ends with
// CALLGRIND_DUMP_STATS_AT, in order, and the one its exit ends.
var dumpParts = []string{"sort", "hash", "fib", "exit"}

// partSelf returns the self costs of a part's functions by name.
func partSelf(pt profile.Part) map[string]uint64 {
	out := map[string]uint64{}
	for _, f := range pt.Functions {
		out[f.Name] += f.Self
	}
	return out
}

// TestCallgrindDumps runs testdata/c/dumps.c, a program written for
// callgrind, under icount and under callgrind. icount ends a part at each
// of its three CALLGRIND_DUMP_STATS_AT and at its exit, named as the dumps
// are, and leaves out what ran before CALLGRIND_ZERO_STATS, between its
// two CALLGRIND_TOGGLE_COLLECT and between CALLGRIND_STOP_INSTRUMENTATION
// and CALLGRIND_START_INSTRUMENTATION. Each named part's functions other
// than main count exactly what callgrind's dump of the same name counts
// for them; the parts' totals differ by a few dozen instructions of main,
// the code of the requests themselves, which the two count differently:
//   - valgrind decodes a request's special sequence (four rotations and
//     the marker, five instructions) as one instruction;
//   - callgrind charges a block's instructions when the block ends, after
//     the request that ends it took effect: the block that sets up a dump
//     goes to the next dump, and one that turns collection off is left out.
//
// icount charges each instruction to the part in which it runs.
func TestCallgrindDumps(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"c/dumps-musl", "arm64/c/dumps-glibc"} {
		t.Run(strings.ReplaceAll(prog, "/", "_"), func(t *testing.T) {
			t.Parallel()
			bin := testProgram(t, prog)
			out := t.TempDir()
			pprofPath, cgPath := filepath.Join(out, "p.pb.gz"), filepath.Join(out, "callgrind.out")
			r := runIcount(t, nil, []string{"--pprof", pprofPath, "--callgrind", cgPath}, bin)
			if r.status != 0 || r.profile == nil {
				t.Fatalf("icount: status %d\n%s", r.status, r.stderr)
			}
			if !strings.HasPrefix(r.stdout, "running on valgrind: 0,") {
				t.Errorf("RUNNING_ON_VALGRIND under icount: want 0 (the program runs as natively):\n%s", r.stdout)
			}
			parts := r.profile.Parts
			var names []string
			for _, pt := range parts {
				names = append(names, pt.Name)
			}
			if fmt.Sprint(names) != fmt.Sprint(dumpParts) {
				t.Fatalf("parts %q, want %q", names, dumpParts)
			}
			// What counting left out is in no part: the hash part holds
			// two calls of hash (noise's, between the toggles, is not
			// there), the fib part none (noise's is between stop and
			// start).
			if c := callsOf(parts[1], "hash"); c != 2 {
				t.Errorf("the hash part calls hash %d times, want 2 (the toggled one left out)", c)
			}
			if c := callsOf(parts[2], "hash"); c != 0 {
				t.Errorf("the fib part calls hash %d times, want 0 (instrumentation stopped around it)", c)
			}
			var sum uint64
			for _, pt := range parts {
				sum += pt.Totals.Instructions
			}
			if sum >= r.profile.Totals.Instructions {
				t.Errorf("the parts sum to %d, the run counts %d: the start-up before CALLGRIND_ZERO_STATS should be in none", sum, r.profile.Totals.Instructions)
			}
			checkPartFormats(t, r.profile, pprofPath, cgPath)
			if strings.HasPrefix(prog, "arm64/") {
				return // valgrind here runs amd64 guests only
			}
			if _, err := exec.LookPath("valgrind"); err != nil {
				t.Skip("valgrind is not installed: run `make deps`")
			}
			dumps := callgrindDumps(t, bin)
			for i, name := range dumpParts[:3] {
				d := dumps[i]
				if d.trigger != "Client Request: "+name {
					t.Fatalf("callgrind's dump %d: trigger %q, want the request %q", i+1, d.trigger, name)
				}
				pt := parts[i]
				diff := int64(pt.Totals.Instructions) - int64(d.totals)
				t.Logf("part %s: icount %d, callgrind %d, difference %+d", name, pt.Totals.Instructions, d.totals, diff)
				ic := partSelf(pt)
				for fn, cg := range d.self {
					if fn != "main" && cg != 0 && ic[fn] != cg {
						t.Errorf("part %s, function %s: icount %d, callgrind %d", name, fn, ic[fn], cg)
					}
				}
				// Three requests border a part at most: 4 instructions of
				// each sequence, and the blocks that set up a request
				// (at most 20 instructions each) moved by callgrind.
				if diff < -64 || diff > 64 {
					t.Errorf("part %s: icount %d and callgrind %d differ by more than the requests' code", name, pt.Totals.Instructions, d.totals)
				}
			}
		})
	}
}

// checkPartFormats checks the parts in the pprof and callgrind files of
// a run: the pprof samples labelled with a part sum to its instructions,
// the others to what ran outside every part; each part is a callgrind
// file of its own, FILE.N, with its trigger, totals and functions' self
// costs.
func checkPartFormats(t *testing.T, p *profile.Profile, pprofPath, cgPath string) {
	t.Helper()
	f, err := os.Open(pprofPath)
	if err != nil {
		t.Fatal(err)
	}
	pp, err := pprofile.Parse(f)
	f.Close()
	if err != nil {
		t.Fatalf("%s: %v", pprofPath, err)
	}
	byPart := map[string]int64{}
	var all int64
	for _, s := range pp.Sample {
		all += s.Value[0]
		if l := s.Label["part"]; len(l) == 1 {
			byPart[l[0]] += s.Value[0]
		} else {
			byPart[""] += s.Value[0]
		}
	}
	want := map[string]int64{"": int64(p.Totals.Instructions)}
	for _, pt := range p.Parts {
		want[pt.Name] += int64(pt.Totals.Instructions)
		want[""] -= int64(pt.Totals.Instructions)
	}
	if fmt.Sprint(byPart) != fmt.Sprint(want) || all != int64(p.Totals.Instructions) {
		t.Errorf("pprof: instructions by label part %v (sum %d), want %v", byPart, all, want)
	}
	for i, pt := range p.Parts {
		path := fmt.Sprintf("%s.%d", cgPath, i+1)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		d, err := readCallgrindDump(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		trigger := "Client Request: " + pt.Name
		if pt.Name == "exit" {
			trigger = "Program termination"
		}
		if d.trigger != trigger || d.totals != pt.Totals.Instructions {
			t.Errorf("%s: trigger %q, totals %d; want %q, %d", path, d.trigger, d.totals, trigger, pt.Totals.Instructions)
		}
		for fn, n := range partSelf(pt) {
			if n != 0 && d.self[fn] != n {
				t.Errorf("%s: %s self %d, the part's %d", path, fn, d.self[fn], n)
			}
		}
	}
}

// callsOf returns the calls a part counts of the function named name or
// one of its clones (name.constprop.0).
func callsOf(pt profile.Part, name string) uint64 {
	var n uint64
	for _, f := range pt.Functions {
		if f.Name == name || strings.HasPrefix(f.Name, name+".") {
			n += f.Calls
		}
	}
	return n
}

// cgDump is one of callgrind's dumps: what triggered it, its totals and
// its functions' self costs.
type cgDump struct {
	trigger string
	totals  uint64
	self    map[string]uint64
}

// callgrindDumps runs bin under callgrind and reads its numbered dumps.
func callgrindDumps(t *testing.T, bin string) []cgDump {
	t.Helper()
	out := filepath.Join(t.TempDir(), "callgrind.out")
	cmd := exec.Command("valgrind", "--tool=callgrind", "--callgrind-out-file="+out, bin)
	cmd.Env = []string{}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("valgrind: %v\n%s", err, b)
	}
	var dumps []cgDump
	for i := 1; ; i++ {
		f, err := os.Open(out + "." + strconv.Itoa(i))
		if os.IsNotExist(err) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		d, err := readCallgrindDump(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s.%d: %v", out, i, err)
		}
		dumps = append(dumps, d)
	}
	if len(dumps) != 3 {
		t.Fatalf("callgrind wrote %d numbered dumps, want 3", len(dumps))
	}
	return dumps
}

var cgName = regexp.MustCompile(`^\((\d+)\)(?: (.*))?$`)

// readCallgrindDump reads a callgrind file (positions: line or instr line,
// one event): its trigger, totals and each function's self cost, the
// cost lines under fn= that do not follow a calls= line (the levels of a
// recursion, NAME'2, as NAME).
func readCallgrindDump(f *os.File) (cgDump, error) {
	d := cgDump{self: map[string]uint64{}}
	names := map[string]string{}
	var fn string
	afterCalls := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "desc: Trigger: "):
			d.trigger = strings.TrimPrefix(line, "desc: Trigger: ")
		case strings.HasPrefix(line, "totals: "):
			n, err := strconv.ParseUint(strings.TrimPrefix(line, "totals: "), 10, 64)
			if err != nil {
				return d, fmt.Errorf("totals: %w", err)
			}
			d.totals = n
		case strings.HasPrefix(line, "fn="):
			fn = strings.TrimPrefix(line, "fn=")
			if m := cgName.FindStringSubmatch(fn); m != nil {
				if m[2] != "" {
					names[m[1]] = m[2]
				}
				fn = names[m[1]]
			}
			// A recursive call's frames deeper than callgrind's
			// --separate-recs are the function named NAME'2.
			if i := strings.LastIndexByte(fn, '\''); i > 0 {
				fn = fn[:i]
			}
		case strings.HasPrefix(line, "cfn="):
			if m := cgName.FindStringSubmatch(strings.TrimPrefix(line, "cfn=")); m != nil && m[2] != "" {
				names[m[1]] = m[2]
			}
		case strings.HasPrefix(line, "calls="):
			afterCalls = true
		case line != "" && strings.ContainsAny(line[:1], "0123456789+-*"):
			if afterCalls {
				afterCalls = false
				continue
			}
			fields := strings.Fields(line)
			if n, err := strconv.ParseUint(fields[len(fields)-1], 10, 64); err == nil && fn != "" {
				d.self[fn] += n
			}
		}
	}
	return d, sc.Err()
}

// goBenchmarks are testdata/go/bench's benchmarks.
var goBenchmarks = []string{"BenchmarkSort", "BenchmarkHash", "BenchmarkFib"}

// perOpLine is a line --bench-out writes for a Go benchmark: its name,
// iterations and instructions per operation.
var perOpLine = regexp.MustCompile(`(?m)^(Benchmark\w+)-1 (\d+) ([\d.]+) instructions/op [\d.]+ blocks/op$`)

// goBenchRun is a run of testdata/go/bench's test binary: its Profile and
// what --bench-out wrote.
type goBenchRun struct {
	prof  *profile.Profile
	bench string
	path  string
}

// runGoBenchmarks runs bin's benchmarks n times each (-test.benchtime=Nx)
// under a fixed clock and a quantum longer than any run, writing
// --bench-out.
func runGoBenchmarks(t *testing.T, bin string, n int) goBenchRun {
	t.Helper()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("bench-%d.txt", n))
	r := runIcount(t, nil, []string{"--fixed-clock", "--quantum", "1000000000", "--bench-out", path},
		bin, "-test.run=^$", "-test.bench=.", "-test.benchtime="+strconv.Itoa(n)+"x")
	if r.status != 0 || r.profile == nil {
		t.Fatalf("benchtime %dx: exit %d\n%s%s", n, r.status, r.stdout, r.stderr)
	}
	if len(r.profile.Warnings) > 0 {
		t.Errorf("benchtime %dx: warnings %q", n, r.profile.Warnings)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return goBenchRun{r.profile, string(text), path}
}

// finalRuns returns each benchmark's parts, checking that there are two:
// the b.N = 1 probe and the run of n iterations.
func finalRuns(t *testing.T, r goBenchRun, n uint64) map[string]profile.Part {
	t.Helper()
	runs := map[string][]profile.Part{}
	for _, pt := range r.prof.Parts {
		runs[pt.Name] = append(runs[pt.Name], pt)
	}
	out := map[string]profile.Part{}
	for _, name := range goBenchmarks {
		rs := runs[name]
		if len(rs) != 2 || rs[0].Iterations != 1 || rs[1].Iterations != n {
			var its []uint64
			for _, pt := range rs {
				its = append(its, pt.Iterations)
			}
			t.Fatalf("%s: runs of %v iterations, want the probe's 1 and %d", name, its, n)
		}
		out[name] = rs[1]
	}
	return out
}

// perOp returns the instructions per operation --bench-out wrote for
// each benchmark, checking its iterations.
func perOp(t *testing.T, r goBenchRun, n int) map[string]*big.Rat {
	t.Helper()
	out := map[string]*big.Rat{}
	for _, m := range perOpLine.FindAllStringSubmatch(r.bench, -1) {
		if m[2] != strconv.Itoa(n) {
			t.Errorf("%s: %s iterations, want %d", m[1], m[2], n)
		}
		v, ok := new(big.Rat).SetString(m[3])
		if !ok {
			t.Fatalf("%s: per op %q", m[1], m[3])
		}
		out[m[1]] = v
	}
	if len(out) != len(goBenchmarks) {
		t.Fatalf("--bench-out wrote %d results per operation, want %d:\n%s", len(out), len(goBenchmarks), r.bench)
	}
	return out
}

// TestGoBenchmarkParts runs testdata/go/bench's three benchmarks from
// their test binary, unchanged, at -test.benchtime=100x, 200x and 300x on
// both arches. Each benchmark's runs are parts: the b.N = 1 probe and the
// run of N iterations. Two runs write the same results. The final run's
// count grows exactly with N: 100 iterations more add the same count,
// 100 × the cost of one. The count per operation --bench-out writes is
// (final − probe) / (N − 1), which leaves out what every run costs once;
// for Hash and Fib, whose runs cost the same outside their loops, it is
// the cost of one iteration exactly at every N. Sort's run allocates its
// buffer and grows its goroutine's stack once, work whose cost depends on
// the allocator's state and on what the stack holds: the probe's and the
// final run's differ by a few hundred instructions (+238 on amd64, −114 on
// arm64), spread over N − 1 operations. benchstat compares two
// runs per benchmark.
func TestGoBenchmarkParts(t *testing.T) {
	t.Parallel()
	benchstat := filepath.Join(repoRoot, ".deps", "bin", "benchstat")
	if _, err := os.Stat(benchstat); err != nil {
		t.Fatalf("%s is missing: run `make deps`", benchstat)
	}
	for _, arch := range goArches {
		t.Run(arch, func(t *testing.T) {
			t.Parallel()
			bin := buildGo(t, arch, "./bench", true)
			a, again := runGoBenchmarks(t, bin, 100), runGoBenchmarks(t, bin, 100)
			if a.bench != again.bench {
				t.Fatalf("two runs wrote different results:\n%s\n%s", a.bench, again.bench)
			}
			ns := []int{100, 200, 300}
			runs := []goBenchRun{a, runGoBenchmarks(t, bin, 200), runGoBenchmarks(t, bin, 300)}
			var finals []map[string]profile.Part
			var ops []map[string]*big.Rat
			for i, r := range runs {
				finals = append(finals, finalRuns(t, r, uint64(ns[i])))
				ops = append(ops, perOp(t, r, ns[i]))
			}
			for _, name := range goBenchmarks {
				c := []uint64{finals[0][name].Totals.Instructions, finals[1][name].Totals.Instructions, finals[2][name].Totals.Instructions}
				d1, d2 := c[1]-c[0], c[2]-c[1]
				if d1 != d2 || d1 == 0 || d1%100 != 0 {
					t.Errorf("%s: the final runs count %v at 100x, 200x, 300x: 100 iterations more add %d, then %d", name, c, d1, d2)
					continue
				}
				one := new(big.Rat).SetInt64(int64(d1 / 100))
				t.Logf("%s %s: %d instructions an iteration; per op at 100x, 200x, 300x: %s, %s, %s", arch, name, d1/100,
					ops[0][name].FloatString(2), ops[1][name].FloatString(2), ops[2][name].FloatString(2))
				for i, n := range ns {
					got := ops[i][name]
					if name != "BenchmarkSort" {
						if got.Cmp(one) != 0 {
							t.Errorf("%s at %dx: %s instructions/op, want %s exactly", name, n, got.FloatString(3), one.FloatString(0))
						}
						continue
					}
					// Sort: the difference of the probe's and the final
					// run's costs outside the loop, under 2,000, over N − 1.
					off := new(big.Rat).Sub(got, one)
					off.Mul(off, new(big.Rat).SetInt64(int64(n-1)))
					if off.Abs(off).Cmp(new(big.Rat).SetInt64(2000)) > 0 {
						t.Errorf("%s at %dx: %s instructions/op, %s an iteration: further than the runs' costs outside the loop explain", name, n, got.FloatString(3), one.FloatString(0))
					}
				}
			}
			out, err := exec.Command(benchstat, runs[0].path, runs[1].path).CombinedOutput()
			if err != nil {
				t.Fatalf("benchstat: %v\n%s", err, out)
			}
			for _, name := range goBenchmarks {
				if !regexp.MustCompile(`(?m)^` + strings.TrimPrefix(name, "Benchmark") + `-1\s+\S+ ± 0%\s+\S+ ± 0%\s+\S+ \(n=1\)$`).Match(out) {
					t.Errorf("benchstat did not compare %s:\n%s", name, out)
				}
			}
			if !strings.Contains(string(out), "instructions/op") {
				t.Errorf("benchstat printed no instructions/op:\n%s", out)
			}
		})
	}
}

// TestSuiteBenchOut runs a suite with --bench-out: one result per entry,
// named by it, with its count, and one per part of an entry whose program
// dumps (testdata/c/dumps.c), named by the entry and the part.
func TestSuiteBenchOut(t *testing.T) {
	t.Parallel()
	crunch, dumps := testProgram(t, "c/crunch-musl"), testProgram(t, "c/dumps-musl")
	dir := t.TempDir()
	write(t, filepath.Join(dir, "suite.toml"), "[[bench]]\nname = \"crunch\"\nbinary = \""+crunch+"\"\n\n[[bench]]\nname = \"dumps\"\nbinary = \""+dumps+"\"\n")
	status, _, stderr := icountIn(t, dir, "run", "--suite", "suite.toml", "--bench-out", "bench.txt")
	if status != 0 {
		t.Fatalf("status %d\n%s", status, stderr)
	}
	text, err := os.ReadFile(filepath.Join(dir, "bench.txt"))
	if err != nil {
		t.Fatal(err)
	}
	c, d := runIcount(t, nil, nil, crunch), runIcount(t, nil, nil, dumps)
	if c.profile == nil || d.profile == nil {
		t.Fatalf("icount failed:\n%s\n%s", c.stderr, d.stderr)
	}
	want := []string{
		fmt.Sprintf("Benchmarkcrunch 1 %d instructions %d blocks", c.profile.Totals.Instructions, c.profile.Totals.Blocks),
		fmt.Sprintf("Benchmarkdumps 1 %d instructions %d blocks", d.profile.Totals.Instructions, d.profile.Totals.Blocks),
	}
	for _, pt := range d.profile.Parts {
		want = append(want, fmt.Sprintf("Benchmarkdumps/part=%s 1 %d instructions %d blocks", pt.Name, pt.Totals.Instructions, pt.Totals.Blocks))
	}
	var got []string
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "Benchmark") {
			got = append(got, line)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("--bench-out of the suite:\n%s\nwant the results\n%s", text, strings.Join(want, "\n"))
	}
}
