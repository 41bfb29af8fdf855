package main

// libm end to end (issue 13): testdata/libm/libm.c calls about 60 libm
// functions in double, float and long double over a grid of edge-case
// inputs and prints every result with %a; each build's output under icount
// must equal its output on the outside judge (native execution on amd64,
// qemu-aarch64 -cpu cortex-a72 on arm64) line for line, except for the
// differences listed, with their reasons, in libmKnown.

import (
	"debug/elf"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// libmKnown is the one table of the differences the libm suite knows of.
// A line of the judge's output that differs under icount must match the
// Line pattern of an entry whose Prog pattern matches the build's table
// name (amd64/libm-glibc, amd64/libm-dynamic, amd64/libm-musl,
// arm64/libm-glibc, arm64/libm-dynamic); the first such entry claims it.
// Every entry must claim at least one line of every build its Prog names, so
// an entry that a fix makes stale fails the test until it is removed or
// narrowed. The broad entries of today's known bugs come last, so that
// after their fix they claim nothing and must go.
var libmKnown = []struct {
	Prog, Line, Reason string
}{
	{`^amd64/libm-musl$`, `^fe `,
		"the emulated CPU never sets the denormal-operand flag (DE), which musl's FE_ALL_EXCEPT includes (glibc's does not) (issue 13 group 6)"},
}

// libmTunables masks the host CPU's features beyond the emulated CPU's
// (Unicorn's qemu64 offers SSE3 at most, no FMA or AVX) from glibc on
// both sides, so that glibc's IFUNCs choose the same libm variants natively
// as under icount: natively glibc would pick its FMA and SSE4.1 variants,
// which round a few results differently (pow(DBL_MAX, 0.5), fma) without
// any fault of the emulation.
const libmTunables = "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX,-AVX2,-FMA,-FMA4,-SSSE3,-SSE4_1,-SSE4_2,-POPCNT,-F16C,-AVX512F,-BMI1,-BMI2,-LZCNT,-MOVBE,-ERMS,-XSAVE,-XSAVEC,-AVX_VNNI"

// libmBuild is one build of testdata/libm/libm.c, under testdata/build/libm;
// amd64 builds are named amd64/... in the table. Its judge is runJudge's.
type libmBuild struct{ name string }

var libmBuilds = []libmBuild{{"libm-glibc"}, {"libm-dynamic"}, {"libm-musl"}, {"arm64/libm-glibc"}, {"arm64/libm-dynamic"}}

// tableName is the build's name in libmKnown: arch/name.
func (b libmBuild) tableName() string {
	if strings.HasPrefix(b.name, "arm64/") {
		return b.name
	}
	return "amd64/" + b.name
}

// TestLibm runs every build of the libm program under icount and under its
// judge and compares their outputs line by line against libmKnown.
func TestLibm(t *testing.T) {
	t.Parallel()
	type entry struct {
		prog, line *regexp.Regexp
		reason     string
	}
	known := make([]entry, len(libmKnown))
	for i, k := range libmKnown {
		known[i] = entry{regexp.MustCompile(k.Prog), regexp.MustCompile(k.Line), k.Reason}
	}
	for _, b := range libmBuilds {
		b := b
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			prog := testProgram(t, filepath.Join("libm", b.name))
			if strings.HasSuffix(b.name, "-dynamic") {
				libmLazy(t, prog)
			}
			want, status := runJudge(t, []string{libmTunables}, prog)
			if status != 0 {
				t.Fatalf("the judge: exit status %d", status)
			}
			r := runIcountWith(t, func(cmd *exec.Cmd) { cmd.Env = []string{} }, []string{"-q", "--env", libmTunables}, prog)
			if r.status != 0 {
				t.Fatalf("icount: exit status %d, stderr:\n%s", r.status, r.stderr)
			}
			wl, gl := strings.Split(want, "\n"), strings.Split(r.stdout, "\n")
			if len(wl) != len(gl) {
				t.Fatalf("the judge printed %d lines, icount %d", len(wl), len(gl))
			}
			name := b.tableName()
			used := make([]int, len(known))
			var unlisted []string
			nunlisted := 0
			for i := range wl {
				if wl[i] == gl[i] {
					continue
				}
				listed := false
				for k, e := range known {
					if e.prog.MatchString(name) && e.line.MatchString(wl[i]) {
						used[k]++
						listed = true
						break
					}
				}
				if !listed {
					nunlisted++
					if len(unlisted) < 40 {
						unlisted = append(unlisted, fmt.Sprintf("line %d:\n  judge:  %s\n  icount: %s", i+1, wl[i], gl[i]))
					}
				}
			}
			t.Logf("%s: %d lines compared", name, strings.Count(want, "\n"))
			if nunlisted > 0 {
				t.Errorf("%d lines differ from the judge's and are not in libmKnown; the first:\n%s", nunlisted, strings.Join(unlisted, "\n"))
			}
			for k, e := range known {
				if e.prog.MatchString(name) {
					if used[k] == 0 {
						t.Errorf("libmKnown entry %q %q (%s) matches no difference of %s: remove it or narrow its Prog", libmKnown[k].Prog, libmKnown[k].Line, e.reason, name)
					} else {
						t.Logf("%d lines differ as known: %s", used[k], e.reason)
					}
				}
			}
		})
	}
}

// libmJudge runs build b (at prog) outside icount, with only libmTunables
// libmLazy fails the test unless the dynamic build at prog binds lazily:
// no DT_BIND_NOW, DF_BIND_NOW or DF_1_NOW, so each libm function is
// resolved through ld.so's trampoline at its first call.
func libmLazy(t *testing.T, prog string) {
	t.Helper()
	f, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	now := func(tag elf.DynTag, bit uint64) bool {
		vs, err := f.DynValue(tag)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			if v&bit != 0 {
				return true
			}
		}
		return false
	}
	bindNow, err := f.DynValue(elf.DT_BIND_NOW)
	if err != nil {
		t.Fatal(err)
	}
	if len(bindNow) > 0 || now(elf.DT_FLAGS, uint64(elf.DF_BIND_NOW)) || now(elf.DT_FLAGS_1, uint64(elf.DF_1_NOW)) {
		t.Fatalf("%s binds at load time; the libm suite needs lazy binding (do not link it with -z now)", prog)
	}
}
