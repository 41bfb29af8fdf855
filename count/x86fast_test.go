package count

import (
	"debug/elf"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/arch/x86/x86asm"
)

// fastMismatch says how x86Fast's decoding of the instruction at the start
// of code differs from x86asm's (x86DecodeKind, classifyX86, blockEndX86,
// sitesX86, fidelityX86), "" if it does not claim the instruction or
// decodes it as x86asm does.
func fastMismatch(code []byte) string {
	n, k, end, ok := x86Fast(code)
	if !ok {
		return ""
	}
	inst, n2, k2, err := x86DecodeKind(code)
	switch {
	case err != nil:
		return fmt.Sprintf("x86Fast gives length %d, x86asm fails: %v", n, err)
	case n != n2 || k != k2:
		return fmt.Sprintf("x86Fast gives length %d kind %#x, x86asm %d %#x (%v)", n, k, n2, k2, inst)
	case end != blockEndX86(inst):
		return fmt.Sprintf("x86Fast gives end %v, x86asm %v (%v)", end, blockEndX86(inst), inst)
	}
	if s := sitesX86(code[:n], []uint32{0}, []x86asm.Inst{inst}, 0x1000); len(s) > 0 {
		return fmt.Sprintf("x86Fast claims a site: %+v (%v)", s, inst)
	}
	if f := classifyFidelity(emu.X86_64, []x86asm.Inst{inst}); len(f) > 0 {
		return fmt.Sprintf("x86Fast claims a fidelity entry: %v (%v)", f, inst)
	}
	return ""
}

// fastPrefixes are the prefix sequences the exhaustive test puts before
// each opcode, the first six with every ModRM, the others with the ModRM
// of fastModRMs: each legacy prefix alone, the pairs whose order or
// conflict x86asm resolves by its own rules, repetitions, and long runs.
var fastPrefixes = [][]byte{
	{}, {0x66}, {0x67}, {0xf0}, {0xf2}, {0xf3},
	{0x2e}, {0x3e}, {0x26}, {0x36}, {0x64}, {0x65},
	{0x66, 0xf2}, {0xf2, 0x66}, {0x66, 0xf3}, {0xf3, 0x66}, {0xf2, 0xf3}, {0xf3, 0xf2}, {0xf3, 0xf3},
	{0x66, 0x66}, {0x67, 0x66}, {0xf0, 0x66}, {0x66, 0xf0}, {0xf0, 0xf3}, {0xf2, 0xf0}, {0x64, 0x66},
	{0x66, 0x2e}, {0x66, 0x66, 0x2e}, {0x67, 0xf3}, {0xf0, 0x67}, {0x64, 0x67},
	{0x66, 0xf3, 0xf0, 0x64, 0x67}, {0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x2e},
	{0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x2e}, // 14: x86asm's most
}

// fastModRMs are the ModRM bytes tried with the longer prefix sequences:
// every reg field, every mod, and the three rm that decode differently
// (SIB, RIP-relative or no base, the others).
var fastModRMs = func() []byte {
	var out []byte
	for mod := range 4 {
		for reg := range 8 {
			for _, rm := range []int{0, 4, 5} {
				out = append(out, byte(mod<<6|reg<<3|rm))
			}
		}
	}
	return out
}()

// fastREX are the REX prefixes the exhaustive test tries: none, and W;
// R, X and B are tried without legacy prefixes and with 66 and F3.
var fastREX = []byte{0, 0x40, 0x48}
var fastREXMore = []byte{0x41, 0x42, 0x44, 0x4c, 0x4f}

// TestX86FastMatchesX86asm: over every opcode of the four maps, the
// ModRM bytes (all, or fastModRMs), with a SIB with and without a base,
// after the prefix sequences of fastPrefixes and the REX prefixes,
// wherever x86Fast claims an instruction, x86asm decodes it to the same
// length, kind and block end, and it is neither an instruction site nor a
// fidelity entry.
func TestX86FastMatchesX86asm(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive: some seconds")
	}
	type combo struct {
		prefixes []byte
		rex      byte
		modrms   []byte
	}
	var all []byte
	for m := range 256 {
		all = append(all, byte(m))
	}
	var combos []combo
	for i, pre := range fastPrefixes {
		modrms := all
		if i >= 6 {
			modrms = fastModRMs
		}
		for _, rex := range fastREX {
			combos = append(combos, combo{pre, rex, modrms})
		}
	}
	for _, pre := range [][]byte{{}, {0x66}, {0xf3}} {
		for _, rex := range fastREXMore {
			combos = append(combos, combo{pre, rex, all})
		}
	}
	maps := []struct {
		name   string
		escape []byte
	}{{"1-byte", nil}, {"0F", []byte{0x0f}}, {"0F38", []byte{0x0f, 0x38}}, {"0F3A", []byte{0x0f, 0x3a}}}
	for _, m := range maps {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			claimed, failures := 0, 0
			buf := make([]byte, 0, 32)
			for op := range 256 {
				if len(m.escape) == 0 && op == 0x0f || len(m.escape) == 1 && (op == 0x38 || op == 0x3a) {
					continue // another map
				}
				reported := false
				for _, c := range combos {
					for _, modrm := range c.modrms {
						sibs := []byte{0x00}
						if modrm>>6 != 3 && modrm&7 == 4 {
							sibs = []byte{0x00, 0x25}
						}
						for _, sib := range sibs {
							buf = append(buf[:0], c.prefixes...)
							if c.rex != 0 {
								buf = append(buf, c.rex)
							}
							buf = append(buf, m.escape...)
							buf = append(buf, byte(op), modrm, sib)
							buf = append(buf, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc)
							n, k, end, ok := x86Fast(buf)
							if !ok {
								continue
							}
							claimed++
							// The instruction's bytes alone decode the
							// same, one byte fewer not at all.
							msg := fastMismatch(buf[:n])
							if n2, k2, end2, ok2 := x86Fast(buf[:n]); n2 != n || k2 != k || end2 != end || !ok2 {
								msg = fmt.Sprintf("x86Fast of its %d bytes alone gives %d %#x %v %v", n, n2, k2, end2, ok2)
							}
							if _, _, _, ok := x86Fast(buf[:n-1]); ok {
								msg = "x86Fast claims it without its last byte"
							}
							if msg != "" && !reported {
								reported = true // the first of each opcode
								if failures++; failures <= 40 {
									t.Errorf("% x: %s", buf[:min(len(buf), 15)], msg)
								}
							}
						}
					}
				}
			}
			t.Logf("%s: x86Fast claims %d encodings", m.name, claimed)
		})
	}
}

// FuzzX86Fast: no byte string makes x86Fast claim an instruction x86asm
// decodes otherwise.
func FuzzX86Fast(f *testing.F) {
	for _, c := range [][]byte{
		{0x48, 0x8b, 0x05, 1, 2, 3, 4},
		{0xf3, 0x0f, 0x1e, 0xfa},
		{0x66, 0x0f, 0x6f, 0x44, 0x24, 0x10},
		{0xf0, 0x0f, 0xb1, 0x17},
		{0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0},
		{0xff, 0x24, 0xc5, 1, 2, 3, 4},
	} {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, code []byte) {
		if msg := fastMismatch(code); msg != "" {
			t.Errorf("% x: %s", code[:min(len(code), 15)], msg)
		}
	})
}

// realCode is the executable code of real programs, for the tests and
// benchmarks of x86Fast: each executable section of each file that
// exists, at most limit bytes of each.
func realCode(tb testing.TB, limit int) map[string][]byte {
	tb.Helper()
	paths := []string{"/usr/bin/python3.11", "/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1"}
	// The test programs: the assembly ones, and of the C ones those
	// linked with musl or dynamically and one with glibc (the others hold
	// the same glibc).
	for _, pattern := range []string{"amd64/*", "c/*-musl", "c/*-dynamic", "c/callgraph-glibc"} {
		built, _ := filepath.Glob(filepath.Join("..", "testdata", "build", pattern))
		paths = append(paths, built...)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		f, err := elf.Open(p)
		if err != nil {
			continue
		}
		if f.Machine != elf.EM_X86_64 {
			f.Close()
			continue
		}
		for _, s := range f.Sections {
			if s.Flags&elf.SHF_EXECINSTR == 0 || s.Type != elf.SHT_PROGBITS {
				continue
			}
			b, err := s.Data()
			if err != nil {
				tb.Fatalf("%s %s: %v", p, s.Name, err)
			}
			out[filepath.Base(p)+" "+s.Name] = b[:min(len(b), limit)]
		}
		f.Close()
	}
	if len(out) == 0 {
		tb.Skip("no x86-64 programs to read")
	}
	return out
}

// linearStarts decodes code linearly with x86asm from its start, a byte
// at a time past what it cannot decode, and returns where its
// instructions start.
func linearStarts(code []byte) []int {
	var starts []int
	for off := 0; off < len(code); {
		_, n, err := x86Decode(code[off:])
		if err != nil || n == 0 {
			off++
			continue
		}
		starts = append(starts, off)
		off += n
	}
	return starts
}

// TestX86FastRealCode: every instruction of the executable sections of
// real programs (python3, libc, gcc's cc1, the test programs), decoded
// linearly, is either not claimed by x86Fast or decoded as x86asm decodes
// it; and the blocks made of them (up to each control transfer, at most
// 40 instructions) decode to the same shape with x86Fast as with x86asm.
func TestX86FastRealCode(t *testing.T) {
	limit := 4 << 20
	if testing.Short() {
		limit = 256 << 10
	}
	code := realCode(t, limit)
	names := slices.Sorted(maps.Keys(code))
	for _, name := range names {
		c := code[name]
		starts := linearStarts(c)
		claimed, failures := 0, 0
		for _, off := range starts {
			if _, _, _, ok := x86Fast(c[off:]); ok {
				claimed++
			}
			if msg := fastMismatch(c[off:]); msg != "" {
				if failures++; failures <= 20 {
					t.Errorf("%s+%#x: % x: %s", name, off, c[off:min(off+15, len(c))], msg)
				}
			}
		}
		blocks, fast := 0, 0
		for _, blk := range realBlocks(c, starts) {
			blocks++
			if sameShapes(t, name, blk) {
				fast++
			}
		}
		if len(starts) > 0 {
			t.Logf("%s: %d instructions, %d (%.3f%%) not claimed by x86Fast; %d blocks, %d (%.3f%%) decoded with x86asm",
				name, len(starts), len(starts)-claimed, 100*float64(len(starts)-claimed)/float64(len(starts)),
				blocks, blocks-fast, 100*float64(blocks-fast)/float64(max(blocks, 1)))
		}
	}
}

// realBlocks cuts linearly decoded code into blocks as the emulator
// would: each ends after a control transfer or after 40 instructions,
// and runs of undecodable bytes end them too.
func realBlocks(code []byte, starts []int) [][]byte {
	var out [][]byte
	first, count := -1, 0
	for i, off := range starts {
		if first < 0 {
			first = off
		}
		count++
		inst, n, k, _ := x86DecodeKind(code[off:])
		end := off + n
		gap := i+1 < len(starts) && starts[i+1] != end
		transfer := k&(kBranch|kCall|kReturn|kSyscall) != 0 || blockEndX86(inst) != emu.EndPlain
		if transfer || gap || count == 40 || i == len(starts)-1 {
			out = append(out, code[first:end])
			first, count = -1, 0
		}
	}
	return out
}

// sameShapes decodes a block both ways, with decode (x86Fast first) and
// with x86asm alone, and reports any difference. It returns whether
// x86Fast decoded it.
func sameShapes(t *testing.T, name string, code []byte) bool {
	const addr = 0x401000
	d := newDecoder(emu.X86_64, nil, nil)
	fast := d.decode(code, addr)
	slow := &blockShape{code: code}
	d.decodeX86(slow, addr)
	if !reflect.DeepEqual(fast, slow) {
		t.Errorf("%s: block % x: decode gives %+v, x86asm %+v", name, code, fast, slow)
	}
	return d.decodeFastX86(&blockShape{code: code})
}

// BenchmarkX86Decode measures the decoding of real code (the first
// megabyte of python3's, libc's and cc1's .text): an instruction at a time
// by x86asm (x86DecodeKind) and by x86Fast (x86asm where it is not sure),
// in ns/inst, with the fraction x86Fast claims; and block by block (as
// realBlocks cuts them) by decode and by x86asm alone, in ns/block. Each
// also reports the process's CPU time (cpu-ns), which a machine busy with
// other work disturbs less.
func BenchmarkX86Decode(b *testing.B) {
	code := realCode(b, 1<<20)
	for _, name := range []string{"python3.11 .text", "libc.so.6 .text", "cc1 .text"} {
		c := code[name]
		if c == nil {
			continue
		}
		starts := linearStarts(c)
		blocks := realBlocks(c, starts)
		prog := name[:len(name)-len(" .text")]
		b.Run(prog+"/inst/x86asm", func(b *testing.B) {
			perUnit(b, len(starts), "inst", func() {
				for _, off := range starts {
					x86DecodeKind(c[off:])
				}
			})
		})
		b.Run(prog+"/inst/fast", func(b *testing.B) {
			claimed := 0
			perUnit(b, len(starts), "inst", func() {
				claimed = 0
				for _, off := range starts {
					if _, _, _, ok := x86Fast(c[off:]); ok {
						claimed++
					} else {
						x86DecodeKind(c[off:])
					}
				}
			})
			b.ReportMetric(float64(claimed)/float64(len(starts)), "claimed")
		})
		d := newDecoder(emu.X86_64, nil, nil)
		b.Run(prog+"/block/x86asm", func(b *testing.B) {
			perUnit(b, len(blocks), "block", func() {
				for _, blk := range blocks {
					d.decodeX86(&blockShape{code: blk}, 0x401000)
				}
			})
		})
		b.Run(prog+"/block/decode", func(b *testing.B) {
			perUnit(b, len(blocks), "block", func() {
				for _, blk := range blocks {
					d.decode(blk, 0x401000)
				}
			})
		})
	}
}

// perUnit runs f, which handles n units, as many times as the benchmark
// asks and reports the wall and CPU time per unit.
func perUnit(b *testing.B, n int, unit string, f func()) {
	loops, start, cpu := 0, time.Now(), processCPU(b)
	for b.Loop() {
		f()
		loops++
	}
	total := float64(loops * n)
	b.ReportMetric(float64(time.Since(start))/total, "ns/"+unit)
	b.ReportMetric(float64(processCPU(b)-cpu)/total, "cpu-ns/"+unit)
}
