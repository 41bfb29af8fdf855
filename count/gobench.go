package count

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/arch/x86/x86asm"
)

// Go benchmarks as parts: a Go test binary (go test -c) runs each
// benchmark function through testing.(*B).runN(n), once with n = 1 (the
// probe run that tells whether the benchmark works) and then with b.N
// iterations (once for -benchtime=Nx, several times when it calibrates to
// a time, once per -count). Each run is a part: from runN's call of the
// benchmark function (its one indirect call made before any other) to the
// return from it, named by the function called (its package left out),
// with its iterations: b.N as the run ends (a benchmark using b.Loop does
// all its iterations in one run of n = 1, and sets b.N to their number),
// read at the offset the binary's DWARF gives testing.B's field N; without
// DWARF, n, read from runN's second argument as it is entered (the Go
// internal ABI's second integer register: RBX on amd64, R1 on arm64).
// Three probes find them, hooked where the decoder first meets their
// blocks: runN's entry, its indirect calls, and the instructions they
// return to.

// goRunN is the function that runs a benchmark function b.N times.
const goRunN = "testing.(*B).runN"

// goBench is an image's Go benchmark runs.
type goBench struct {
	pc   *partCounter
	runN uint64 // runN's entry
	// roles says what each probe is; n is runN's argument since its last
	// entry, until an indirect call of runN takes it (pending).
	roles   map[uint64]probeRole
	n       uint64
	pending bool
	open    []goRun // the runs begun and not ended, innermost last
	// nField is the offset of testing.B's field N, -1 if unknown.
	nField int64
	// shared names the runs during which another thread ran.
	shared []string
}

type probeRole uint8

const (
	probeEntry  probeRole = iota + 1 // runN's entry
	probeCall                        // an indirect call in runN
	probeReturn                      // where such a call returns
)

// goRun is a run of a benchmark function, begun and not yet ended.
type goRun struct {
	name  string
	n     uint64 // runN's argument
	b     uint64 // the *testing.B it runs
	ret   uint64 // where its call returns
	start counts
	// switches is the image's thread switches as it began.
	switches uint64
	// nested says that another run began within it: a benchmark that runs
	// sub-benchmarks (b.Run), whose runs are the parts.
	nested bool
}

// newGoBench returns the Go benchmark runs of an image whose main module
// is a Go test binary (it has runN), nil for any other.
func newGoBench(pc *partCounter, mods *modules) *goBench {
	entry, ok := mods.main.code.Entry(goRunN)
	if !ok {
		return nil
	}
	nField := int64(-1)
	if off, ok := mods.main.obj.FieldOffset("testing.B", "N"); ok {
		nField = off
	}
	return &goBench{pc: pc, runN: entry, roles: map[uint64]probeRole{}, nField: nField}
}

// probes returns the probes of a block the decoder meets for the first
// time (code at addr, instructions at starts, ending as end): runN's
// entry, and an indirect call of runN ending the block with the
// instruction it returns to.
func (g *goBench) probes(arch emu.Arch, fn, addr uint64, code []byte, starts []uint32, end emu.BlockEnd) []emu.Site {
	if fn != g.runN || len(starts) == 0 {
		return nil
	}
	var out []emu.Site
	if addr == g.runN {
		g.roles[addr] = probeEntry
		out = append(out, emu.Site{PC: addr, Len: 1, Kind: emu.SiteProbe})
	}
	last := starts[len(starts)-1]
	if end == emu.EndCall {
		if _, ok := callTarget(arch, code[last:]); ok {
			call, ret := addr+uint64(last), addr+uint64(len(code))
			g.roles[call], g.roles[ret] = probeCall, probeReturn
			out = append(out, emu.Site{PC: call, Len: len(code) - int(last), Kind: emu.SiteProbe},
				emu.Site{PC: ret, Len: 1, Kind: emu.SiteProbe})
		}
	}
	return out
}

// callTarget returns the register an indirect call through a register
// jumps to (call *%reg, blr xN), false for any other instruction.
func callTarget(arch emu.Arch, insn []byte) (emu.Reg, bool) {
	if arch == emu.ARM64 {
		if len(insn) < 4 {
			return 0, false
		}
		w := binary.LittleEndian.Uint32(insn)
		if w&0xfffffc1f != 0xd63f0000 { // blr xN
			return 0, false
		}
		return emu.ARM64X(int(w >> 5 & 31)), true
	}
	inst, err := x86asm.Decode(insn, 64)
	if err != nil || inst.Op != x86asm.CALL {
		return 0, false
	}
	r, ok := inst.Args[0].(x86asm.Reg)
	if !ok || gpr64(r) == 0 {
		return 0, false
	}
	return gpr64(r), true
}

// probe is the hook of a probe at pc.
func (g *goBench) probe(pc uint64) {
	cpu := g.pc.im.cpu
	switch g.roles[pc] {
	case probeEntry:
		reg := emu.X86RBX
		if cpu.Arch() == emu.ARM64 {
			reg = emu.ARM64X(1)
		}
		g.n, g.pending = cpu.Reg(reg), true
	case probeCall:
		if !g.pending {
			return // runN's deferred calls
		}
		g.pending = false
		code := make([]byte, 15)
		n := 15
		for n > 0 && cpu.Read(pc, code[:n]) != nil {
			n-- // the call may end just before unreadable memory
		}
		reg, ok := callTarget(cpu.Arch(), code[:n])
		if !ok {
			return
		}
		if len(g.open) > 0 {
			g.open[len(g.open)-1].nested = true
		}
		mods := g.pc.im.mods
		name := benchmarkName(mods.nameOf(mods.entry(cpu.Reg(reg))).name)
		// The call is the last instruction of its block, which was counted
		// whole: the run starts after it. The *testing.B is the first
		// argument (RAX, R0).
		bReg := emu.X86RAX
		if cpu.Arch() == emu.ARM64 {
			bReg = emu.ARM64X(0)
		}
		g.open = append(g.open, goRun{name: name, n: g.n, b: cpu.Reg(bReg), ret: pc + uint64(insnLen(cpu.Arch(), code[:n])),
			start: g.pc.im.readCounts(false).counts, switches: g.pc.switches})
	case probeReturn:
		if len(g.open) == 0 || g.open[len(g.open)-1].ret != pc {
			return
		}
		run := g.open[len(g.open)-1]
		g.open = g.open[:len(g.open)-1]
		if run.nested {
			return // its sub-benchmarks' runs are the parts
		}
		// The block returned to was counted as it was entered: the run
		// ends before it.
		r := g.pc.im.readCounts(true)
		if g.pc.switches != run.switches {
			g.shared = append(g.shared, run.name)
		}
		g.pc.parts = append(g.pc.parts, g.pc.im.countPart(run.name, g.iterations(run), r.counts.minus(run.start), r.blocks, r.tree))
	}
}

// iterations is b.N of a run as it ends; n when it cannot be read.
func (g *goBench) iterations(run goRun) uint64 {
	if g.nField < 0 {
		return run.n
	}
	var word [8]byte
	if g.pc.im.cpu.Read(run.b+uint64(g.nField), word[:]) != nil {
		return run.n
	}
	if n := int64(binary.LittleEndian.Uint64(word[:])); n > 0 {
		return uint64(n)
	}
	return run.n
}

// insnLen is the length of the instruction at the start of code.
func insnLen(arch emu.Arch, code []byte) int {
	if arch == emu.ARM64 {
		return 4
	}
	inst, err := x86asm.Decode(code, 64)
	if err != nil {
		return 0
	}
	return inst.Len
}

// warnings says which runs shared the CPU with other threads (the Go
// runtime's monitor, its garbage collector's workers): their work is in
// those runs' counts, which then do not grow exactly with b.N.
func (g *goBench) warnings() []string {
	if len(g.shared) == 0 {
		return nil
	}
	names := slices.Compact(slices.Sorted(slices.Values(g.shared)))
	return []string{fmt.Sprintf("other threads ran during %d of the Go benchmark runs (of %s): their work is counted in those runs, whose counts then do not grow exactly with b.N; a --quantum longer than a run (--quantum 1000000000) lets a run go on alone until it blocks",
		len(g.shared), strings.Join(names, ", "))}
}

// finish drops the runs that never returned (a benchmark that failed,
// leaving by runtime.Goexit).
func (g *goBench) finish() { g.open = nil }

// benchmarkName is a benchmark function's name as go test prints it: its
// symbol without the package path ("example.com/pkg.BenchmarkSort" is
// BenchmarkSort; a sub-benchmark's closure is BenchmarkSort.func1).
func benchmarkName(symbol string) string {
	s := symbol[strings.LastIndex(symbol, "/")+1:]
	if i := strings.Index(s, "."); i >= 0 && i+1 < len(s) {
		return s[i+1:]
	}
	return s
}
