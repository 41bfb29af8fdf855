package loader

import (
	"encoding/binary"
	"os"
	"slices"
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

// fileMemory is a memory that can map files: it records the MapFile calls
// (address, size, offset) and the writes (address, length), and refuses
// the refuse'th call and those after it (0: none).
type fileMemory struct {
	ranges
	files  [][3]uint64
	writes [][2]uint64
	refuse int
}

func (m *fileMemory) Write(addr uint64, b []byte) error {
	m.writes = append(m.writes, [2]uint64{addr, uint64(len(b))})
	return m.ranges.Write(addr, b)
}

func (m *fileMemory) MapFile(addr, size uint64, fd int, off uint64) (bool, error) {
	if m.refuse > 0 && len(m.files)+1 >= m.refuse {
		return false, nil
	}
	m.files = append(m.files, [3]uint64{addr, size, off})
	return true, nil
}

// TestLoadMapsFilePages loads through a memory that maps files: each
// segment's file pages are the file's, and only the zero part's share of
// the page holding the end of the file bytes is written (zeros, up to the
// next segment), so that loading copies nothing. Two segments sharing a
// page the file gives alike are mapped both; two that would show
// different pages of the file there, and segments overlapping in memory
// make the loader copy the file bytes instead; so does a host refusing a
// mapping, the zero parts' pages zeroed still.
func TestLoadMapsFilePages(t *testing.T) {
	f, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	rx, rw := emu.ProtRead|emu.ProtExec, emu.ProtRead|emu.ProtWrite
	cases := []struct {
		name   string
		segs   []Segment
		refuse int
		files  [][3]uint64
		writes [][2]uint64
	}{
		{"apart", []Segment{
			{Vaddr: 0x400000, Offset: 0, Filesz: 0x1800, Memsz: 0x1800, Prot: rx},
			{Vaddr: 0x402e00, Offset: 0x1e00, Filesz: 0x300, Memsz: 0x1400, Prot: rw},
		}, 0, [][3]uint64{{0x400000, 0x2000, 0}, {0x402000, 0x2000, 0x1000}}, [][2]uint64{{0x403100, 0xf00}}},
		{"sharing a page alike", []Segment{
			{Vaddr: 0x400000, Offset: 0, Filesz: 0x1800, Memsz: 0x1800, Prot: rx},
			{Vaddr: 0x401800, Offset: 0x1800, Filesz: 0x100, Memsz: 0x200, Prot: rw},
			{Vaddr: 0x401c00, Offset: 0x1c00, Filesz: 0x10, Memsz: 0x10, Prot: rw},
		}, 0, [][3]uint64{{0x400000, 0x2000, 0}, {0x401000, 0x1000, 0x1000}, {0x401000, 0x1000, 0x1000}}, [][2]uint64{{0x401900, 0x300}}},
		{"sharing a page unlike", []Segment{
			{Vaddr: 0x400000, Offset: 0, Filesz: 0x1800, Memsz: 0x1800, Prot: rx},
			{Vaddr: 0x401800, Offset: 0x2800, Filesz: 0x100, Memsz: 0x200, Prot: rw},
		}, 0, nil, [][2]uint64{{0x400000, 0x1800}, {0x401800, 0x100}}},
		{"overlapping", []Segment{
			{Vaddr: 0x400000, Offset: 0, Filesz: 0x2000, Memsz: 0x2000, Prot: rx},
			{Vaddr: 0x401000, Offset: 0x1000, Filesz: 0x800, Memsz: 0x2000, Prot: rx},
		}, 0, nil, [][2]uint64{{0x400000, 0x2000}, {0x401000, 0x800}, {0x401800, 0x800}}},
		{"refused", []Segment{
			{Vaddr: 0x400000, Offset: 0, Filesz: 0x1800, Memsz: 0x1800, Prot: rx},
			{Vaddr: 0x402e00, Offset: 0x1e00, Filesz: 0x300, Memsz: 0x1400, Prot: rw},
		}, 2, [][3]uint64{{0x400000, 0x2000, 0}}, [][2]uint64{{0x400000, 0x1800}, {0x402e00, 0x300}, {0x403100, 0xf00}}},
	}
	for _, c := range cases {
		exe := &Executable{data: make([]byte, 0x3000), file: f, Segs: c.segs}
		mem := &fileMemory{refuse: c.refuse}
		if _, err := exe.LoadAt(mem, 0); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(mem.files, c.files) {
			t.Errorf("%s: mapped the file at %#x, want %#x", c.name, mem.files, c.files)
		}
		if !slices.Equal(mem.writes, c.writes) {
			t.Errorf("%s: wrote %#x, want %#x", c.name, mem.writes, c.writes)
		}
	}
	// Once its file is closed, an executable is copied.
	exe := &Executable{data: make([]byte, 0x3000), file: f, Segs: cases[0].segs}
	exe.CloseFile()
	mem := &fileMemory{}
	if _, err := exe.LoadAt(mem, 0); err != nil {
		t.Fatal(err)
	}
	if len(mem.files) != 0 || mem.ranges.written != 0x1800+0x300 {
		t.Errorf("after CloseFile: mapped %#x and wrote %#x bytes, want nothing mapped and 0x1b00 bytes written", mem.files, mem.ranges.written)
	}
}
