package loader

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icount-dev/icount/emu"
)

// minimalELF builds a valid static x86-64 executable: an ELF header, one
// program header and 16 bytes of code in one R+X PT_LOAD at 0x400000.
func minimalELF() []byte {
	const phoff, codeOff = 64, 64 + 56
	b := make([]byte, codeOff+16)
	copy(b, elf.ELFMAG)
	b[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	b[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	b[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	le := binary.LittleEndian
	le.PutUint16(b[16:], uint16(elf.ET_EXEC))
	le.PutUint16(b[18:], uint16(elf.EM_X86_64))
	le.PutUint32(b[20:], uint32(elf.EV_CURRENT))
	le.PutUint64(b[24:], 0x400000+codeOff) // entry
	le.PutUint64(b[32:], phoff)
	le.PutUint16(b[52:], 64) // ehsize
	le.PutUint16(b[54:], 56) // phentsize
	le.PutUint16(b[56:], 1)  // phnum
	le.PutUint16(b[58:], 64) // shentsize
	ph := b[phoff:]
	le.PutUint32(ph[0:], uint32(elf.PT_LOAD))
	le.PutUint32(ph[4:], uint32(elf.PF_R|elf.PF_X))
	le.PutUint64(ph[8:], 0)         // offset
	le.PutUint64(ph[16:], 0x400000) // vaddr
	le.PutUint64(ph[24:], 0x400000) // paddr
	le.PutUint64(ph[32:], uint64(len(b)))
	le.PutUint64(ph[40:], uint64(len(b))+0x1000) // memsz: bss after the code
	le.PutUint64(ph[48:], 0x1000)
	return b
}

func TestParseMinimal(t *testing.T) {
	exe, err := Parse("min", minimalELF())
	if err != nil {
		t.Fatal(err)
	}
	if exe.Arch != emu.X86_64 || exe.PIE || exe.Go || exe.Entry != 0x400078 || len(exe.Segs) != 1 {
		t.Fatalf("got %+v", exe)
	}
	if exe.Segs[0].Prot != emu.ProtRead|emu.ProtExec {
		t.Errorf("prot %v", exe.Segs[0].Prot)
	}
}

// A program Go's toolchain built is known as one from its sections, and
// C programs are not (both arches' builds of make testprogs).
func TestGoProgramsKnown(t *testing.T) {
	for path, want := range map[string]bool{
		"../testdata/build/go/amd64/bench.test": true, "../testdata/build/go/arm64/bench.test": true,
		"../testdata/build/c/empty-glibc": false, "../testdata/build/arm64/c/empty-glibc": false,
	} {
		if _, err := os.Stat(path); err != nil {
			t.Skipf("%s is not built (make testprogs)", path)
		}
		exe, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if exe.Go != want {
			t.Errorf("%s: Go %v, want %v", path, exe.Go, want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	mutate := func(f func(b []byte) []byte) []byte { return f(minimalELF()) }
	le := binary.LittleEndian
	cases := []struct {
		name    string
		data    []byte
		problem Problem
		msg     string
	}{
		{"empty", nil, NotRunnable, "is empty"},
		{"text", []byte("hello world\n"), NotRunnable, "not an ELF file"},
		{"script", []byte("#!/bin/sh\necho hi\n"), NotRunnable, "is a script for \"/bin/sh\""},
		{"header only", minimalELF()[:40], NotRunnable, "truncated ELF file"},
		{"32-bit", mutate(func(b []byte) []byte { b[elf.EI_CLASS] = byte(elf.ELFCLASS32); return b }), Unsupported, "32-bit"},
		{"big-endian", mutate(func(b []byte) []byte { b[elf.EI_DATA] = byte(elf.ELFDATA2MSB); return b }), Unsupported, "big-endian"},
		{"riscv", mutate(func(b []byte) []byte { le.PutUint16(b[18:], uint16(elf.EM_RISCV)); return b }), Unsupported, "EM_RISCV"},
		{"object", mutate(func(b []byte) []byte { le.PutUint16(b[16:], uint16(elf.ET_REL)); return b }), NotRunnable, "relocatable object"},
		{"core", mutate(func(b []byte) []byte { le.PutUint16(b[16:], uint16(elf.ET_CORE)); return b }), NotRunnable, "core dump"},
		{"truncated segment", mutate(func(b []byte) []byte { return b[:len(b)-4] }), NotRunnable, "truncated ELF file"},
		{"filesz > memsz", mutate(func(b []byte) []byte { le.PutUint64(b[64+40:], 4); return b }), NotRunnable, "exceeds memory size"},
		{"entry outside", mutate(func(b []byte) []byte { le.PutUint64(b[24:], 0x900000); return b }), NotRunnable, "entry point"},
		{"not executable segment", mutate(func(b []byte) []byte { le.PutUint32(b[64+4:], uint32(elf.PF_R)); return b }), NotRunnable, "entry point"},
		{"kernel address", mutate(func(b []byte) []byte { le.PutUint64(b[64+16:], 0xffff800000000000); return b }), NotRunnable, "outside user space"},
		{"misaligned", mutate(func(b []byte) []byte { le.PutUint64(b[64+16:], 0x400010); return b }), NotRunnable, "disagree modulo the page size"},
		{"no segments", mutate(func(b []byte) []byte { le.PutUint32(b[64:], uint32(elf.PT_NOTE)); return b }), NotRunnable, "no loadable segment"},
		{"bad phentsize", mutate(func(b []byte) []byte { le.PutUint16(b[54:], 32); return b }), NotRunnable, "malformed ELF"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("prog", c.data)
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want a *loader.Error", err)
			}
			if le.Problem != c.problem || !strings.Contains(le.Error(), c.msg) || !strings.HasPrefix(le.Error(), "prog: ") {
				t.Errorf("got %q (problem %d), want problem %d and %q", le.Error(), le.Problem, c.problem, c.msg)
			}
		})
	}
}

func TestOpenRejects(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, minimalELF(), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path    string
		problem Problem
		msg     string
	}{
		{filepath.Join(dir, "missing"), NotFound, "no such file"},
		{dir, NotRunnable, "is a directory"},
		{plain, NotRunnable, "is not executable"},
	}
	for _, c := range cases {
		_, err := Open(c.path)
		var le *Error
		if !errors.As(err, &le) || le.Problem != c.problem || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Open(%s) = %v, want problem %d with %q", c.path, err, c.problem, c.msg)
		}
	}
}

// memory records what Load maps and writes.
type memory struct {
	maps   map[uint64]emu.Prot
	writes map[uint64][]byte
}

func (m *memory) Map(addr, size uint64, prot emu.Prot, name string) error {
	for p := addr; p < addr+size; p += emu.PageSize {
		m.maps[p] = prot
	}
	return nil
}

func (m *memory) Write(addr uint64, b []byte) error {
	m.writes[addr] = append([]byte(nil), b...)
	return nil
}

// loadMinimal parses and loads minimalELF as path into a fresh memory.
func loadMinimal(t *testing.T, path string) (*memory, *Image) {
	t.Helper()
	exe, err := Parse(path, minimalELF())
	if err != nil {
		t.Fatal(err)
	}
	mem := &memory{maps: map[uint64]emu.Prot{}, writes: map[uint64][]byte{}}
	img, err := exe.Load(mem)
	if err != nil {
		t.Fatal(err)
	}
	return mem, img
}

// The bss is mapped, and not written: the fresh mapping's zeros are its
// (host memory is used where the guest touches it).
func TestLoadMapsBSSAndFindsPhdr(t *testing.T) {
	mem, img := loadMinimal(t, "min")
	if len(mem.maps) != 2 || mem.maps[0x400000] != emu.ProtRead|emu.ProtExec || mem.maps[0x401000] != emu.ProtRead|emu.ProtExec {
		t.Errorf("maps %v", mem.maps)
	}
	if img.Phdr != 0x400040 || img.End != 0x402000 || img.Entry != 0x400078 {
		t.Errorf("image %+v", img)
	}
	if len(mem.writes) != 1 || len(mem.writes[0x400000]) != 0x88 {
		t.Errorf("writes at %v, want the file's 0x88 bytes at 0x400000 only", keys(mem.writes))
	}
}

func keys(m map[uint64][]byte) []uint64 {
	var out []uint64
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestStackDoesNotDependOnPath(t *testing.T) {
	build := func(path string) map[uint64][]byte {
		mem, img := loadMinimal(t, path)
		if _, err := BuildStack(mem, emu.X86_64, img, StackSpec{Argv: []string{"bench", "-n", "3"}, Platform: "x86_64"}); err != nil {
			t.Fatal(err)
		}
		return mem.writes
	}
	a, b := build("a/bench"), build("/a/much/longer/path/to/bench")
	if len(a) != len(b) {
		t.Fatalf("different writes")
	}
	for addr, w := range a {
		if string(b[addr]) != string(w) {
			t.Errorf("stack differs at %#x", addr)
		}
	}
}

// TestExecStack checks that PT_GNU_STACK with PF_X (`-z execstack`) maps
// the stack executable, and that without it the stack is not.
func TestExecStack(t *testing.T) {
	// minimalELF with a second program header, PT_GNU_STACK, before the
	// code.
	withStack := func(flags elf.ProgFlag) []byte {
		b := minimalELF()
		le := binary.LittleEndian
		ph := make([]byte, 56)
		le.PutUint32(ph[0:], uint32(elf.PT_GNU_STACK))
		le.PutUint32(ph[4:], uint32(flags))
		b = append(b[:64+56], append(ph, b[64+56:]...)...)
		le.PutUint16(b[56:], 2)                        // phnum
		le.PutUint64(b[24:], 0x400000+64+2*56)         // entry
		le.PutUint64(b[64+32:], uint64(len(b)))        // filesz
		le.PutUint64(b[64+40:], uint64(len(b))+0x1000) // memsz
		return b
	}
	for _, c := range []struct {
		flags elf.ProgFlag
		exec  bool
	}{{elf.PF_R | elf.PF_W, false}, {elf.PF_R | elf.PF_W | elf.PF_X, true}} {
		exe, err := Parse("prog", withStack(c.flags))
		if err != nil {
			t.Fatal(err)
		}
		if exe.ExecStack != c.exec {
			t.Errorf("PT_GNU_STACK %v: ExecStack %v", c.flags, exe.ExecStack)
		}
		mem := &memory{maps: map[uint64]emu.Prot{}, writes: map[uint64][]byte{}}
		img, err := exe.Load(mem)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := BuildStack(mem, emu.X86_64, img, StackSpec{Argv: []string{"prog"}, ExecStack: exe.ExecStack}); err != nil {
			t.Fatal(err)
		}
		want := emu.ProtRead | emu.ProtWrite
		if c.exec {
			want |= emu.ProtExec
		}
		if got := mem.maps[StackTop[emu.X86_64]-StackSize]; got != want {
			t.Errorf("PT_GNU_STACK %v: stack mapped %v, want %v", c.flags, got, want)
		}
	}
}

// TestOpenMapsAndLoads opens an executable written to a file (its bytes a
// mapping of the file), loads it, and checks what was written is the
// file's; and ArchOf reads the architecture of the file, of an arm64 one,
// and of none for files that are not such executables.
func TestOpenMapsAndLoads(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	path := write("min", minimalELF())
	exe, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	mem := &memory{maps: map[uint64]emu.Prot{}, writes: map[uint64][]byte{}}
	if _, err := exe.Load(mem); err != nil {
		t.Fatal(err)
	}
	if got, want := mem.writes[0x400000], minimalELF(); string(got) != string(want) {
		t.Errorf("loaded %x, want the file's %x", got, want)
	}
	if arch, ok := ArchOf(path); !ok || arch != emu.X86_64 {
		t.Errorf("ArchOf(x86-64 executable) = %v, %v", arch, ok)
	}
	arm := minimalELF()
	binary.LittleEndian.PutUint16(arm[18:], uint16(elf.EM_AARCH64))
	if arch, ok := ArchOf(write("arm", arm)); !ok || arch != emu.ARM64 {
		t.Errorf("ArchOf(arm64 executable) = %v, %v", arch, ok)
	}
	riscv := minimalELF()
	binary.LittleEndian.PutUint16(riscv[18:], uint16(elf.EM_RISCV))
	big := minimalELF()
	big[elf.EI_DATA] = byte(elf.ELFDATA2MSB)
	for name, b := range map[string][]byte{"riscv": riscv, "big": big, "script": []byte("#!/bin/sh\necho\n"), "short": []byte("\x7fELF")} {
		if arch, ok := ArchOf(write(name, b)); ok {
			t.Errorf("ArchOf(%s) = %v, want none", name, arch)
		}
	}
	if _, ok := ArchOf(filepath.Join(dir, "missing")); ok {
		t.Error("ArchOf(a missing file) found an architecture")
	}
}
