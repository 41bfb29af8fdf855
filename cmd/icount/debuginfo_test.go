package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	pprofile "github.com/google/pprof/profile"

	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/symbolize"
)

// hostLibc is the x86-64 glibc dynamic programs load here.
const hostLibc = "/lib/x86_64-linux-gnu/libc.so.6"

// needLibcDebugFile fails the test unless the host's libc has its debug
// file (libc6-dbg).
func needLibcDebugFile(t *testing.T) {
	t.Helper()
	if symbolize.NewCache(symbolize.SystemDebugDirs(""), false).Open(hostLibc).DebugFile() == "" {
		t.Fatalf("%s has no debug file under /usr/lib/debug: install libc6-dbg (make deps)", hostLibc)
	}
}

// functionNamed returns the function of the Profile named name in module.
func functionNamed(p *profile.Profile, module, name string) (profile.FunctionCount, bool) {
	for _, f := range p.Functions {
		if f.Module == module && f.Name == name {
			return f, true
		}
	}
	return profile.FunctionCount{}, false
}

// TestSystemDebugInfo: a dynamically linked program sorting with glibc's
// qsort spends its time in msort_with_tmp.part.0, a local function of
// libc that only libc6-dbg's debug file names; the summary, the Profile,
// the pprof file and the callgrind file name it with its file (msort.c)
// and line, and its lines (--lines) come from msort.c.
func TestSystemDebugInfo(t *testing.T) {
	needLibcDebugFile(t)
	prog := testProgram(t, "c/qsort-dynamic")
	dir := t.TempDir()
	pprofPath, callgrindPath := filepath.Join(dir, "qsort.pb.gz"), filepath.Join(dir, "callgrind.out")
	r := runIcount(t, nil, []string{"--lines", "--pprof", pprofPath, "--callgrind", callgrindPath}, prog)
	if r.status != 0 || r.profile == nil {
		t.Fatalf("status %d\n%s", r.status, r.stderr)
	}
	const msort = "msort_with_tmp.part.0"
	f, ok := functionNamed(r.profile, "libc.so.6", msort)
	if !ok {
		t.Fatalf("no %s in libc.so.6; stderr:\n%s", msort, r.stderr)
	}
	if filepath.Base(f.File) != "msort.c" || f.Line == 0 || f.Self < r.profile.Totals.Instructions/2 {
		t.Errorf("%s: %+v; want msort.c, a line, and over half of the %d instructions", msort, f, r.profile.Totals.Instructions)
	}
	if want := "libc.so.6             " + msort + " (msort.c:" + strconv.Itoa(f.Line) + ")\n"; !strings.Contains(r.stderr, want) {
		t.Errorf("the summary does not name %s with its file and line (%q):\n%s", msort, want, r.stderr)
	}
	var inMsort, fromMsortC uint64
	for _, l := range r.profile.Lines {
		if l.Function == msort {
			inMsort += l.Self
			if filepath.Base(l.File) == "msort.c" {
				fromMsortC += l.Self
			}
		}
	}
	if inMsort != f.Self || fromMsortC == 0 {
		t.Errorf("%s's lines: %d instructions, %d from msort.c; want its self cost %d, lines from msort.c", msort, inMsort, fromMsortC, f.Self)
	}
	for _, w := range r.profile.Warnings {
		if strings.Contains(w, "corrupt") {
			t.Errorf("warning: %s", w)
		}
	}
	checkPprofFunction(t, pprofPath, f)
	checkCallgrindFunction(t, callgrindPath, f)
}

// checkPprofFunction fails the test unless the pprof file at path has the
// function f, with its file and line.
func checkPprofFunction(t *testing.T, path string, f profile.FunctionCount) {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	pp, err := pprofile.Parse(file)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, fn := range pp.Function {
		if fn.Name == f.Name {
			if fn.Filename != f.File || fn.StartLine != int64(f.Line) {
				t.Errorf("pprof: %s in %s line %d; want %s line %d", fn.Name, fn.Filename, fn.StartLine, f.File, f.Line)
			}
			return
		}
	}
	t.Errorf("pprof: no function %s", f.Name)
}

// checkCallgrindFunction fails the test unless the callgrind file at path
// has the function f in its file (fl=), with costs at lines summing to its
// self cost.
func checkCallgrindFunction(t *testing.T, path string, f profile.FunctionCount) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{} // compressed names: "(n) name" defines (n)
	named := func(v string) string {
		id, name, _ := strings.Cut(v, " ")
		if name != "" {
			names[id] = name
		}
		return names[id]
	}
	var file string // the current fl=
	in, callCost := false, false
	var self uint64
	var lines int
	positions := 1 // a cost line's positions before its cost: "line", or "instr line" at full depth
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "positions:"); ok {
			positions = len(strings.Fields(p))
			continue
		}
		key, value, isSpec := strings.Cut(line, "=")
		switch {
		case isSpec && key == "fl":
			file = named(value)
		case isSpec && key == "fn":
			in = named(value) == f.Name
			if in && file != f.File {
				t.Errorf("callgrind: %s in fl=%s, want %s", f.Name, file, f.File)
			}
		case isSpec && key == "calls":
			callCost = true // the next line is the call's inclusive cost
		case in && line != "" && strings.ContainsRune("0123456789+-*", rune(line[0])):
			if callCost {
				callCost = false
				continue
			}
			fields := strings.Fields(line)
			if len(fields) != positions+1 || !sourceLine(fields[positions-1]) {
				t.Errorf("callgrind: %s has the cost line %q", f.Name, line)
				continue
			}
			self += parseCount(fields[positions])
			lines++
		}
	}
	if lines == 0 || self != f.Self {
		t.Errorf("callgrind: %s has %d instructions of its own on %d lines; want %d", f.Name, self, lines, f.Self)
	}
}

// sourceLine says whether a callgrind position is a line: a number above
// 0, or one relative to the last (+n, -n, * for the same).
func sourceLine(pos string) bool {
	if pos == "*" || strings.HasPrefix(pos, "+") || strings.HasPrefix(pos, "-") {
		return true
	}
	n, err := strconv.Atoi(pos)
	return err == nil && n > 0
}

// recursionLevel is the suffix callgrind gives a function's recursive
// calls ('2, '3 ...), separated from its first level by --separate-recs.
var recursionLevel = regexp.MustCompile(`'\d+$`)

// TestLibcMatchesCallgrind compares icount's self counts of the qsort
// program's functions whose code paths do not depend on the CPU with
// callgrind's, which finds its names in the same debug file: glibc's
// merge sort (msort_with_tmp.part.0, in libc), the comparison callback and
// main. They are equal. The string functions they call are not compared:
// glibc picks memcpy by the CPU's features, and valgrind's CPU (AVX2)
// differs from icount's (x86-64-v1 with SSE3), so callgrind counts
// __memcpy_avx_unaligned_erms where icount counts
// __memcpy_sse2_unaligned_erms. callgrind runs with --skip-plt=no: by
// default it charges the instructions of a PLT stub to the function that
// called through it, where icount gives them to the stub (name@plt): one
// instruction more in msort_with_tmp.part.0 for each of its 28,999 calls
// of memcpy through libc's PLT.
func TestLibcMatchesCallgrind(t *testing.T) {
	for _, tool := range []string{"valgrind", "callgrind_annotate"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	needLibcDebugFile(t)
	prog := testProgram(t, "c/qsort-dynamic")
	out := callgrindQsort(t, prog)
	_, fns, _ := callgrindAnnotate(t, out, "--threshold=100")
	cg := map[string]uint64{}
	for name, n := range fns {
		cg[recursionLevel.ReplaceAllString(name, "")] += n
	}
	r := runIcount(t, nil, nil, prog)
	if r.status != 0 || r.profile == nil {
		t.Fatalf("status %d\n%s", r.status, r.stderr)
	}
	for _, c := range []struct{ module, name string }{
		{"libc.so.6", "msort_with_tmp.part.0"},
		{"qsort-dynamic", "cmp_int"},
		{"qsort-dynamic", "main"},
	} {
		f, ok := functionNamed(r.profile, c.module, c.name)
		if !ok {
			t.Errorf("icount has no %s in %s", c.name, c.module)
			continue
		}
		t.Logf("%s: icount %d, callgrind %d", c.name, f.Self, cg[c.name])
		if f.Self != cg[c.name] {
			t.Errorf("%s: icount counts %d instructions of its own, callgrind %d", c.name, f.Self, cg[c.name])
		}
	}
}

// callgrindQsort runs the qsort program (prog) under callgrind, PLT stubs
// apart (--skip-plt=no, as icount names them), and returns its file.
func callgrindQsort(t *testing.T, prog string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "callgrind.out")
	cmd := exec.Command("valgrind", "--tool=callgrind", "--skip-plt=no", "--callgrind-out-file="+out, prog)
	cmd.Env = []string{}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("valgrind: %v\n%s", err, b)
	}
	return out
}
