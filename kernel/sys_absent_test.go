package kernel

import (
	"testing"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// TestAbsentTable checks that every call of absentCalls is a row of its
// arches' tables under its name and number, with a handler, and that a
// call refused whatever its arguments has the support level its answer
// says: ENOSYS for ENOSYS, refused (or full, for an answer Linux gives
// every caller) otherwise.
func TestAbsentTable(t *testing.T) {
	for _, c := range absentCalls {
		for arch, nr := range map[emu.Arch]int{emu.X86_64: c.x86, emu.ARM64: c.arm} {
			if nr < 0 {
				continue
			}
			row := abis[arch].table[uint64(nr)]
			if row == nil || row.Name != c.name || row.Handler == nil || row.Support != c.support {
				t.Errorf("%s (%d) on arch %d: row %+v", c.name, nr, arch, row)
			}
		}
		if c.handle != nil {
			continue
		}
		if want := c.errno == unix.ENOSYS; want != (c.support == ENOSYS) || c.support != ENOSYS && c.support != Refused && c.support != Full {
			t.Errorf("%s: answer %v with support %v", c.name, c.errno, c.support)
		}
	}
}
