package count

import (
	"testing"

	"github.com/icount-dev/icount/emu"
)

func TestX86Len(t *testing.T) {
	cases := []struct {
		name string
		code []byte
		want int
	}{
		{"nop", []byte{0x90}, 1},
		{"endbr64", []byte{0xf3, 0x0f, 0x1e, 0xfa, 0x90}, 4},
		{"hint nop with modrm", []byte{0x0f, 0x18, 0x00}, 3},
		{"rep movsq", []byte{0xf3, 0x48, 0xa5}, 3},
		{"syscall", []byte{0x0f, 0x05}, 2},
		{"mov rip-relative", []byte{0x48, 0x8b, 0x05, 1, 2, 3, 4}, 7},
	}
	for _, c := range cases {
		if got, err := x86Len(c.code); err != nil || got != c.want {
			t.Errorf("%s: x86Len = %d, %v; want %d", c.name, got, err, c.want)
		}
	}
	if _, err := x86Len([]byte{0x0f, 0x0b}); err != nil {
		t.Errorf("ud2 must decode: %v", err)
	}
	if _, err := x86Len([]byte{0x0f}); err == nil {
		t.Error("a lone 0f must not decode")
	}
}

func TestNotRun(t *testing.T) {
	d := &decoder{byID: []*decodedBlock{1: {blockShape: &blockShape{starts: []uint32{0, 2, 5, 8}}, addr: 0x1000, id: 1}}}
	b := emu.Block{ID: 1, Addr: 0x1000, Size: 10}
	for pc, want := range map[uint64]uint32{0x1000: 4, 0x1002: 3, 0x1005: 2, 0x1008: 1, 0x100a: 0, 0x2000: 0} {
		if got := d.notRun(b, pc); got != want {
			t.Errorf("notRun at %#x = %d, want %d", pc, got, want)
		}
	}
	// A block the decoder never saw, at the same address and size.
	if got := d.notRun(emu.Block{ID: 2, Addr: 0x1000, Size: 10}, 0x1002); got != 0 {
		t.Errorf("notRun of an unknown block = %d, want 0", got)
	}
}
