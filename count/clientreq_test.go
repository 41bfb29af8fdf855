package count

import (
	"errors"
	"testing"

	"github.com/icount-dev/icount/emu"
)

// TestClientRequestSites finds valgrind's client requests in a block by
// their special sequence: the marker after the preamble, on both arches,
// with the preamble in the block or, when the block starts within the
// sequence, in memory before it; a marker without the preamble, or one
// that is not a whole instruction of the block, is the ordinary
// instruction it is.
func TestClientRequestSites(t *testing.T) {
	nop := map[emu.Arch][]byte{emu.X86_64: {0x90}, emu.ARM64: {0x1f, 0x20, 0x03, 0xd5}}
	seq := map[emu.Arch][2][]byte{emu.X86_64: {preambleX86, requestX86}, emu.ARM64: {preambleARM64, requestARM64}}
	for _, arch := range []emu.Arch{emu.X86_64, emu.ARM64} {
		pre, marker := seq[arch][0], seq[arch][1]
		insn := len(pre) / 4 // each of the four rotations
		// block lays out instructions and returns the code and their starts.
		block := func(parts ...[]byte) ([]byte, []uint32) {
			var code []byte
			var starts []uint32
			for _, p := range parts {
				starts = append(starts, uint32(len(code)))
				code = append(code, p...)
			}
			return code, starts
		}
		rotations := func(n int) [][]byte {
			var out [][]byte
			for i := 4 - n; i < 4; i++ {
				out = append(out, pre[i*insn:(i+1)*insn])
			}
			return out
		}
		const addr = 0x401000
		noRead := func(uint64, []byte) error { return errors.New("unmapped") }

		code, starts := block(append(append([][]byte{nop[arch]}, rotations(4)...), marker, nop[arch])...)
		sites := clientRequestSites(arch, code, starts, addr, noRead)
		wantPC := addr + uint64(len(nop[arch])+len(pre))
		if len(sites) != 1 || sites[0].PC != wantPC || sites[0].Len != len(marker) || sites[0].Kind != emu.SiteClientRequest {
			t.Errorf("%v: whole sequence: sites %+v, want one at %#x", arch, sites, wantPC)
		}

		code, starts = block(nop[arch], marker, nop[arch])
		if sites := clientRequestSites(arch, code, starts, addr, noRead); len(sites) != 0 {
			t.Errorf("%v: a marker without the preamble: sites %+v, want none", arch, sites)
		}

		// The block starts after two rotations: the first two are read
		// from memory before it.
		code, starts = block(append(rotations(2), marker)...)
		read := func(at uint64, buf []byte) error {
			if at != addr-uint64(2*insn) || len(buf) != 2*insn {
				return errors.New("read elsewhere")
			}
			copy(buf, pre[:2*insn])
			return nil
		}
		if sites := clientRequestSites(arch, code, starts, addr, read); len(sites) != 1 || sites[0].PC != addr+uint64(2*insn) {
			t.Errorf("%v: preamble cut at the block's start: sites %+v, want one at %#x", arch, sites, addr+uint64(2*insn))
		}
		if sites := clientRequestSites(arch, code, starts, addr, noRead); len(sites) != 0 {
			t.Errorf("%v: preamble cut and unreadable: sites %+v, want none", arch, sites)
		}
	}
}
