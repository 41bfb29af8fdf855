package main

import (
	"debug/elf"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/symbolize"
)

// libcFunctions is what glibc's symbol tables and its debug file say of
// its functions: each name (versions dropped, IFUNC symbols too) to its
// entry, in the object's own addresses, every name of each entry, and the
// entries of IFUNC resolvers.
type libcFunctions struct {
	entry     map[string]uint64
	names     map[uint64][]string
	resolvers map[uint64]bool
}

// readLibcFunctions reads the host glibc's and its debug file's symbols.
func readLibcFunctions(t *testing.T) libcFunctions {
	t.Helper()
	lf := libcFunctions{entry: map[string]uint64{}, names: map[uint64][]string{}, resolvers: map[uint64]bool{}}
	debug := symbolize.NewCache(symbolize.SystemDebugDirs(""), false).Open(hostLibc).DebugFile()
	for _, path := range []string{hostLibc, debug} {
		f, err := elf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		dyn, _ := f.DynamicSymbols()
		syms, _ := f.Symbols()
		f.Close()
		for _, s := range append(dyn, syms...) {
			typ := elf.ST_TYPE(s.Info)
			if s.Value == 0 || s.Name == "" || typ != elf.STT_FUNC && typ != elf.STT_GNU_IFUNC {
				continue
			}
			name, _, _ := strings.Cut(s.Name, "@")
			if _, seen := lf.entry[name]; !seen {
				lf.entry[name] = s.Value
				lf.names[s.Value] = append(lf.names[s.Value], name)
			}
			if typ == elf.STT_GNU_IFUNC {
				lf.resolvers[s.Value] = true
			}
		}
	}
	return lf
}

// name names the function entered at entry.
func (lf libcFunctions) name(entry uint64) string {
	if n := lf.names[entry]; len(n) > 0 {
		return n[0]
	}
	return "libc.so.6+0x" + strconv.FormatUint(entry, 16)
}

// cpuVariant matches the names of the string functions among which glibc
// picks by the CPU's features, and of what measures the CPU for it.
var cpuVariant = regexp.MustCompile(`_(sse2|ssse3|sse4_1|sse4_2|avx|avx2|evex|evex512|erms|unaligned|rtm)(_|$)|cacheinfo|cpu_features`)

// dependsOnCPU says whether the function entered at entry is one whose
// path depends on the CPU's features: an IFUNC resolver, or a variant of a
// string function glibc picks by them.
func (lf libcFunctions) dependsOnCPU(entry uint64) bool {
	if lf.resolvers[entry] {
		return true
	}
	for _, n := range lf.names[entry] {
		if cpuVariant.MatchString(n) {
			return true
		}
	}
	return false
}

// annotateLine is a function line of callgrind_annotate, with its object.
var annotateLine = regexp.MustCompile(`^\s*([\d,]+) \(\s*[\d.]+%\)\s+[^:\s]*:(.*?)(?: \[([^\]]*)\])?$`)

// callgrindLibc runs callgrind_annotate on file and returns the self
// costs of glibc's functions by entry, and the names it could not place.
func callgrindLibc(t *testing.T, file string, lf libcFunctions) (map[uint64]uint64, []string) {
	t.Helper()
	out, err := exec.Command("callgrind_annotate", "--threshold=100", file).CombinedOutput()
	if err != nil {
		t.Fatalf("callgrind_annotate: %v\n%s", err, out)
	}
	// A function's lines inlined from another file (glibc's libioP.h
	// vtable check in every stdio function) come as an entry of their
	// own, file:function without the object: the object is the one the
	// function's other entry names.
	var entries [][]string
	objectOf := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "-- Auto-annotated source") {
			break
		}
		if m := annotateLine.FindStringSubmatch(line); m != nil && !strings.HasPrefix(m[2], " ") {
			entries = append(entries, m)
			if m[3] != "" {
				objectOf[m[2]] = m[3]
			}
		}
	}
	self := map[uint64]uint64{}
	var unplaced []string
	for _, m := range entries {
		object := m[3]
		if object == "" {
			object = objectOf[m[2]]
		}
		if filepath.Base(object) != filepath.Base(hostLibc) {
			continue
		}
		name := recursionLevel.ReplaceAllString(m[2], "")
		name, _, _ = strings.Cut(name, "@")
		if name == "(below main)" { // valgrind's name for what calls main
			name = "__libc_start_call_main"
		}
		entry, ok := lf.entry[name]
		if !ok {
			unplaced = append(unplaced, m[2])
			continue
		}
		self[entry] += parseCount(m[1])
	}
	return self, unplaced
}

// icountLibc returns the self costs of the Profile's functions in glibc
// by entry, in the object's own addresses, but for its PLT stubs
// (callgrind counts them in an object of their own, [PLT]).
func icountLibc(t *testing.T, p *profile.Profile, lf libcFunctions) map[uint64]uint64 {
	t.Helper()
	self := map[uint64]uint64{}
	for _, f := range p.Functions {
		if f.Module != filepath.Base(hostLibc) || strings.HasSuffix(f.Name, "@plt") {
			continue
		}
		entry, ok := lf.entry[f.Name]
		if off, isOffset := strings.CutPrefix(f.Name, f.Module+"+0x"); isOffset {
			n, err := strconv.ParseUint(off, 16, 64)
			entry, ok = n, err == nil
		}
		if !ok {
			t.Errorf("icount's %s is not a function of %s", f.Name, hostLibc)
			continue
		}
		self[entry] += f.Self
	}
	return self
}

// TestLibcFunctionsMatchCallgrind compares the self count of each glibc
// function the qsort program ran, as icount counts it and as callgrind
// does (--skip-plt=no, each function placed by its name in libc's symbol
// tables and debug file: the two tools pick different aliases; the PLT
// stubs are left out, callgrind counts them in an object of its own). The
// functions whose path depends on the CPU's features are set apart:
// glibc's IFUNC resolvers and the string functions they pick (callgrind's
// CPU has AVX2, icount's is x86-64-v1 with SSE3, so memcpy is
// __memcpy_avx_unaligned_erms under one and __memcpy_sse2_unaligned_erms
// under the other). msort_with_tmp.part.0 must be equal, and every other
// function within 0.1 % of libc's count in all: on this program 66 of 114
// functions, 91.5 % of libc's instructions, are equal, 8.5 % are in
// functions that depend on the CPU, and the 8 others differ by 120
// instructions in all (0.002 %), all at start-up and exit: what the kernel
// answers (brk, _exit), the at-exit handlers valgrind's preloaded library
// adds (__cxa_finalize, __unregister_atfork: each runs twice under it),
// and fstat, fstatat and __sigsetjmp, which ld.so has too: callgrind_annotate
// merges a name's costs in both objects into one entry, ld.so's. (The 7 or 8 instructions each stdio function
// differed by were callgrind_annotate's: the lines glibc inlines from
// libioP.h, its vtable check, come as an entry without the object.) The
// test logs how close the two are.
func TestLibcFunctionsMatchCallgrind(t *testing.T) {
	for _, tool := range []string{"valgrind", "callgrind_annotate"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	needLibcDebugFile(t)
	lf := readLibcFunctions(t)
	prog := testProgram(t, "c/qsort-dynamic")
	out := callgrindQsort(t, prog)
	cg, unplaced := callgrindLibc(t, out, lf)
	if len(unplaced) > 0 {
		t.Errorf("callgrind's functions not in libc's symbols: %v", unplaced)
	}
	r := runIcount(t, nil, nil, prog)
	if r.status != 0 || r.profile == nil {
		t.Fatalf("status %d\n%s", r.status, r.stderr)
	}
	ic := icountLibc(t, r.profile, lf)
	entries := map[uint64]bool{}
	for e := range ic {
		entries[e] = true
	}
	for e := range cg {
		entries[e] = true
	}
	var total, equal, cpu, otherDiff uint64
	var equalFns, fns int
	var diffs []string
	for e := range entries {
		a, b := ic[e], cg[e]
		total += a
		fns++
		switch {
		case a == b:
			equal += a
			equalFns++
		case lf.dependsOnCPU(e):
			cpu += a
		default:
			otherDiff += max(a, b) - min(a, b)
			diffs = append(diffs, lf.name(e)+" "+strconv.FormatUint(a, 10)+"/"+strconv.FormatUint(b, 10))
		}
	}
	sort.Strings(diffs)
	t.Logf("libc: %d instructions by icount, callgrind %d; %d of %d functions equal, holding %d instructions (%.3f%%); %d in functions whose path depends on the CPU; the others differ by %d in all (icount/callgrind): %v",
		total, sumValues(cg), equalFns, fns, equal, 100*float64(equal)/float64(total), cpu, otherDiff, diffs)
	if otherDiff*1000 > total {
		t.Errorf("the functions whose path does not depend on the CPU differ by %d instructions, over 0.1%% of libc's %d", otherDiff, total)
	}
	msort := lf.entry["msort_with_tmp"]
	if e, ok := lf.entry["msort_with_tmp.part.0"]; ok {
		msort = e
	}
	if ic[msort] == 0 || ic[msort] != cg[msort] {
		t.Errorf("msort_with_tmp.part.0: icount %d, callgrind %d", ic[msort], cg[msort])
	}
}

// sumValues is the sum of m's values.
func sumValues(m map[uint64]uint64) uint64 {
	var n uint64
	for _, v := range m {
		n += v
	}
	return n
}
