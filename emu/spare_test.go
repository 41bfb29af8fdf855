package emu

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// spareProgram is a guest program of the spare tests: code at addresses,
// with its instructions' start addresses, so that its blocks are counted
// exactly, and the pages mapped for it.
type spareProgram struct {
	arch   Arch
	code   map[uint64][]byte // address: bytes
	starts []uint64          // every instruction's address, ascending
	pages  map[uint64]Prot   // page: permissions
}

// blockInfo counts the instructions of a block from the program's starts.
func (p *spareProgram) blockInfo(_ uint32, addr uint64, size uint32) BlockInfo {
	n := uint32(0)
	for _, s := range p.starts {
		if s >= addr && s < addr+uint64(size) {
			n++
		}
	}
	return BlockInfo{Instructions: n}
}

// wholeBefore is Hooks.WholeBefore from the program's starts, which
// follow each other from pc on.
func (p *spareProgram) wholeBefore(pc, limit uint64) uint64 {
	end := pc
	for i, s := range p.starts {
		if s >= pc && i+1 < len(p.starts) && p.starts[i+1] <= limit {
			end = p.starts[i+1]
		}
	}
	return end
}

// hooks returns the hooks of a CPU running p: a system call (svc on
// arm64) stops it.
func (p *spareProgram) hooks(c **CPU) Hooks {
	return Hooks{
		NewBlock:    p.blockInfo,
		WholeBefore: p.wholeBefore,
		Syscall:     func() { (*c).Stop() },
		Interrupt:   func(intno uint32) bool { (*c).Stop(); return intno == 2 },
	}
}

// load maps and fills p in c.
func (p *spareProgram) load(t *testing.T, c *CPU) {
	t.Helper()
	for page, prot := range p.pages {
		if err := c.Map(page, PageSize, prot); err != nil {
			t.Fatal(err)
		}
	}
	for addr, b := range p.code {
		if err := c.Write(addr, b); err != nil {
			t.Fatal(err)
		}
	}
}

// executed sums the instructions c's block table counted.
func executed(c *CPU) uint64 {
	var n uint64
	for _, b := range c.Blocks() {
		n += b.Executions*uint64(b.Instructions) - b.Cut
	}
	return n
}

// spareRun runs p on a new CPU from spare (nil: New) from pc, and returns
// the CPU, and the run's error.
func spareRun(t *testing.T, p *spareProgram, spare *Spare, pc uint64, opts Options) (*CPU, error) {
	t.Helper()
	var c *CPU
	c = cpuFrom(t, spare, p.arch, p.hooks(&c), opts)
	t.Cleanup(c.Close)
	p.load(t, c)
	return c, c.Run(pc, p.locate)
}

// cpuFrom makes a CPU of arch with hooks and opts, from spare (nil: New).
func cpuFrom(t testing.TB, spare *Spare, arch Arch, hooks Hooks, opts Options) *CPU {
	t.Helper()
	var c *CPU
	var err error
	if spare == nil {
		c, err = New(arch, hooks, opts)
	} else {
		c, err = spare.CPU(hooks, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// locate is the Locator of p's blocks: the instruction at f.PC did not
// complete, and those after it in the block did not run.
func (p *spareProgram) locate(b Block, f *Fault) (uint64, uint32) {
	n := uint32(0)
	for _, s := range p.starts {
		if s >= f.PC && s < b.Addr+uint64(b.Size) {
			n++
		}
	}
	return f.PC, n
}

// keep makes c a spare, and checks that it keeps code of pages pages.
func keep(t *testing.T, c *CPU, pages int) *Spare {
	t.Helper()
	s, err := c.Spare()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if got := int(s.c.mem.unsettled); got != pages {
		t.Errorf("the spare keeps code of %d pages, want %d", got, pages)
	}
	return s
}

// x86Add is mov $a, %eax; add $2, %eax; syscall at 0x10000.
func x86Add(a byte) *spareProgram {
	return &spareProgram{arch: X86_64,
		code:   map[uint64][]byte{0x10000: {0xb8, a, 0, 0, 0, 0x83, 0xc0, 0x02, 0x0f, 0x05}},
		starts: []uint64{0x10000, 0x10005, 0x10008, 0x1000a},
		pages:  map[uint64]Prot{0x10000: ProtRead | ProtExec}}
}

// arm64Add is mov x0, #a; add x0, x0, #2; svc #0 at 0x10000.
func arm64Add(a uint32) *spareProgram {
	var code []byte
	for _, insn := range []uint32{0xd2800000 | a<<5, 0x91000800, 0xd4000001} {
		code = binary.LittleEndian.AppendUint32(code, insn)
	}
	return &spareProgram{arch: ARM64, code: map[uint64][]byte{0x10000: code},
		starts: []uint64{0x10000, 0x10004, 0x10008, 0x1000c},
		pages:  map[uint64]Prot{0x10000: ProtRead | ProtExec}}
}

// TestSpareSameAndChangedCode runs a program, keeps its CPU as a spare,
// and runs on new CPUs from it the same program (its code kept) and one
// that differs in one byte (its code discarded: a stale translation
// would compute the first program's result), on both architectures. Each
// new CPU counts its own run alone, exactly.
func TestSpareSameAndChangedCode(t *testing.T) {
	for _, tc := range []struct {
		name        string
		same, other *spareProgram
		result      Reg
	}{
		{"x86-64", x86Add(1), x86Add(7), X86RAX},
		{"arm64", arm64Add(1), arm64Add(7), ARM64X0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first, err := spareRun(t, tc.same, nil, 0x10000, Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := keep(t, first, 1)
			again, err := spareRun(t, tc.same, s, 0x10000, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := again.Reg(tc.result); got != 3 {
				t.Errorf("the same program on the spare computes %d, want 3", got)
			}
			if n := executed(again); n != 3 {
				t.Errorf("the spare's new CPU counted %d instructions, want 3", n)
			}
			if n := again.mem.unsettled; n != 0 {
				t.Errorf("%d pages left suspect after running from them", n)
			}
			other, err := spareRun(t, tc.other, keep(t, again, 1), 0x10000, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := other.Reg(tc.result); got != 9 {
				t.Errorf("a changed program on the spare computes %d, want 9 (3: the old code ran)", got)
			}
			if n := executed(other); n != 3 {
				t.Errorf("the spare's new CPU counted %d instructions, want 3", n)
			}
			// A spare's block hook is the one its code calls: a limited
			// CPU needs a limited one's spare.
			limit := Options{MaxInstructions: 1}
			if keep(t, other, 1).Fits(limit) {
				t.Errorf("a spare of an unlimited CPU fits a limited one")
			}
			limited, err := spareRun(t, tc.other, nil, 0x10000, limit)
			if !errors.Is(err, ErrInstructionLimit) {
				t.Fatalf("a run limited to 1 instruction ended with %v", err)
			}
			limited, err = spareRun(t, tc.other, keep(t, limited, 1), 0x10000, limit)
			if !errors.Is(err, ErrInstructionLimit) {
				t.Fatalf("a run limited to 1 instruction on a spare ended with %v", err)
			}
			if got := limited.Reg(tc.result); got != 7 || executed(limited) != 1 {
				t.Errorf("after 1 instruction: %d, %d instructions counted; want 7, 1", got, executed(limited))
			}
		})
	}
}

// TestSpareKeepsKept runs code of two pages, then on a spare of only the
// second: the first is left unsettled, and the second, settled and kept,
// is kept for the next spare too, like code the program translated.
func TestSpareKeepsKept(t *testing.T) {
	// jmp 0x11000; ...; 0x11000: mov $1, %eax; syscall
	p := &spareProgram{arch: X86_64,
		code:   map[uint64][]byte{0x10000: {0xe9, 0xfb, 0x0f, 0, 0}, 0x11000: {0xb8, 1, 0, 0, 0, 0x0f, 0x05}},
		starts: []uint64{0x10000, 0x11000, 0x11005, 0x11007},
		pages:  map[uint64]Prot{0x10000: ProtRead | ProtExec, 0x11000: ProtRead | ProtExec},
	}
	c, err := spareRun(t, p, nil, 0x10000, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pc := range []uint64{0x11000, 0x10000} {
		if c, err = spareRun(t, p, keep(t, c, 2), pc, Options{}); err != nil {
			t.Fatal(err)
		}
		if got := c.Reg(X86RAX); got != 1 {
			t.Errorf("eax %d, want 1", got)
		}
	}
}

// TestSpareWatchBeforeRun discards, before the new program runs, code at
// an address of a suspect page the program does not run (a counter watch
// discards the code at its address, as the loader's do): the emulator
// finds it by translating the address as a fetch, which the TLB must not
// keep, so that the program's own fetch still settles the page, changed.
func TestSpareWatchBeforeRun(t *testing.T) {
	first, err := spareRun(t, x86Add(1), nil, 0x10000, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := x86Add(7)
	var c *CPU
	c, err = keep(t, first, 1).CPU(p.hooks(&c), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	p.load(t, c)
	if _, err := c.WatchCounterAt(0x10800, 2); err != nil {
		t.Fatal(err)
	}
	if err := c.Run(0x10000, p.locate); err != nil {
		t.Fatal(err)
	}
	if got := c.Reg(X86RAX); got != 9 {
		t.Errorf("a changed program on the spare computes %d, want 9 (3: the old code ran)", got)
	}
}

// x86Crossing is a loop whose block runs from one page into the next:
// mov $3, %edx; jmp 1f (a jump within the page, which the emulator chains
// to its target's translation); 1: add $1, %eax; dec %edx; then, from
// 0x10fff on, what next holds.
func x86Crossing(next []byte, nextStarts []uint64, nextProt Prot) *spareProgram {
	p := &spareProgram{arch: X86_64,
		code: map[uint64][]byte{
			0x10000: {0xba, 3, 0, 0, 0, 0xe9, 0xf0, 0x0f, 0, 0},
			0x10ffa: {0x83, 0xc0, 0x01, 0xff, 0xca},
			0x10fff: next,
		},
		starts: append([]uint64{0x10000, 0x10005, 0x10ffa, 0x10ffd, 0x10fff}, nextStarts...),
		pages:  map[uint64]Prot{0x10000: ProtRead | ProtExec, 0x11000: nextProt},
	}
	return p
}

// TestSpareNextPage runs, on a spare, a block that starts in a page whose
// code is kept and ends in the next page, which changed, entered by a jump
// from a block of the first page (which the emulator does not chain to a
// block of two pages): the new code runs; or, when the next page is not
// executable now, the block faults there.
func TestSpareNextPage(t *testing.T) {
	// jnz 1b; syscall
	loop := x86Crossing([]byte{0x0f, 0x85, 0xf5, 0xff, 0xff, 0xff, 0x0f, 0x05}, []uint64{0x11005, 0x11007}, ProtRead|ProtExec)
	// seto %al; syscall
	seto := x86Crossing([]byte{0x0f, 0x90, 0xc0, 0x0f, 0x05}, []uint64{0x11002, 0x11004}, ProtRead|ProtExec)
	first, err := spareRun(t, loop, nil, 0x10000, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rax, rdx := first.Reg(X86RAX), first.Reg(X86RDX); rax != 3 || rdx != 0 {
		t.Fatalf("the loop ends with eax %d, edx %d; want 3, 0", rax, rdx)
	}
	c, err := spareRun(t, seto, keep(t, first, 2), 0x10000, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rax, rdx := c.Reg(X86RAX), c.Reg(X86RDX); rax != 0 || rdx != 2 {
		t.Errorf("with the next page changed: eax %d, edx %d; want 0, 2 (3, 0: the old code ran)", rax, rdx)
	}
	if n := executed(c); n != 6 {
		t.Errorf("%d instructions counted, want 6", n)
	}

	// The loop again, then with the next page not executable.
	first, err = spareRun(t, loop, nil, 0x10000, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err = spareRun(t, x86Crossing(loop.code[0x10fff], []uint64{0x11005, 0x11007}, ProtRead), keep(t, first, 2), 0x10000, Options{})
	var f *Fault
	if !errors.As(err, &f) || f.Kind != FaultFetch || f.PC != 0x10fff || f.Addr != 0x11000 {
		t.Fatalf("with the next page not executable the run ended with %v, want a fetch fault at 0x10fff", err)
	}
	if rax, rdx := c.Reg(X86RAX), c.Reg(X86RDX); rax != 1 || rdx != 2 {
		t.Errorf("at the fault: eax %d, edx %d; want 1, 2", rax, rdx)
	}
}

// TestSpareStoreIntoKeptCode runs, on a spare, code kept from the run
// before that the new program then overwrites: a kept page is marked as
// holding code, so that the store discards it.
func TestSpareStoreIntoKeptCode(t *testing.T) {
	// movb $5, 0x10011(%rip); jmp 1f; ...; 1: mov $1, %eax; syscall
	p := &spareProgram{arch: X86_64,
		code: map[uint64][]byte{
			0x10000: {0xc6, 0x05, 0x0a, 0, 0, 0, 0x05, 0xeb, 0x07},
			0x10010: {0xb8, 0x01, 0, 0, 0, 0x0f, 0x05},
		},
		starts: []uint64{0x10000, 0x10007, 0x10010, 0x10015, 0x10017},
		pages:  map[uint64]Prot{0x10000: ProtRead | ProtWrite | ProtExec},
	}
	first, err := spareRun(t, p, nil, 0x10010, Options{}) // without the store
	if err != nil {
		t.Fatal(err)
	}
	if got := first.Reg(X86RAX); got != 1 {
		t.Fatalf("eax %d, want 1", got)
	}
	c, err := spareRun(t, p, keep(t, first, 1), 0x10000, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Reg(X86RAX); got != 5 {
		t.Errorf("after a store into code kept: eax %d, want 5 (1: the old code ran)", got)
	}
	if n := executed(c); n != 4 {
		t.Errorf("%d instructions counted, want 4", n)
	}
}

// TestSpareRegisters checks that a CPU from a spare starts with the
// registers of a new one, whatever the program before left in them.
func TestSpareRegisters(t *testing.T) {
	// mov $5, %ebx; pcmpeqd %xmm3, %xmm3; fld1; syscall, after the FS
	// base, MXCSR and RSP are set from Go
	p := &spareProgram{arch: X86_64,
		code:   map[uint64][]byte{0x10000: {0xbb, 5, 0, 0, 0, 0x66, 0x0f, 0x76, 0xdb, 0xd9, 0xe8, 0x0f, 0x05}},
		starts: []uint64{0x10000, 0x10005, 0x10009, 0x1000b, 0x1000d},
		pages:  map[uint64]Prot{0x10000: ProtRead | ProtExec},
	}
	fresh := newTestCPU(t, X86_64)
	var first *CPU
	first, err := New(X86_64, p.hooks(&first), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(first.Close)
	p.load(t, first)
	first.SetReg(X86FSBase, 0x7000)
	first.SetReg(X86MXCSR, 0x9f80)
	first.SetReg(X86RSP, 0x8000)
	if err := first.Run(0x10000, nil); err != nil {
		t.Fatal(err)
	}
	var c *CPU
	c, err = keep(t, first, 1).CPU(p.hooks(&c), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	regs := []Reg{X86RAX, X86RBX, X86RCX, X86RDX, X86RSI, X86RDI, X86RBP, X86RSP, X86R8, X86R11, X86R15,
		X86RIP, X86EFLAGS, X86FSBase, X86GSBase, X86MXCSR, X86FPCW, X86FPSW, X86FPTAG}
	for _, r := range regs {
		if got, want := c.Reg(r), fresh.Reg(r); got != want {
			t.Errorf("register %d: %#x, want %#x as on a new CPU", r, got, want)
		}
	}
	for _, r := range []struct {
		reg Reg
		n   int
	}{{X86XMM(3), 16}, {X86ST(0), 10}} {
		if got, want := c.RegBytes(r.reg, r.n), fresh.RegBytes(r.reg, r.n); !bytes.Equal(got, want) {
			t.Errorf("register %d: %x, want %x as on a new CPU", r.reg, got, want)
		}
	}
	var b [1]byte
	if err := c.Read(0x10000, b[:]); err == nil {
		t.Errorf("the program before's memory is still mapped")
	}
}

// BenchmarkSpare runs 20,000 distinct blocks once on a new CPU, and on a
// CPU from a spare that ran them: the second need not translate them.
func BenchmarkSpare(b *testing.B) {
	const n = 20000
	code := manyBlocks(n)
	run := func(b *testing.B, s *Spare) *CPU {
		var c *CPU
		hooks := Hooks{
			NewBlock: func(_ uint32, _ uint64, size uint32) BlockInfo {
				if size == 2 {
					return BlockInfo{Instructions: 1}
				}
				return BlockInfo{Instructions: 2}
			},
			Syscall: func() { c.Stop() },
		}
		c = cpuFrom(b, s, X86_64, hooks, Options{})
		loadManyBlocks(b, c, code, 1)
		if err := c.Run(0x10000, nil); err != nil {
			b.Fatal(err)
		}
		if got := c.Reg(X86RAX); got != n {
			b.Fatalf("rax = %d, want %d", got, n)
		}
		return c
	}
	b.Run("new", func(b *testing.B) {
		for range b.N {
			run(b, nil).Close()
		}
	})
	b.Run("spare", func(b *testing.B) {
		s, err := run(b, nil).Spare()
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			if s, err = run(b, s).Spare(); err != nil {
				b.Fatal(err)
			}
		}
		s.Close()
	})
}

// TestSpareForgetsSiteCode hooks a site in the middle of a block (a bsf
// of a zero source, which leaves its destination whole on hardware), then
// runs the same code on a spare of the CPU without the site. Unicorn
// discards on unhooking only the blocks that start in the hook's range,
// and a lone code hook is called directly with its user data: the kept
// block would call the freed site. Unhooking a site discards the code
// translated at it, as hooking it did, so the block is translated anew
// without the hook and computes what the emulator computes alone.
func TestSpareForgetsSiteCode(t *testing.T) {
	// nop; bsf %ecx, %eax; syscall
	p := &spareProgram{arch: X86_64,
		code:   map[uint64][]byte{0x10000: {0x90, 0x0f, 0xbc, 0xc1, 0x0f, 0x05}},
		starts: []uint64{0x10000, 0x10001, 0x10004, 0x10006},
		pages:  map[uint64]Prot{0x10000: ProtRead | ProtExec}}
	const whole = 0x1122_3344_5566_7788
	run := func(spare *Spare, site bool) *CPU {
		t.Helper()
		var c *CPU
		hooks := p.hooks(&c)
		hooks.NewBlock = func(id uint32, addr uint64, size uint32) BlockInfo {
			info := p.blockInfo(id, addr, size)
			if site && addr == 0x10000 {
				added, err := c.AddSite(Site{PC: 0x10001, Len: 3, Kind: SiteBitScan32, Reg: X86RAX})
				if err != nil {
					t.Error(err)
				}
				info.Restart = added
			}
			return info
		}
		c = cpuFrom(t, spare, X86_64, hooks, Options{})
		t.Cleanup(c.Close)
		p.load(t, c)
		c.SetReg(X86RAX, whole)
		c.SetReg(X86RCX, 0)
		if err := c.Run(0x10000, p.locate); err != nil {
			t.Fatal(err)
		}
		return c
	}
	first := run(nil, true)
	if got := first.Reg(X86RAX); got != whole {
		t.Fatalf("with the site, bsf of zero left RAX %#x, want %#x", got, uint64(whole))
	}
	again := run(keep(t, first, 1), false)
	if got := again.Reg(X86RAX); got != whole&0xffff_ffff {
		t.Errorf("without the site, bsf of zero left RAX %#x, want the emulator's own %#x: code translated with the unhooked site ran", got, uint64(whole&0xffff_ffff))
	}
	if n := executed(again); n != 3 {
		t.Errorf("the spare's new CPU counted %d instructions, want 3", n)
	}
}
