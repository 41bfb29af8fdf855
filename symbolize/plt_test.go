package symbolize

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// TestPLTSymbolsMatchObjdump names the PLT stubs of real objects of both
// arches and compares them with the @plt symbols objdump makes for them.
// A stub whose slot an IRELATIVE relocation fills, objdump names by the
// resolver's address (*ABS*+0x...@plt); icount by the IFUNC it resolves.
func TestPLTSymbolsMatchObjdump(t *testing.T) {
	cases := []struct{ objdump, file string }{
		{"objdump", "/usr/bin/sort"},
		{"objdump", "/lib/x86_64-linux-gnu/libstdc++.so.6"},
		{"aarch64-linux-gnu-objdump", "/usr/aarch64-linux-gnu/lib/libc.so.6"},
	}
	label := regexp.MustCompile(`^([0-9a-f]+) <([^>*]+@plt)>:$`)
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			if _, err := os.Stat(c.file); err != nil {
				t.Skipf("%s is not installed", c.file)
			}
			out, err := exec.Command(c.objdump, "-d", "-j", ".plt", "-j", ".plt.got", "-j", ".plt.sec", c.file).Output()
			if err != nil {
				t.Skipf("%s: %v", c.objdump, err)
			}
			want := map[string]uint64{}
			ifuncs := 0
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				if m := label.FindStringSubmatch(sc.Text()); m != nil {
					want[m[2]], _ = strconv.ParseUint(m[1], 16, 64)
				} else if bytes.Contains(sc.Bytes(), []byte(" <*ABS*+0x")) {
					ifuncs++
				}
			}
			f, err := elf.Open(c.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			syms, _ := f.Symbols()
			dyn, _ := f.DynamicSymbols()
			got := map[string]uint64{}
			for _, s := range pltSymbols(f, syms, dyn) {
				got[s.Name] = s.Value
			}
			if len(want) == 0 {
				t.Fatalf("objdump named no PLT stub:\n%s", out)
			}
			for name, addr := range want {
				if got[name] != addr {
					t.Errorf("%s: at %#x, objdump says %#x", name, got[name], addr)
				}
			}
			if len(got) != len(want)+ifuncs {
				t.Errorf("%d stubs named, objdump names %d and %d by address", len(got), len(want), ifuncs)
			}
		})
	}
}

// TestFrameStartsNameStrippedCode checks that a stripped library's
// functions without a symbol are found from its unwind tables: every
// start .eh_frame_hdr lists is a function entry of the symbol table.
// Without its debug file, whose full symbol table names most of them.
func TestFrameStartsNameStrippedCode(t *testing.T) {
	const lib = "/lib/x86_64-linux-gnu/libc.so.6"
	f, err := elf.Open(lib)
	if err != nil {
		t.Skip(err)
	}
	starts := frameStarts(f)
	f.Close()
	if len(starts) < 1000 {
		t.Fatalf("%d frame starts in %s", len(starts), lib)
	}
	const base = 0x7f0000000000
	syms := NewCache(DebugDirs{}, false).Open(lib).At(base)
	unnamed := 0
	for _, s := range starts {
		fn, ok := syms.Function(base + s)
		if !ok {
			t.Fatalf("no function holds the frame start %#x", s)
		}
		if fn.Start == base+s && fn.Name == fmt.Sprintf("libc.so.6+%#x", s) {
			unnamed++
		}
	}
	if unnamed == 0 {
		t.Errorf("no function of %s is named from its unwind tables", lib)
	}
}
