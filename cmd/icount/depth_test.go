package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/report"
)

// Tests of the formats at full depth (--lines): pprof's locations per
// instruction with lines and inlined frames, callgrind's call sites and
// instructions.

// depthRun runs the -O2 -g C program (main has sieve and matrix inlined)
// with --lines, writing the JSON, pprof and callgrind files; it returns
// their paths and the Profile.
func depthRun(t *testing.T) (dir string, p *profile.Profile) {
	t.Helper()
	dir = t.TempDir()
	status, _, stderr := icountIn(t, dir, "run", "-q", "--lines", "--json", "prof.json", "--pprof", "prof.pb.gz",
		"--callgrind", "callgrind.out", testProgram(t, "c/crunch-musl-g"))
	if status != 0 {
		t.Fatalf("run: %d %s", status, stderr)
	}
	p, err := profile.Read(filepath.Join(dir, "prof.json"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, p
}

// goPprof runs go tool pprof with args on file and returns its output.
func goPprof(t *testing.T, file string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", append(append([]string{"tool", "pprof"}, args...), file)...)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

var (
	pprofRoutine = regexp.MustCompile(`^ROUTINE =+ (.+) in (.+)$`)
	pprofListRow = regexp.MustCompile(`^\s+(\d+|\.)\s+(\d+|\.)\s+(\d+):`)
	pprofAsmRow  = regexp.MustCompile(`^\s+(\d+|\.)\s+(\d+|\.)\s+([0-9a-f]+):`)
	annotateAsm  = regexp.MustCompile(`^\s+([\d,]+|\.)\s+([0-9a-f]+):  `)
)

// annotateCounts runs icount annotate on every function that ran and
// returns its counts by line of the source file src and by instruction
// address, and the address of each function's last instruction.
func annotateCounts(t *testing.T, prof, src string) (lines map[int]uint64, insns map[uint64]uint64, lasts map[uint64]bool) {
	t.Helper()
	status, out, stderr := icountIn(t, "", "annotate", "--top", "1000", prof)
	if status != 0 {
		t.Fatalf("annotate: %d %s", status, stderr)
	}
	lines, insns, lasts = map[int]uint64{}, map[uint64]uint64{}, map[uint64]bool{}
	section, lineNo := "", 0
	var last uint64
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "-- Source: "):
			section = strings.Fields(strings.TrimPrefix(line, "-- Source: "))[0]
		case disasmHeader.MatchString(line):
			section = "disasm"
			lasts[last] = true
		case section == "disasm" && annotateAsm.MatchString(line):
			m := annotateAsm.FindStringSubmatch(line)
			last, _ = strconv.ParseUint(m[2], 16, 64)
			if m[1] != "." {
				insns[last] = parseCount(m[1])
			}
		case section == src && strings.HasPrefix(line, "-- line "):
			lineNo, _ = strconv.Atoi(strings.Fields(line)[2])
		case section == src && sourceRow.MatchString(line):
			if c := sourceRow.FindStringSubmatch(line)[1]; c != "." {
				lines[lineNo] = parseCount(c)
			}
			lineNo++
		}
	}
	lasts[last] = true
	return lines, insns, lasts
}

// TestPprofFullDepth checks that go tool pprof -list and -disasm of a
// --lines run give every line of the source and every instruction the
// count icount annotate gives it, that code inlined into main is in
// inlined frames, and that -top -noinlines keeps icount's functions.
func TestPprofFullDepth(t *testing.T) {
	t.Parallel()
	dir, p := depthRun(t)
	pb := filepath.Join(dir, "prof.pb.gz")
	var src string
	for _, f := range p.Functions {
		if f.Name == "main" {
			src = f.File
		}
	}
	if !strings.HasSuffix(src, "/testdata/c/crunch.c") {
		t.Fatalf("main in %q", src)
	}
	wantLines, wantInsns, lasts := annotateCounts(t, filepath.Join(dir, "prof.json"), src)
	if len(wantLines) < 30 || len(wantInsns) < 300 {
		t.Fatalf("annotate gave %d lines and %d instructions", len(wantLines), len(wantInsns))
	}

	// -list: the flat column of every routine in the source, by line.
	gotLines := map[int]uint64{}
	inSrc := false
	routines := map[string]bool{}
	for _, line := range strings.Split(goPprof(t, pb, "-list", "."), "\n") {
		if m := pprofRoutine.FindStringSubmatch(line); m != nil {
			inSrc = m[2] == src
			if inSrc {
				routines[m[1]] = true
			}
			continue
		}
		if m := pprofListRow.FindStringSubmatch(line); inSrc && m != nil && m[1] != "." {
			n, _ := strconv.Atoi(m[3])
			gotLines[n] += parseCount(m[1])
		}
	}
	if !routines["sieve"] || !routines["matrix"] || !routines["main"] || !routines["merge_sort"] {
		t.Errorf("routines listed in %s: %v, want main, merge_sort and the inlined sieve and matrix", src, routines)
	}
	compareCounts(t, "pprof -list line", gotLines, wantLines)

	// -disasm: the flat column by address (an address under two names,
	// as __stdio_exit and __stdio_exit_needed, is shown twice). pprof
	// disassembles symbols with a size only: the assembly of crt1 and
	// crti has none; and it leaves out the last instruction of each.
	gotInsns := map[uint64]uint64{}
	for _, line := range strings.Split(goPprof(t, pb, "-disasm", "."), "\n") {
		if m := pprofAsmRow.FindStringSubmatch(line); m != nil && m[1] != "." {
			addr, _ := strconv.ParseUint(m[3], 16, 64)
			gotInsns[addr] = parseCount(m[1])
		}
	}
	sized := func(addr uint64) bool {
		for _, f := range p.Functions {
			if addr >= f.Addr && addr < f.Addr+uint64(f.Size) {
				return true
			}
		}
		return false
	}
	for addr := range wantInsns {
		if _, shown := gotInsns[addr]; !sized(addr) || lasts[addr] && !shown {
			delete(wantInsns, addr)
		}
	}
	compareCounts(t, "pprof -disasm address", gotInsns, wantInsns)

	// Function by function, without inlined frames: icount's self and
	// inclusive costs; with them, sieve and matrix on their own.
	total, fns, _ := pprofTop(t, pb, "-noinlines")
	if total != p.Totals.Instructions {
		t.Errorf("pprof total %d, icount %d", total, p.Totals.Instructions)
	}
	for _, f := range topBySelf(p, 5) {
		name := report.DisplayName(f.Name)
		if got := fns[name]; got.self != f.Self || got.incl != f.Inclusive {
			t.Errorf("%s: pprof -noinlines flat %d cum %d, icount self %d inclusive %d", name, got.self, got.incl, f.Self, f.Inclusive)
		}
	}
	_, fns, _ = pprofTop(t, pb)
	var inlined uint64
	for _, l := range p.Lines {
		if l.Function == "main" && l.Inlined == "sieve" {
			inlined += l.Self
		}
	}
	if got := fns["sieve (inline)"]; inlined == 0 || got.self != inlined {
		t.Errorf("sieve inlined: pprof flat %d, icount's lines %d", got.self, inlined)
	}
	blocks, _, _ := pprofTop(t, pb, "-sample_index=blocks")
	if blocks != p.Totals.Blocks {
		t.Errorf("pprof blocks total %d, icount %d", blocks, p.Totals.Blocks)
	}
}

// compareCounts reports each key whose count differs between got and want.
func compareCounts[K comparable](t *testing.T, what string, got, want map[K]uint64) {
	t.Helper()
	bad := 0
	for k, n := range want {
		if got[k] != n {
			if bad++; bad <= 10 {
				t.Errorf("%s %v: %d, icount annotate %d", what, k, got[k], n)
			}
		}
	}
	for k, n := range got {
		if _, ok := want[k]; !ok && n != 0 {
			if bad++; bad <= 10 {
				t.Errorf("%s %v: %d, icount annotate none", what, k, n)
			}
		}
	}
}

// callgrindCost is a cost line of a callgrind file with instructions:
// address, line, cost.
var callgrindCost = regexp.MustCompile(`^0x([0-9a-f]+) (\d+) (\d+)$`)

// TestCallgrindFullDepth checks a --lines callgrind file: its instructions'
// costs are icount annotate's, callgrind_annotate --auto=yes
// --inclusive=yes shows each call at the line that makes it, and the
// totals, self and inclusive costs are icount's.
func TestCallgrindFullDepth(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("callgrind_annotate"); err != nil {
		t.Fatal("callgrind_annotate is not installed: run `make deps`")
	}
	dir, p := depthRun(t)
	out := filepath.Join(dir, "callgrind.out")
	_, wantInsns, _ := annotateCounts(t, filepath.Join(dir, "prof.json"), "")
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "\npositions: instr line\n") {
		t.Errorf("no `positions: instr line` in the callgrind file")
	}
	// The costs of instructions, not the inclusive costs after calls=.
	gotInsns := map[uint64]uint64{}
	afterCalls := false
	for _, line := range strings.Split(string(text), "\n") {
		if m := callgrindCost.FindStringSubmatch(line); m != nil && !afterCalls {
			addr, _ := strconv.ParseUint(m[1], 16, 64)
			gotInsns[addr] += parseCount(m[3])
		}
		afterCalls = strings.HasPrefix(line, "calls=")
	}
	compareCounts(t, "callgrind instruction", gotInsns, wantInsns)
	total, fns, _ := callgrindAnnotate(t, out, "--threshold=100")
	if total != p.Totals.Instructions {
		t.Errorf("callgrind_annotate total %d, icount %d", total, p.Totals.Instructions)
	}
	for _, f := range topBySelf(p, 5) {
		if name := report.DisplayName(f.Name); fns[name] != f.Self {
			t.Errorf("%s: callgrind_annotate %d, icount self %d", name, fns[name], f.Self)
		}
	}

	// Calls at their lines, in the program whose calls the tests know.
	cg := filepath.Join(t.TempDir(), "callgrind.out")
	r := runIcount(t, nil, []string{"--lines", "--callgrind", cg}, testProgram(t, "c/callgraph-musl-g"))
	if r.profile == nil || r.status != 0 {
		t.Fatalf("status %d\n%s", r.status, r.stderr)
	}
	_, incl, _ := callgrindAnnotate(t, cg, "--threshold=100", "--inclusive=yes")
	for _, name := range []string{"main", "body", "mid", "leaf", "fib", "setup"} {
		f, _ := functionByName(r.profile, name)
		if incl[name] != f.Inclusive {
			t.Errorf("%s: callgrind_annotate inclusive %d, icount %d", name, incl[name], f.Inclusive)
		}
	}
	// Without --lines, lines only: the contexts are not counted.
	plain := filepath.Join(t.TempDir(), "plain.out")
	if r := runIcount(t, nil, []string{"--callgrind", plain}, testProgram(t, "c/callgraph-musl-g")); r.status != 0 {
		t.Fatalf("status %d\n%s", r.status, r.stderr)
	}
	if text, _ := os.ReadFile(plain); !strings.Contains(string(text), "\npositions: line\n") {
		t.Errorf("--callgrind without --lines has instructions")
	}
	ann, err := exec.Command("callgrind_annotate", "--auto=yes", "--inclusive=yes", cg).CombinedOutput()
	if err != nil {
		t.Fatalf("callgrind_annotate: %v\n%s", err, ann)
	}
	shown := strings.Split(string(ann), "\n")
	for call, line := range map[string]string{
		"leaf (2,000x)": "\t\ts += leaf(x + i);",
		"mid (200x)":    "\t\ts += mid(table[i % 64]);",
		"fib (987x)":    "\treturn s + fib(15);",
		"setup (1x)":    "\tunsigned a = setup();",
		"body (1x)":     "\tunsigned b = body();",
		"printf (1x)":   "\tprintf(\"setup %u body %u\\n\", a, b);",
	} {
		at := -1
		for i, l := range shown {
			if strings.HasSuffix(l, ":"+call) && strings.Contains(l, "=> ") {
				at = i
			}
		}
		if at < 1 || !strings.HasSuffix(shown[at-1], line) {
			t.Errorf("callgrind_annotate shows the call %s after %q, want after the line %q", call, shown[max(at-1, 0)], line)
		}
	}
}
