package main

// Guest memory: mappings live in icount's own page table, which the
// emulator asks on each TLB miss, so a fault stops at its exact
// instruction, and a program may map and unmap as much as it likes.

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMemoryFaultMessages checks the message of a store after mprotect took
// write permission away, of a load after munmap (memfault with an
// argument, its count worked out in its header), and of code running into
// memory it may not execute, on both arches. The other counts are checked
// with the programs' headers (TestExactCounts*).
func TestMemoryFaultMessages(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		prog, arg string
		insns     uint64
		want      string
	}{
		{"amd64/memfault", "", 20, "icount: SIGSEGV: access to 0x7ffff7ffe008 violates its protection by `movq $0x2,0x8(%rbx)` at 0x401054, in _start+0x54 (memfault)\n"},
		{"amd64/memfault", "munmap", 17, "icount: SIGSEGV: access to unmapped address 0x7ffff7ffe008 by `mov 0x8(%rbx),%rcx` at 0x401072, in unmap+0xf (memfault)\n"},
		{"amd64/crossing", "", 9, "icount: SIGSEGV: the instruction at 0x402ffd runs into 0x403000, which is not mapped executable, in run+0x4 (crossing)\n"},
		{"arm64/memfault", "", 20, "icount: SIGSEGV: access to 0xfffff7ffe008 violates its protection by `str x10, [x9,#8]` at 0x40015c, in _start+0x50 (memfault)\n"},
		{"arm64/memfault", "munmap", 17, "icount: SIGSEGV: access to unmapped address 0xfffff7ffe008 by `ldr x10, [x9,#8]` at 0x400174, in unmap+0xc (memfault)\n"},
		{"arm64/crossing", "", 10, "icount: SIGSEGV: execution ran into 0x403000, which is not mapped executable\n"},
	} {
		var args []string
		if c.arg != "" {
			args = []string{c.arg}
		}
		r := runIcount(t, nil, []string{"-q"}, testProgram(t, c.prog), args...)
		// The message is the first line; a backtrace may follow.
		first, _, _ := strings.Cut(r.stderr, "\n")
		if r.status != 139 || first+"\n" != c.want || r.profile == nil || r.profile.Totals.Instructions != c.insns {
			t.Errorf("%s %s: status %d, stderr:\n%s\nwant 139, %d instructions and\n%s", c.prog, c.arg, r.status, r.stderr, c.insns, c.want)
		}
	}
}

// TestCrossingUnderLimit stops amd64/crossing within the instructions
// before the page it may not execute, which icount runs as a block of
// their own: 5 + 2 instructions, then one of the two incs.
func TestCrossingUnderLimit(t *testing.T) {
	t.Parallel()
	for _, n := range []uint64{6, 7, 8} {
		r := runIcount(t, nil, []string{"-q", "--max-instructions", strconv.FormatUint(n, 10)}, testProgram(t, "amd64/crossing"))
		if r.profile == nil || r.profile.Totals.Instructions != n || r.status != exitInstructionLimit {
			t.Errorf("--max-instructions %d: status %d, profile %v; stderr:\n%s", n, r.status, r.profile != nil, r.stderr)
		}
	}
}

// TestManyMappings runs mmapstress: thousands of large blocks malloc maps
// and free unmaps, thousands of mmap and munmap, 6,000 separate mappings
// at once (the emulator's own memory regions, which icount used for
// mappings, abort the process at about 4,000), unmapped memory mapped
// again reading zeros, partial munmap, mprotect, mremap and madvise. Its
// output must be what the amd64 build prints natively.
func TestManyMappings(t *testing.T) {
	t.Parallel()
	want, status := runNative(t, t.TempDir(), nil, testProgram(t, "c/mmapstress-musl"))
	if status != 0 {
		t.Fatalf("natively: status %d\n%s", status, want)
	}
	for _, prog := range []string{"c/mmapstress-musl", "c/mmapstress-glibc", "arm64/c/mmapstress-glibc"} {
		t.Run(filepath.Base(filepath.Dir(prog))+"/"+filepath.Base(prog), func(t *testing.T) {
			t.Parallel()
			r := runIcount(t, nil, []string{"-q"}, testProgram(t, prog))
			if r.status != 0 || r.stdout != want {
				t.Errorf("status %d, stdout:\n%s\nwant 0 and\n%s\nstderr:\n%s", r.status, r.stdout, want, r.stderr)
			}
		})
	}
}
