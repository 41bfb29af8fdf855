package main

// The differential CPU conformance suite (issue 13): the programs of
// testdata/cpu print the result and flags of every instruction form a
// compiler or libc emits, on edge and pseudo-random inputs, in every
// rounding and precision mode. Each x86-64 program (musl- and
// glibc-static) runs natively and under icount; each arm64 program under
// icount and under qemu-aarch64 -cpu cortex-a72. The outputs must be
// byte-identical, line by line, except for the differences cpuKnown
// lists; an entry that no longer matches any difference fails the test
// too, so that a fix removes its entry.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// cpuDiff is one known difference: lines of program prog (the name of its
// source, testdata/cpu/PROG.c, so every build of it) whose reference text
// (the native or qemu-aarch64 line) matches pattern may differ under
// icount, for reason. A difference that shows only when the native judge
// is one vendor's processor names that vendor (CPUID's vendor string, as
// /proc/cpuinfo's vendor_id gives it) in host; "" is any host.
type cpuDiff struct {
	prog, pattern, reason string
	host                  string
}

// cpuKnown is the one table of the differences the suite accepts, one line
// each. Every entry is a divergence observed between the reference and
// icount; remove an entry when its fix merges.
var cpuKnown = []cpuDiff{
	// x86-64 integer (issue 13 group 5)
	// x87 values
	{"x86_x87", `^(fsincos|fptan) \S+ #\d+ a=`, "the emulated x87 detects no stack underflow: after an out-of-range fptan or fsincos, which pushes nothing, the second fstp pops an empty register and stores its stale contents, not the indefinite (group 6)", ""},
	{"x86_x87", `^fld(32|64) \S+ #\d+ a=`, "fld of a signalling NaN float/double does not quiet it", ""},
	{"x86_x87", `^(fst64|fstp32|fstp64) \S+ #\d+ a=`, "fst/fstp of a signalling NaN to float/double stores the default NaN, not the quieted one", ""},
	// x87 status word
	{"x86_x87", `^(fadd|fadd-m64|fsub|fsubr|fmul|fmul-m32|fdiv|fdivr|fsqrt|frndint|fscale|fxtract|f2xm1|fpatan|fyl2xp1|fcom|fucom|fcomi|fucomi|ftst|fcompp|fucomip|fsubrp|fidiv-m32|fist(16|32)|fistp(16|32|64)|fisttp(16|32|64)|fst64|fstp(32|64)|fld(32|64)|fld1-fldpi-faddp) \S+ #\d+ fsw=`, "the emulated x87 never sets the denormal-operand flag (DE), nor C1 for a result rounded up (group 6)", ""},
	// SSE
	{"x86_sse", `^r(cp|sqrt)(ss|ps) \S+ #\d+ (a|mxcsr)=`, "rcpss/rsqrtss/rcpps/rsqrtps exact instead of the hardware's approximation, raising the flags of an exact division (group 6)", ""},
	{"x86_sse", `^\S+ \S+ #\d+ mxcsr=`, "the emulated CPU never sets MXCSR's denormal-operand flag (DE) (group 6)", ""},
	{"x86_sse", `^(add|sub|mul|div|hadd|hsub|addsub)(ss|sd|ps|pd)(_m)? \S+ #\d+ a=`, "with two NaN operands the source's NaN propagates, not the destination's (group 6)", ""},
	{"x86_sse", `^(min|max)(ss|sd|ps|pd) \S*daz\S* #\d+ a=`, "MXCSR.DAZ is ignored by min/max", ""},
	// AVX: the reference is x86_avx.want
	// FPU state
	{"x86_state", `^fxsave(64)?-fop-fip `, "fxsave leaves FOP (bytes 6-7) unwritten", ""},
	{"x86_state", `^fnstenv-then-fcw `, "fnstenv does not mask every exception in the control word after storing", ""},
	{"x86_state", `^frame-fop-fip `, "the signal frame's x87 last-instruction pointer (FIP) is 0, where Intel processors store it", "GenuineIntel"},
	{"x86_state", `^(fnsave|fnstenv)-fop `, "the emulated x87 keeps no last opcode (FOP): fnsave and fnstenv store 0, where AMD processors store it", "AuthenticAMD"},
	{"x86_state", `^(frame|fxsave|fxsave64)-mxcsr-mask `, "MXCSR_MASK's bit 17 (MM, misaligned SSE mode) is a feature of AMD processors the emulated CPU does not have (CPUID 0x80000001 ECX bit 7 clear)", "AuthenticAMD"},
	// faults
	{"x86_trap", `^movaps-misaligned: `, "a misaligned movaps does not fault (group 6)", ""},
	{"x86_trap", `^(x87|sse)-unmasked-`, "no FP exception is raised: an unmasked x87 or SSE exception does not deliver SIGFPE (group 6)", ""},
	// arm64 system (the integer, FP, NEON and crypto programs match qemu-aarch64)
}

// hostVendor is the vendor of the processor this test runs on, as
// /proc/cpuinfo names it ("" if it does not say).
var hostVendor = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "vendor_id" {
			return strings.TrimSpace(v)
		}
	}
	return ""
})

// cpuOnHost says whether a known difference applies on this host.
func cpuOnHost(d cpuDiff) bool { return d.host == "" || d.host == hostVendor() }

// cpuPrograms are the suite's programs: arch, and for x86-64 whether the
// reference is testdata/cpu/PROG.want instead of the native run (the
// machine has the extensions the emulated CPU must refuse).
var cpuPrograms = []struct {
	name, arch string
	want       bool
}{
	{"x86_int", "x86-64", false},
	{"x86_x87", "x86-64", false},
	{"x86_sse", "x86-64", false},
	{"x86_avx", "x86-64", true},
	{"x86_state", "x86-64", false},
	{"x86_trap", "x86-64", false},
	{"a64_int", "arm64", false},
	{"a64_fp", "arm64", false},
	{"a64_neon", "arm64", false},
	{"a64_state", "arm64", false},
	{"a64_sys", "arm64", false},
}

// cpuLines is a program's output as the suite compares it: its lines and
// a last one giving its exit status.
func cpuLines(out string, status int) []string {
	return append(strings.Split(strings.TrimSuffix(out, "\n"), "\n"), fmt.Sprintf("exit %d", status))
}

// cpuForm names the form (and kind: value or flags) a line is of, for
// grouping differences in a failure's report.
func cpuForm(line string) string {
	f := strings.Fields(line)
	if len(f) == 0 {
		return "(empty)"
	}
	form := strings.TrimSuffix(f[0], ":")
	for _, flag := range []string{" fsw=", " mxcsr=", " fpsr="} {
		if strings.Contains(line, flag) && !strings.Contains(line, " : ") {
			return form + strings.TrimSuffix(flag, "=")
		}
	}
	return form
}

// cpuReference runs a program as its judge does: from its .want file, or
// natively (x86-64) or under qemu-aarch64 (arm64), by runJudge.
func cpuReference(t *testing.T, prog, name string, want bool) (string, int) {
	t.Helper()
	if !want {
		return runJudge(t, nil, prog)
	}
	b, err := os.ReadFile(filepath.Join(repoRoot, "testdata", "cpu", name+".want"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b), 0
}

// cpuGroup is the differences of one form the table does not explain:
// how many lines, and the first (reference and icount's).
type cpuGroup struct {
	n         int
	ref, icnt string
}

// cpuCompare compares icount's lines of program prog with the reference's,
// line by line (a missing line is a difference too). It returns how many
// differing lines the table explains, calling explained with the index of
// every entry that explains one, and the other differences by form.
func cpuCompare(prog string, ref, out []string, known []*regexp.Regexp, explained func(int)) (int, map[string]*cpuGroup) {
	nknown, unexplained := 0, map[string]*cpuGroup{}
	for i := 0; i < len(ref) || i < len(out); i++ {
		r, o := "", "(no line)"
		if i < len(ref) {
			r = ref[i]
		}
		if i < len(out) {
			o = out[i]
		}
		if r == o {
			continue
		}
		subject := r // the pattern names the reference's line
		if i >= len(ref) {
			subject = o
		}
		matched := false
		for k, re := range known {
			if cpuKnown[k].prog == prog && cpuOnHost(cpuKnown[k]) && re.MatchString(subject) {
				explained(k)
				matched = true
			}
		}
		if matched {
			nknown++
			continue
		}
		g := unexplained[cpuForm(subject)]
		if g == nil {
			g = &cpuGroup{ref: r, icnt: o}
			unexplained[cpuForm(subject)] = g
		}
		g.n++
	}
	return nknown, unexplained
}

// cpuReport lists unexplained differences, one form each.
func cpuReport(unexplained map[string]*cpuGroup) string {
	keys := make([]string, 0, len(unexplained))
	for k := range unexplained {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		g := unexplained[k]
		fmt.Fprintf(&b, "  %s: %d lines, e.g.\n    want: %s\n    got:  %s\n", k, g.n, g.ref, g.icnt)
	}
	return b.String()
}

func TestCPUConformance(t *testing.T) {
	t.Parallel()
	known := make([]*regexp.Regexp, len(cpuKnown))
	for i, k := range cpuKnown {
		known[i] = regexp.MustCompile(k.pattern)
	}
	var (
		mu     sync.Mutex
		used   = make([]bool, len(cpuKnown))
		forms  = map[string]map[string]bool{} // arch -> prog/form
		lines  = map[string]int{}             // arch -> lines compared
		diffs  = map[string]int{}             // arch -> known differences
		ran    = map[string]int{}             // prog -> builds compared
		builds = map[string]int{}             // prog -> builds
	)
	t.Run("programs", func(t *testing.T) {
		for _, p := range cpuPrograms {
			libcs := []string{"musl", "glibc"}
			if p.arch == "arm64" {
				libcs = []string{"glibc"}
			}
			builds[p.name] = len(libcs)
			for _, libc := range libcs {
				p, build := p, p.name+"-"+libc
				t.Run(build, func(t *testing.T) {
					t.Parallel()
					prog := testProgram(t, filepath.Join("cpu", build))
					refOut, refStatus := cpuReference(t, prog, p.name, p.want)
					got := runIcount(t, nil, []string{"-q"}, prog)
					ref, out := cpuLines(refOut, refStatus), cpuLines(got.stdout, got.status)
					nknown, unexplained := cpuCompare(p.name, ref, out, known, func(k int) {
						mu.Lock()
						used[k] = true
						mu.Unlock()
					})
					mu.Lock()
					if forms[p.arch] == nil {
						forms[p.arch] = map[string]bool{}
					}
					for _, l := range ref[:len(ref)-1] { // not the exit line
						forms[p.arch][p.name+"/"+strings.TrimSuffix(strings.SplitN(l, " ", 2)[0], ":")] = true
					}
					lines[p.arch] += len(ref)
					diffs[p.arch] += nknown
					ran[p.name]++
					mu.Unlock()
					if len(unexplained) > 0 {
						t.Errorf("%d forms differ from the reference and are not in cpuKnown:\n%s%s", len(unexplained),
							cpuReport(unexplained), strings.TrimSpace(got.stderr))
					}
				})
			}
		}
	})
	for k, u := range used {
		// An entry is judged only when every build of its program was
		// compared (not under -run naming one build).
		if !u && ran[cpuKnown[k].prog] == builds[cpuKnown[k].prog] && cpuOnHost(cpuKnown[k]) {
			t.Errorf("cpuKnown entry %s %q (%s) matches no difference any more: remove it", cpuKnown[k].prog,
				cpuKnown[k].pattern, cpuKnown[k].reason)
		}
	}
	for _, arch := range []string{"x86-64", "arm64"} {
		t.Logf("%s: %d instruction forms, %d lines (results and flags of one form and input each) compared, %d of them known differences",
			arch, len(forms[arch]), lines[arch], diffs[arch])
	}
}
