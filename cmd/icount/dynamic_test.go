package main

// Dynamically linked executables: real Debian programs against their
// native runs, a C++ program's attribution by library, arm64 programs from
// the cross sysroot, PIE and non-PIE builds, code replaced under a running
// program, and the messages for a missing interpreter or library.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/report"
)

// hostProgram returns the path of a program of the host's, skipping the
// test if it is missing or statically linked.
func hostProgram(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed", name)
	}
	return p
}

// dynamicInputs writes the files the Debian programs read into dir: text,
// numbers, a directory tree, and gzip and tar files made natively from
// them.
func dynamicInputs(t *testing.T, dir string) {
	t.Helper()
	var words, nums bytes.Buffer
	x := uint32(2463534242)
	next := func() uint32 { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return x }
	vocab := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"}
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&words, "%s %s %d\n", vocab[next()%10], vocab[next()%7], next()%100)
		fmt.Fprintf(&nums, "%d\n", next()%100000)
	}
	for name, data := range map[string][]byte{"words.txt": words.Bytes(), "nums.txt": nums.Bytes(),
		"tree/a.txt": []byte("a\n"), "tree/sub/b.txt": words.Bytes()[:500], "tree/sub/deeper/c.txt": []byte("c\n")} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range [][]string{{"sh", "-c", "gzip -c words.txt > words.gz"}, {"tar", "-cf", "tree.tar", "tree"}} {
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, out)
		}
	}
}

// TestDebianPrograms runs dynamically linked programs of the host's Debian
// under icount: stdout and exit status equal their native run's, and a
// second run counts the same.
func TestDebianPrograms(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dynamicInputs(t, dir)
	// The guest runs as uid and gid 1000, the host user mapped onto them:
	// what shows file owners' numbers is judged by a native run as 1000 in
	// a copy of dir that 1000 owns (possible as root, and as 1000 itself).
	// Their names are the host user's, as natively (/etc/passwd maps the
	// ids: TestIdentityNames), and tar stores none here.
	guestDir, asGuest := guestIdentity(t, dir)
	cases := []struct {
		name  string
		args  []string
		stdin string // a file in dir
		owner bool   // its output shows file owners
	}{
		{"true", nil, "", false},
		{"false", nil, "", false},
		{"echo", []string{"hello,", "dynamic", "world"}, "", false},
		{"cat", []string{"words.txt"}, "", false},
		{"sort", []string{"-n", "nums.txt"}, "", false},
		{"sort", []string{"-k2,2", "-k1,1", "-s", "words.txt"}, "", false},
		{"uniq", []string{"-c"}, "nums.txt", false},
		{"wc", []string{"words.txt", "nums.txt"}, "", false},
		{"sha256sum", []string{"words.txt"}, "", false},
		{"md5sum", []string{"nums.txt"}, "", false},
		{"base64", []string{"words.gz"}, "", false},
		{"od", []string{"-A", "x", "-t", "x1z", "tree/a.txt", "words.gz"}, "", false},
		{"gzip", []string{"-c", "-9", "words.txt"}, "", false},
		{"gzip", []string{"-d", "-c"}, "words.gz", false},
		{"tar", []string{"--numeric-owner", "-cf", "-", "tree"}, "", true},
		{"tar", []string{"-tvf", "-"}, "tree.tar", false},
		{"expr", []string{"6", "*", "7"}, "", false},
		{"expr", []string{"length", "dynamic"}, "", false},
		{"seq", []string{"-w", "1", "7", "100"}, "", false},
		{"date", []string{"-u", "-d", "@0"}, "", false},
		{"awk", []string{"{ n[$1] += $3 } END { for (k in n) s = s k \"=\" n[k] \" \"; print length(s), NR }", "words.txt"}, "", false},
		{"sed", []string{"-n", "-e", "s/alpha \\([a-z]*\\)/A-\\1/p", "words.txt"}, "", false},
		{"ls", []string{"-lnR", "--time-style=+", "tree"}, "", true},
		{"grep", []string{"-c", "gamma", "words.txt"}, "", false},
		{"cmp", []string{"words.txt", "nums.txt"}, "", false},
	}
	for _, c := range cases {
		c := c
		t.Run(c.name+" "+strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			prog := hostProgram(t, c.name)
			var stdin []byte
			if c.stdin != "" {
				var err error
				if stdin, err = os.ReadFile(filepath.Join(dir, c.stdin)); err != nil {
					t.Fatal(err)
				}
			}
			var wantOut string
			var wantStatus int
			if c.owner {
				if asGuest == nil {
					t.Skip("its output shows file owners: the native judge runs as uid 1000, which needs root (or uid 1000)")
				}
				wantOut, wantStatus = runNativeWith(t, guestDir, stdin, asGuest, prog, c.args...)
			} else {
				wantOut, wantStatus = runNative(t, dir, stdin, prog, c.args...)
			}
			run := func() result {
				return runIcountWith(t, func(cmd *exec.Cmd) { cmd.Dir, cmd.Env, cmd.Stdin = dir, []string{}, bytes.NewReader(stdin) },
					[]string{"-q", "--fixed-clock"}, prog, c.args...)
			}
			a, b := run(), run()
			if a.stdout != wantOut || a.status != wantStatus {
				t.Fatalf("status %d (native %d), stdout %d bytes (native %d), equal %v; stderr:\n%s",
					a.status, wantStatus, len(a.stdout), len(wantOut), a.stdout == wantOut, a.stderr)
			}
			if d := sameRun(a, b); d != "" {
				t.Errorf("two runs differ: %s", d)
			}
			if a.profile.Meta.Interpreter == nil || len(report.Objects(a.profile)) < 3 {
				t.Errorf("interpreter %+v, objects %+v: want the program, ld.so and libc", a.profile.Meta.Interpreter, report.Objects(a.profile))
			}
		})
	}
}

// TestDateIgnoresHostClock checks that date reads only the fixed clock:
// `date -u` prints the clock's start, and -d @0 the epoch.
func TestDateIgnoresHostClock(t *testing.T) {
	t.Parallel()
	date := hostProgram(t, "date")
	// Every read of the time takes the next value (ld.so reads the time
	// stamp counter too), so date prints start + k seconds for its read k.
	for _, start := range []string{"2001-02-03T04:05:06Z", "2024-12-31T23:59:00Z"} {
		r := runIcount(t, nil, []string{"-q", "--clock-start", start}, date, "-u", "+%FT%TZ")
		t0, _ := time.Parse(time.RFC3339, start)
		got, err := time.Parse(time.RFC3339, strings.TrimSpace(r.stdout))
		reads := int64(r.profile.Meta.ClockUse.Reads)
		if d := got.Sub(t0); err != nil || d < 0 || d%time.Second != 0 || int64(d/time.Second) >= reads {
			t.Errorf("date -u under --clock-start %s printed %q after %d clock reads; stderr %s", start, r.stdout, reads, r.stderr)
		}
	}
	r := runIcount(t, nil, []string{"-q", "--fixed-clock"}, date, "-u", "-d", "@0")
	if r.stdout != "Thu Jan  1 00:00:00 UTC 1970\n" || r.profile.Meta.Clock.Mode != "fixed" {
		t.Errorf("date -u -d @0 printed %q, clock %+v", r.stdout, r.profile.Meta.Clock)
	}
}

// checkObjects checks that the instructions of the objects sum to the
// total and returns them by module. Without the call tree (--count-only),
// the functions of each module sum to its objects' instructions; with it,
// the call tree is checked, and code no symbol or unwind entry names is
// charged to the function running it, which may lie in another module.
func checkObjects(t *testing.T, p *profile.Profile) map[string]uint64 {
	t.Helper()
	byModule := map[string]uint64{}
	var sum uint64
	for _, o := range report.Objects(p) {
		byModule[o.Module] += o.Instructions
		sum += o.Instructions
	}
	if sum != p.Totals.Instructions {
		t.Errorf("objects sum to %d, total %d", sum, p.Totals.Instructions)
	}
	if len(p.CallTree) > 0 {
		checkTree(t, p)
		return byModule
	}
	fromFuncs := map[string]uint64{}
	for _, f := range p.Functions {
		fromFuncs[f.Module] += f.Self
	}
	for m, n := range byModule {
		if fromFuncs[m] != n {
			t.Errorf("module %s: %d instructions in its mappings, %d in its functions", m, n, fromFuncs[m])
		}
	}
	return byModule
}

// TestDynamicCXX runs a C++ program linked with libstdc++: same output as
// natively, and instructions attributed to the program, libstdc++, libc
// and ld.so, summing exactly to the total.
func TestDynamicCXX(t *testing.T) {
	t.Parallel()
	prog := testProgram(t, "dynamic/wordfreq")
	want, status := runNative(t, t.TempDir(), nil, prog)
	r := runIcount(t, nil, []string{"--fixed-clock"}, prog)
	if r.stdout != want || r.status != status || r.profile == nil {
		t.Fatalf("stdout %q, status %d; native %q, %d\n%s", r.stdout, r.status, want, status, r.stderr)
	}
	byModule := checkObjects(t, r.profile)
	for _, m := range []string{"wordfreq", "libstdc++.so.6", "libc.so.6", "ld-linux-x86-64.so.2"} {
		if byModule[m] == 0 {
			t.Errorf("no instructions attributed to %s: %v", m, byModule)
		}
		if !strings.Contains(r.stderr, "icount: ") || !strings.Contains(r.stderr, "  "+m+" (") {
			t.Errorf("the summary does not list %s:\n%s", m, r.stderr)
		}
	}
	// Functions are named in every module: symbols, PLT stubs, and the
	// unwind tables of stripped libraries.
	names := map[string]bool{}
	for _, f := range r.profile.Functions {
		names[f.Module+" "+f.Name] = true
	}
	for _, want := range []string{"wordfreq main", "libc.so.6 __libc_start_main", "libc.so.6 malloc",
		"wordfreq _ZNSolsEi@plt", "libstdc++.so.6 _ZNSolsEi"} {
		if !names[want] {
			t.Errorf("no function %q", want)
		}
	}
	for _, m := range r.profile.Mappings {
		if m.File != "" && (m.SHA256 == "" || m.Size == 0 || m.BuildID == "") {
			t.Errorf("mapping of %s lacks its identity: %+v", m.File, m)
		}
	}
	// The sizes and digests are the files' own: the program's, the
	// interpreter's and every mapped file's.
	ids := []profile.Binary{r.profile.Meta.Binary}
	if in := r.profile.Meta.Interpreter; in != nil {
		ids = append(ids, *in)
	} else {
		t.Error("no interpreter in the Profile")
	}
	for _, m := range r.profile.Mappings {
		if m.File != "" {
			ids = append(ids, profile.Binary{Path: m.File, Size: m.Size, SHA256: m.SHA256})
		}
	}
	for _, id := range ids {
		data, err := os.ReadFile(id.Path)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(data); id.SHA256 != hex.EncodeToString(sum[:]) || id.Size != int64(len(data)) {
			t.Errorf("%s: size %d, SHA-256 %s; the file's are %d, %x", id.Path, id.Size, id.SHA256, len(data), sum)
		}
	}
	// Without the call tree, every module's functions hold exactly its
	// instructions.
	c := runIcount(t, nil, []string{"-q", "--fixed-clock", "--count-only"}, prog)
	if c.profile == nil || c.profile.Totals != r.profile.Totals {
		t.Fatalf("--count-only: totals differ")
	}
	checkObjects(t, c.profile)
}

// TestDynamicARM64 runs arm64 builds of the C programs, linked against
// Debian's cross libraries, under the default sysroot: each prints what
// its amd64 build prints natively.
func TestDynamicARM64(t *testing.T) {
	t.Parallel()
	for _, p := range cPrograms {
		for _, variant := range []string{p.name, p.name + "-nopie"} {
			t.Run(variant, func(t *testing.T) {
				t.Parallel()
				r := matchNative(t, p, testProgram(t, "dynamic/"+p.name), testProgram(t, "dynamic/arm64/"+variant))
				m := r.profile.Meta
				if m.Arch != "aarch64" || m.Sysroot != "/usr/aarch64-linux-gnu" || m.Interpreter == nil ||
					m.Interpreter.Path != "/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1" {
					t.Errorf("arch %s, sysroot %q, interpreter %+v", m.Arch, m.Sysroot, m.Interpreter)
				}
				checkObjects(t, r.profile)
			})
		}
	}
}

// TestPIEAndNonPIE runs PIE and non-PIE builds of the same programs: the
// same output, each deterministic, loaded at the fixed bases the Profile
// records.
func TestPIEAndNonPIE(t *testing.T) {
	t.Parallel()
	bases := map[string]struct{ exe, interp uint64 }{
		"dynamic/crunch":             {0x555555554000, 0x7ffff8000000},
		"dynamic/crunch-nopie":       {0, 0x7ffff8000000},
		"dynamic/arm64/crunch":       {0xaaaaaaaa0000, 0xfffff8000000},
		"dynamic/arm64/crunch-nopie": {0, 0xfffff8000000},
	}
	var outs []string
	for _, prog := range []string{"dynamic/crunch", "dynamic/crunch-nopie", "dynamic/arm64/crunch", "dynamic/arm64/crunch-nopie"} {
		a := runIcount(t, nil, []string{"-q"}, testProgram(t, prog))
		b := runIcount(t, nil, []string{"-q"}, testProgram(t, prog))
		if d := sameRun(a, b); d != "" || a.status != 0 {
			t.Fatalf("%s: status %d, two runs differ: %s\n%s", prog, a.status, d, a.stderr)
		}
		m, want := a.profile.Meta, bases[prog]
		if m.Binary.Base != want.exe || m.Interpreter == nil || m.Interpreter.Base != want.interp {
			t.Errorf("%s: base %#x, interpreter %+v; want %#x and %#x", prog, m.Binary.Base, m.Interpreter, want.exe, want.interp)
		}
		outs = append(outs, a.stdout)
	}
	for i := range outs {
		if outs[i] != outs[0] {
			t.Errorf("output %d differs from the PIE build's", i)
		}
	}
}

// TestOrigin runs a program whose library is found through RUNPATH
// $ORIGIN/lib, from another directory: ld.so resolves $ORIGIN from
// /proc/self/exe, which the guest sees as /icount/exe/NAME.
func TestOrigin(t *testing.T) {
	t.Parallel()
	r := runIcountIn(t, t.TempDir(), nil, []string{"-q"}, testProgram(t, "dynamic/origin"))
	if r.stdout != "hello from libgreet, origin\n" || r.status != 0 {
		t.Fatalf("stdout %q, status %d\n%s", r.stdout, r.status, r.stderr)
	}
	lib := filepath.Join(buildDir, "dynamic", "lib", "libgreet.so")
	found := false
	for _, m := range r.profile.Mappings {
		found = found || m.File == lib
	}
	if !found {
		t.Errorf("libgreet.so is not among the mappings: %+v", r.profile.Mappings)
	}
}

// TestInterpreterPrefix runs Python as /icount/exe/python3 (what
// /proc/self/exe reads as): it finds its prefix by walking up from its
// executable's directory by name, to /icount, the binary's directory's
// parent; realpath of its executable follows Debian's python3 link to
// python3.11 beside it, as natively, without an error.
func TestInterpreterPrefix(t *testing.T) {
	t.Parallel()
	real, err := filepath.EvalSymlinks("/usr/bin/python3")
	if err != nil {
		t.Fatal(err)
	}
	r := runIcount(t, nil, []string{"-q", "--argv0", "/icount/exe/python3"}, "/usr/bin/python3", "-c",
		"import json, os, sys; print(sys.executable, sys.prefix, json.__file__, os.path.realpath(sys.executable), os.readlink('/proc/self/exe'))")
	want := "/icount/exe/python3 /icount /icount/lib/python3.11/json/__init__.py /icount/exe/" + filepath.Base(real) + " /icount/exe/python3\n"
	if r.stdout != want || r.stderr != "" || r.status != 0 {
		t.Fatalf("stdout %q, status %d, stderr:\n%s\nwant %q", r.stdout, r.status, r.stderr, want)
	}
}

// TestCodeReplaced runs hand-written code that maps flat code from a file,
// runs it, and replaces it under the same address (munmap and mmap of
// another file; mprotect and pread), counting exactly as its header works
// out. With CODE3, new code has the old block's address and size but more
// instructions: the emulator forgets a block whose code changes, so the
// new code is a new block, decoded and counted as what it is.
func TestCodeReplaced(t *testing.T) {
	t.Parallel()
	src := filepath.Join(repoRoot, "testdata", "dynamic", "remap.S")
	want := readExpectation(t, src)
	prog := testProgram(t, "dynamic/remap")
	code := func(n int) string { return testProgram(t, fmt.Sprintf("dynamic/code%d.bin", n)) }
	r := runIcount(t, nil, nil, prog, code(1), code(2))
	if r.profile == nil || r.profile.Totals.Instructions != want.instructions || r.profile.Totals.Blocks != want.blocks || r.status != want.exit {
		t.Fatalf("status %d, totals %+v; want %+v\n%s", r.status, r.profile.Totals, want, r.stderr)
	}
	if len(r.profile.Warnings) != 0 {
		t.Errorf("warnings: %q", r.profile.Warnings)
	}
	// Code counts in the mapping it runs from: code1 first in code1.bin's
	// (2), then code2 (33) and, read over it, code1 again (2) in code2.bin's.
	byModule := map[string]uint64{}
	for _, o := range report.Objects(r.profile) {
		byModule[o.Module] += o.Instructions
	}
	if byModule["code1.bin"] != 2 || byModule["code2.bin"] != 35 || byModule["remap"] != want.instructions-37 {
		t.Errorf("by module %v: want code1.bin 2, code2.bin 33 + 2", byModule)
	}

	b, _ := os.ReadFile(src)
	var with expectation
	m := regexp.MustCompile(`(?m)^# icount-with-code3: instructions=(\d+) blocks=(\d+) exit=(\d+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s has no icount-with-code3 line", src)
	}
	fmt.Sscan(string(m[1])+" "+string(m[2])+" "+string(m[3]), &with.instructions, &with.blocks, &with.exit)
	r = runIcount(t, nil, nil, prog, code(1), code(2), code(3))
	got := r.profile.Totals
	if r.status != with.exit || got.Blocks != with.blocks || got.Instructions != with.instructions || len(r.profile.Warnings) != 0 {
		t.Fatalf("with code3: status %d, totals %+v, warnings %q; want %+v\n%s", r.status, got, r.profile.Warnings, with, r.stderr)
	}
}

// TestMissingInterpreter checks the one-line error for an executable whose
// interpreter does not exist: on amd64 a PT_INTERP pointing nowhere, on
// arm64 a sysroot without it.
func TestMissingInterpreter(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(testProgram(t, "dynamic/crunch"))
	if err != nil {
		t.Fatal(err)
	}
	const real, missing = "/lib64/ld-linux-x86-64.so.2", "/lib64/ld-missing-x86-64.so"
	i := bytes.Index(data, []byte(real+"\x00"))
	if i < 0 {
		t.Fatalf("no %s in the binary", real)
	}
	copy(data[i:], missing+"\x00")
	exe := filepath.Join(t.TempDir(), "crunch")
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		prog  string
		flags []string
		msg   string
	}{
		{exe, nil, exe + ": its interpreter " + missing + " was not found: no such file " + missing},
		{testProgram(t, "dynamic/arm64/crunch"), []string{"--sysroot", "/nonexistent"},
			": its interpreter /lib/ld-linux-aarch64.so.1 was not found: no such file /nonexistent/lib/ld-linux-aarch64.so.1 (under the sysroot /nonexistent)"},
	}
	for _, c := range cases {
		r := runIcount(t, nil, c.flags, c.prog)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.status != exitNotFound || len(lines) != 1 || !strings.HasPrefix(lines[0], "icount: ") || !strings.Contains(lines[0], c.msg) || r.profile != nil {
			t.Errorf("status %d, stderr %q; want %d and one line with %q", r.status, r.stderr, exitNotFound, c.msg)
		}
	}
}

// TestMissingLibrary runs a program whose library is missing: ld.so's own
// message reaches stderr unchanged, and icount exits with its status, as
// natively.
func TestMissingLibrary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile(testProgram(t, "dynamic/origin"))
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "origin")
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	native := exec.Command(exe)
	native.Args[0] = "origin" // as icount gives argv[0]
	var wantErr bytes.Buffer
	native.Stderr = &wantErr
	err = native.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || !strings.Contains(wantErr.String(), "libgreet.so: cannot open shared object file") {
		t.Fatalf("native run: %v, stderr %q", err, wantErr.String())
	}
	r := runIcount(t, nil, []string{"-q"}, exe)
	if r.status != ee.ExitCode() || r.stderr != wantErr.String() || r.stdout != "" {
		t.Errorf("status %d, stderr %q; native %d, %q", r.status, r.stderr, ee.ExitCode(), wantErr.String())
	}
	if r.profile == nil || !r.profile.Exit.Complete || r.profile.Exit.Status != 127 {
		t.Errorf("profile exit %+v", r.profile.Exit)
	}
}

// TestAnnotateLibraries disassembles the hottest functions of a
// dynamically linked run in whichever module they lie (the program,
// libstdc++, libc, ld.so), each from its own file: every function's
// instructions sum to its self cost.
func TestAnnotateLibraries(t *testing.T) {
	t.Parallel()
	prof := filepath.Join(t.TempDir(), "prof.json")
	if status, _, stderr := icountIn(t, "", "run", "-q", "--count-only", "--lines", "--json", prof, testProgram(t, "dynamic/wordfreq")); status != 0 {
		t.Fatalf("run: %d %s", status, stderr)
	}
	p, err := profile.Read(prof)
	if err != nil {
		t.Fatal(err)
	}
	self := map[string]uint64{}
	for _, f := range p.Functions {
		self[report.DisplayName(f.Name)+" "+f.Module] = f.Self
	}
	status, out, stderr := icountIn(t, "", "annotate", "--top", "12", prof)
	if status != 0 {
		t.Fatalf("annotate: %d %s", status, stderr)
	}
	modules := map[string]bool{}
	var fn string
	var sum uint64
	check := func() {
		if fn != "" && sum != self[fn] {
			t.Errorf("disassembly of %s: instructions sum to %d, self %d", fn, sum, self[fn])
		}
	}
	for _, line := range strings.Split(out, "\n") {
		switch {
		case disasmHeader.MatchString(line):
			check()
			m := disasmHeader.FindStringSubmatch(line)
			fn, sum = m[1]+" "+m[2], 0
			modules[m[2]] = true
		case fn != "" && disasmRow.MatchString(line):
			if c := disasmRow.FindStringSubmatch(line)[1]; c != "." {
				sum += parseCount(c)
			}
		}
	}
	check()
	for _, m := range []string{"wordfreq", "libc.so.6", "libstdc++.so.6", "ld-linux-x86-64.so.2"} {
		if !modules[m] {
			t.Errorf("no function of %s disassembled:\n%s", m, out)
		}
	}
}

// TestProcSelf reads the guest's own /proc/self files: its memory map (as
// libsigsegv in grep does, to find its stack), its command line and its
// environment come from the guest, the same on every run, not from icount.
func TestProcSelf(t *testing.T) {
	t.Parallel()
	cat := hostProgram(t, "cat")
	a := runIcount(t, nil, []string{"-q", "--env", "K=V"}, cat, "/proc/self/maps")
	b := runIcount(t, nil, []string{"-q", "--env", "K=V"}, cat, "/proc/self/maps")
	if a.stdout != b.stdout || a.profile.Totals != b.profile.Totals {
		t.Errorf("two runs differ:\n%s\n%s", a.stdout, b.stdout)
	}
	for _, want := range []string{
		"555555554000-555555556000 r--p 00000000 00:00 0                          /icount/exe/cat\n",
		"7ffff8000000-7ffff8001000 r--p 00000000 00:00 0                          /lib64/ld-linux-x86-64.so.2\n",
		" r-xp ", "/libc.so.6\n", "[heap]\n", "7fffff7ff000-7ffffffff000 rw-p 00000000 00:00 0                          [stack]\n",
	} {
		if !strings.Contains(a.stdout, want) {
			t.Errorf("/proc/self/maps lacks %q:\n%s", want, a.stdout)
		}
	}
	r := runIcount(t, nil, []string{"-q", "--env", "K=V"}, cat, "/proc/self/cmdline", "/proc/self/environ")
	if want := "cat\x00/proc/self/cmdline\x00/proc/self/environ\x00K=V\x00"; r.stdout != want {
		t.Errorf("cmdline and environ %q, want %q", r.stdout, want)
	}
}

// openWayTo lets every user through dir and its parents up to the
// temporary directory (not that itself, whose mode is the machine's), as
// t.TempDir makes them for its owner alone.
func openWayTo(t *testing.T, dir string) {
	t.Helper()
	top := filepath.Clean(os.TempDir())
	for d := dir; strings.HasPrefix(d, top+"/"); d = filepath.Dir(d) {
		info, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, info.Mode().Perm()|0o055); err != nil {
			t.Fatal(err)
		}
	}
}

// guestIdentity makes a copy of dir, times kept, for native runs as the
// guest's identity (uid and gid 1000), and returns it and the credential
// to run them with: as root the copy is given to 1000 (and its parents
// opened to others); as 1000 it is 1000's already. Nil for another user,
// who cannot.
func guestIdentity(t *testing.T, dir string) (string, *syscall.Credential) {
	t.Helper()
	uid := os.Geteuid()
	if uid != 0 && uid != 1000 {
		return "", nil
	}
	copyDir := filepath.Join(t.TempDir(), filepath.Base(dir))
	if out, err := exec.Command("cp", "-a", dir, copyDir).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v\n%s", err, out)
	}
	if uid == 1000 {
		return copyDir, &syscall.Credential{Uid: 1000, Gid: uint32(os.Getegid())}
	}
	openWayTo(t, filepath.Dir(copyDir))
	if out, err := exec.Command("chown", "-hR", "1000:1000", copyDir).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v\n%s", err, out)
	}
	return copyDir, &syscall.Credential{Uid: 1000, Gid: 1000}
}
