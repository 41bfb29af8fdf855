package loader

import (
	"encoding/binary"
	"testing"

	"github.com/icount-dev/icount/emu"
)

// ranges records what Load maps, range by range, and the bytes it writes.
type ranges struct {
	maps    []pageRun
	written uint64
}

func (m *ranges) Map(addr, size uint64, prot emu.Prot, name string) error {
	m.maps = append(m.maps, pageRun{addr, addr + size, prot})
	return nil
}

func (m *ranges) Write(addr uint64, b []byte) error {
	m.written += uint64(len(b))
	return nil
}

// withMemsz is minimalELF with its segment's memory size set to memsz.
func withMemsz(t *testing.T, memsz uint64) *Executable {
	t.Helper()
	b := minimalELF()
	binary.LittleEndian.PutUint64(b[64+40:], memsz)
	exe, err := Parse("big", b)
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// A segment of 256 GiB, nearly all zero part, is one mapping and costs
// only its file bytes to load, at once.
func TestLoadHugeBSSLazily(t *testing.T) {
	exe := withMemsz(t, 256<<30)
	mem := &ranges{}
	img, err := exe.Load(mem)
	if err != nil {
		t.Fatal(err)
	}
	want := []pageRun{{0x400000, 0x400000 + 256<<30, emu.ProtRead | emu.ProtExec}}
	if len(mem.maps) != 1 || mem.maps[0] != want[0] {
		t.Errorf("maps %+v, want %+v", mem.maps, want)
	}
	if mem.written != 0x88 || img.End != want[0].end {
		t.Errorf("wrote %#x bytes, image ends at %#x; want the file's 0x88 bytes and %#x", mem.written, img.End, want[0].end)
	}
	if got := exe.MappedSize(); got != 256<<30 {
		t.Errorf("MappedSize %#x, want %#x", got, uint64(256<<30))
	}
}

// Pages two segments share get both permissions; a gap between segments
// is not mapped; an earlier segment's file bytes in a later one's zero
// part are zeroed.
func TestPageRuns(t *testing.T) {
	exe := &Executable{Segs: []Segment{
		{Vaddr: 0x400000, Memsz: 0x1800, Filesz: 0x1800, Prot: emu.ProtRead | emu.ProtExec},
		{Vaddr: 0x401800, Memsz: 0x2000, Filesz: 0x100, Prot: emu.ProtRead | emu.ProtWrite},
		{Vaddr: 0x500000, Memsz: 0x10, Filesz: 0, Prot: 0},
	}}
	want := []pageRun{
		{0x400000, 0x401000, emu.ProtRead | emu.ProtExec},
		{0x401000, 0x402000, emu.ProtRead | emu.ProtWrite | emu.ProtExec},
		{0x402000, 0x404000, emu.ProtRead | emu.ProtWrite},
		{0x500000, 0x501000, 0},
	}
	got := exe.pageRuns(0)
	if len(got) != len(want) {
		t.Fatalf("runs %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("run %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if n := exe.MappedSize(); n != 0x5000 {
		t.Errorf("MappedSize %#x, want 0x5000", n)
	}
	// The bss of a segment over the first one's file bytes.
	exe = &Executable{data: make([]byte, 0x2000), Segs: []Segment{
		{Vaddr: 0x400000, Memsz: 0x2000, Filesz: 0x2000, Prot: emu.ProtRead},
		{Vaddr: 0x401000, Memsz: 0x2000, Filesz: 0x800, Prot: emu.ProtRead},
	}}
	mem := &ranges{}
	if _, err := exe.LoadAt(mem, 0); err != nil {
		t.Fatal(err)
	}
	if mem.written != 0x2000+0x800+0x800 {
		t.Errorf("wrote %#x bytes, want the files' 0x2800 and 0x800 of zeros", mem.written)
	}
}
