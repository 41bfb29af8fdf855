package kernel

import "testing"

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
