package count

import (
	"testing"

	"github.com/icount-dev/icount/emu"
)

// TestCounterReadsHooked hooks the counter reads of blocks as they are
// first seen (hookCounters): an rdtsc among the decoded instructions once
// (the block starts over the first time only), not the pattern inside
// another instruction, and, past an instruction the decoder could not
// decode, the pattern at any byte.
func TestCounterReadsHooked(t *testing.T) {
	cpu, err := emu.New(emu.X86_64, emu.Hooks{}, emu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	d := &decoder{arch: emu.X86_64, cpu: cpu}
	cases := []struct {
		name  string
		addr  uint64
		block *decodedBlock
		want  bool // the block starts over
		sites int  // counter hooks after it
	}{
		// nop; rdtsc; ret
		{"rdtsc", 0x1000, &decodedBlock{blockShape: &blockShape{code: []byte{0x90, 0x0f, 0x31, 0xc3}, starts: []uint32{0, 1, 3}}}, true, 1},
		{"again", 0x1000, &decodedBlock{blockShape: &blockShape{code: []byte{0x90, 0x0f, 0x31, 0xc3}, starts: []uint32{0, 1, 3}}}, false, 1},
		// mov $0x310f, %eax; ret
		{"inside", 0x2000, &decodedBlock{blockShape: &blockShape{code: []byte{0xb8, 0x0f, 0x31, 0, 0, 0xc3}, starts: []uint32{0, 5}}}, false, 1},
		// nop, then bytes the decoder could not decode
		{"undecoded", 0x3000, &decodedBlock{blockShape: &blockShape{code: []byte{0x90, 0xff, 0x0f, 0x31}, starts: []uint32{0, 1}}, bad: "cannot decode"}, true, 2},
	}
	for _, k := range cases {
		if got := d.hookCounters(k.block, k.addr); got != k.want {
			t.Errorf("%s: starts over %v, want %v", k.name, got, k.want)
		}
		if got := cpu.CounterSites(); got != k.sites {
			t.Errorf("%s: %d counter hooks, want %d", k.name, got, k.sites)
		}
	}
	if len(d.failed) != 0 {
		t.Errorf("failures: %q", d.failed)
	}
}
