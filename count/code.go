package count

import (
	"debug/elf"
	"fmt"
	"strings"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/symbolize"
	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"
)

// Code is an object's code, symbols and line tables read from its file,
// at the addresses a run loaded it at: what icount annotate needs to show a
// saved Profile's counts by instruction.
type Code struct {
	arch emu.Arch
	segs []segment // executable PT_LOADs
	code symbolize.Loaded
}

// Instruction is one decoded instruction and where its source is.
type Instruction struct {
	Addr uint64
	Len  int
	Text string // GNU syntax
	File string // from DWARF; empty when unknown
	Line int
}

// OpenCode reads the code of obj, loaded with bias added to its addresses
// (Mapping.Bias).
func OpenCode(obj *symbolize.Object, bias uint64) (*Code, error) {
	arch, ok := map[elf.Machine]emu.Arch{elf.EM_X86_64: emu.X86_64, elf.EM_AARCH64: emu.ARM64}[obj.Machine]
	if !ok {
		return nil, fmt.Errorf("%s: not an x86-64 or arm64 executable", obj.Path)
	}
	segs, err := obj.Code()
	if err != nil {
		return nil, err
	}
	c := &Code{arch: arch, code: obj.At(bias)}
	for _, s := range segs {
		c.segs = append(c.segs, segment{bias + s.Addr, s.Data})
	}
	return c, nil
}

// segment is the file's bytes of an executable segment, at its loaded
// address.
type segment struct {
	addr uint64
	data []byte
}

// bytes returns the file's bytes at loaded addresses [addr, end), up to
// the end of the segment holding addr.
func (c *Code) bytes(addr, end uint64) []byte {
	for _, s := range c.segs {
		if addr >= s.addr && addr < s.addr+uint64(len(s.data)) && addr < end {
			return s.data[addr-s.addr : min(end, s.addr+uint64(len(s.data)))-s.addr]
		}
	}
	return nil
}

// Function returns the loaded address range of the named function.
func (c *Code) Function(name string) (start, end uint64, ok bool) {
	entry, ok := c.code.Entry(name)
	if !ok {
		return 0, 0, false
	}
	f, ok := c.code.Function(entry)
	return f.Start, f.End, ok
}

// Disassemble decodes the instructions of [start, end). An instruction the
// decoder does not know is shown by its bytes, with the length the emulator
// gave it.
func (c *Code) Disassemble(start, end uint64) []Instruction {
	code := c.bytes(start, end)
	var out []Instruction
	for off := 0; off < len(code); {
		in := Instruction{Addr: start + uint64(off)}
		in.Len, in.Text = c.decode(code[off:], in.Addr)
		if pos, ok := c.code.Line(in.Addr); ok {
			in.File, in.Line = pos.File, pos.Line
		}
		out = append(out, in)
		off += in.Len
	}
	return out
}

// Starts returns the address of each instruction of the block [addr,
// addr+size), decoded as the emulator's decoder does.
func (c *Code) Starts(addr uint64, size uint32) []uint64 {
	var out []uint64
	for _, in := range c.Disassemble(addr, addr+uint64(size)) {
		out = append(out, in.Addr)
	}
	return out
}

func (c *Code) decode(code []byte, pc uint64) (int, string) {
	if c.arch == emu.ARM64 {
		if len(code) < 4 {
			return len(code), fmt.Sprintf(".byte % x", code)
		}
		inst, err := arm64asm.Decode(code)
		if err != nil {
			return 4, fmt.Sprintf(".inst %#08x", uint32(code[0])|uint32(code[1])<<8|uint32(code[2])<<16|uint32(code[3])<<24)
		}
		return 4, strings.ToLower(arm64asm.GNUSyntax(inst))
	}
	n, err := x86Len(code)
	if err != nil {
		return len(code), fmt.Sprintf(".byte % x", code)
	}
	inst, err := x86asm.Decode(code[:n], 64)
	if err != nil || inst.Op == 0 {
		if n == 4 && string(code[:4]) == "\xf3\x0f\x1e\xfa" {
			return n, "endbr64"
		}
		return n, fmt.Sprintf("nop (hint % x)", code[:n])
	}
	// Name call and jump targets that are function entries; a data
	// address near a function is not in it.
	sym := func(addr uint64) (string, uint64) {
		if f, ok := c.code.Function(addr); ok && f.Start == addr {
			return f.Name, f.Start
		}
		return "", 0
	}
	return n, x86asm.GNUSyntax(inst, pc, sym)
}
