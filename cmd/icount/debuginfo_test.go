package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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
// libc that only libc6-dbg's debug file names; the summary and the
// Profile name it, with its file and line, and its lines (--lines) come
// from msort.c.
func TestSystemDebugInfo(t *testing.T) {
	needLibcDebugFile(t)
	prog := testProgram(t, "c/qsort-dynamic")
	r := runIcount(t, nil, []string{"--lines"}, prog)
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
	if !strings.Contains(r.stderr, "libc.so.6             "+msort) {
		t.Errorf("the summary does not name %s:\n%s", msort, r.stderr)
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
	out := filepath.Join(t.TempDir(), "callgrind.out")
	cmd := exec.Command("valgrind", "--tool=callgrind", "--skip-plt=no", "--callgrind-out-file="+out, prog)
	cmd.Env = []string{}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("valgrind: %v\n%s", err, b)
	}
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
