package kernel

import (
	"maps"
	"testing"
)

// linuxRanges are the numbers of Linux 6.1's system-call tables (the
// kernel icount's uname reports), by arch: x86-64's, and the generic
// numbering arm64 uses, whose 244-259 are left to arches and unused by
// arm64.
var linuxRanges = map[*abi][][2]uint64{
	abiX86_64:  {{0, 334}, {424, 450}},
	abiAArch64: {{0, 243}, {260, 294}, {424, 450}},
}

// TestTablesCoverLinux checks that each arch's table names every number
// Linux 6.1 has, so that only a number Linux lacks is answered ENOSYS
// without a row, and a call icount does not emulate stops the run naming
// it.
func TestTablesCoverLinux(t *testing.T) {
	for a, ranges := range linuxRanges {
		for _, r := range ranges {
			for nr := r[0]; nr <= r[1]; nr++ {
				if a.table[nr] == nil {
					t.Errorf("%s: system call %d has no row", a.platform, nr)
				}
			}
		}
	}
}

// TestCallCounts checks the counts an image keeps by number and reports
// by name: a row's name, syscall_NR for a number in the table's range no
// row has and for one past its end.
func TestCallCounts(t *testing.T) {
	c := newCallCounts(abiX86_64.table)
	for _, nr := range []uint64{110, 110, 0, 335, 1 << 40, 1 << 40, 1 << 40} {
		c.add(nr)
	}
	got := c.byName()
	want := map[string]uint64{"getppid": 2, "read": 1, "syscall_335": 1, "syscall_1099511627776": 3}
	if !maps.Equal(got, want) {
		t.Errorf("counts %v, want %v", got, want)
	}
	if abiX86_64.table.row(335) != nil {
		t.Errorf("x86-64 has a row for 335")
	}
}
