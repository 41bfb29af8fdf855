package emu

import (
	"fmt"

	"github.com/icount-dev/icount/fixedclock"
)

// The x86-64 CPU the guest sees through cpuid. It is Unicorn's qemu64 as
// Unicorn 2.1.1 reports it (measured leaf by leaf), served from this table
// by a cpuid hook so that it can never change under a program, with these
// changes:
//   - RDRAND and RDSEED are hidden (they would read the host's entropy);
//   - SVM is hidden (nothing of it runs in a user-mode guest) and its leaf
//     0x8000000a reads as zeros;
//   - RDTSCP is advertised: icount emulates it, like rdtsc, from the clock;
//   - the TSC is invariant (0x80000007 EDX bit 8) and its nominal frequency
//     is reported in leaves 0x15 (ratio to a 25 MHz crystal) and 0x16 (base
//     and maximum MHz), so the highest basic leaf is 0x16; leaves 0xe to
//     0x14 read as zeros, as a CPU without those features reports them.
//
// Every feature the table advertises executes on the emulated CPU.

// cpuidLeaf is one leaf (and subleaf) of the table.
type cpuidLeaf struct {
	leaf, sub          uint32
	eax, ebx, ecx, edx uint32
}

// Feature bits changed from the qemu64 model.
const (
	cpuid1ECXRDRAND  = 1 << 30
	cpuid7EBXRDSEED  = 1 << 18
	cpuidExtECXSVM   = 1 << 2
	cpuidExtEDXRDTSC = 1 << 27 // RDTSCP
	cpuidInvariantTS = 1 << 8  // 0x80000007 EDX
)

// tscCrystalHz is the crystal clock of leaf 0x15; the TSC runs at
// tscRatio times it.
const (
	tscCrystalHz = 25_000_000
	tscRatio     = uint32(fixedclock.TSCHz / tscCrystalHz)
	tscMHz       = uint32(fixedclock.TSCHz / 1_000_000)
)

// subleafed lists the leaves whose output depends on ECX.
var subleafed = map[uint32]bool{4: true, 7: true, 0xb: true, 0xd: true}

var cpuidTable = []cpuidLeaf{
	{0x0, 0, 0x16, 0x68747541, 0x444d4163, 0x69746e65}, // "AuthenticAMD"
	{0x1, 0, 0x00000663, 0x00000800, 0x80002001 &^ cpuid1ECXRDRAND, 0x078bfbfd},
	{0x2, 0, 0x00000001, 0, 0, 0x002c307d},
	{0x4, 0, 0x00000121, 0x01c0003f, 0x0000003f, 0x00000001},
	{0x4, 1, 0x00000122, 0x01c0003f, 0x0000003f, 0x00000001},
	{0x4, 2, 0x00000143, 0x03c0003f, 0x00000fff, 0x00000001},
	{0x5, 0, 0, 0, 0x00000003, 0},
	{0x7, 0, 0, 0 &^ cpuid7EBXRDSEED, 0, 0},
	{0x15, 0, 1, tscRatio, tscCrystalHz, 0},
	{0x16, 0, tscMHz, tscMHz, 100, 0},
	{0x80000000, 0, 0x8000000a, 0x68747541, 0x444d4163, 0x69746e65},
	{0x80000001, 0, 0x00000663, 0, 0x00000005 &^ cpuidExtECXSVM, 0x2193fbfd | cpuidExtEDXRDTSC},
	{0x80000002, 0, 0x554d4551, 0x72695620, 0x6c617574, 0x55504320}, // "QEMU Virtual CPU"
	{0x80000003, 0, 0x72657620, 0x6e6f6973, 0x352e3220, 0x0000002b}, // " version 2.5+"
	{0x80000005, 0, 0x01ff01ff, 0x01ff01ff, 0x40020140, 0x40020140},
	{0x80000006, 0, 0, 0x42004200, 0x02008140, 0},
	{0x80000007, 0, 0, 0, 0, cpuidInvariantTS},
	{0x80000008, 0, 0x00003028, 0, 0, 0},
}

// CPUID returns what the cpuid instruction answers for leaf and subleaf on
// the emulated x86-64 CPU; a leaf it does not list reads as zeros.
func CPUID(leaf, sub uint32) (eax, ebx, ecx, edx uint32) {
	if !subleafed[leaf] {
		sub = 0
	}
	for _, l := range cpuidTable {
		if l.leaf == leaf && l.sub == sub {
			return l.eax, l.ebx, l.ecx, l.edx
		}
	}
	return 0, 0, 0, 0
}

// X86Model describes the emulated x86-64 CPU as /proc/cpuinfo names it.
type X86Model struct {
	Vendor                  string
	Family, Model, Stepping uint32
	Name                    string
	MHz                     uint32
	Flags                   []string // Linux's names for the CPUID feature bits
	CacheKB                 uint32   // L2
	CLFlush                 uint32   // bytes
	AddressSizes            string
}

// x86FlagNames are Linux's names of the feature bits icount's table can
// set, by register: leaf 1 EDX and ECX, leaf 0x80000001 EDX and ECX.
var x86FlagNames = [4][32]string{
	{0: "fpu", 1: "vme", 2: "de", 3: "pse", 4: "tsc", 5: "msr", 6: "pae", 7: "mce", 8: "cx8", 9: "apic",
		11: "sep", 12: "mtrr", 13: "pge", 14: "mca", 15: "cmov", 16: "pat", 17: "pse36", 19: "clflush",
		23: "mmx", 24: "fxsr", 25: "sse", 26: "sse2", 28: "ht"},
	{0: "pni", 1: "pclmulqdq", 9: "ssse3", 12: "fma", 13: "cx16", 19: "sse4_1", 20: "sse4_2", 22: "movbe",
		23: "popcnt", 25: "aes", 26: "xsave", 28: "avx", 29: "f16c", 30: "rdrand", 31: "hypervisor"},
	{11: "syscall", 20: "nx", 22: "mmxext", 25: "fxsr_opt", 26: "pdpe1gb", 27: "rdtscp", 29: "lm"},
	{0: "lahf_lm", 2: "svm", 5: "abm", 6: "sse4a", 8: "3dnowprefetch"},
}

// X86CPU returns the emulated x86-64 CPU's description, from the table.
func X86CPU() X86Model {
	_, b, c, d := CPUID(0, 0)
	vendor := string(le32(b)) + string(le32(d)) + string(le32(c))
	a1, b1, c1, d1 := CPUID(1, 0)
	_, _, ce, de := CPUID(0x80000001, 0)
	var flags []string
	for i, reg := range []uint32{d1, c1, de, ce} {
		for bit := 0; bit < 32; bit++ {
			name := x86FlagNames[i][bit]
			if reg&(1<<bit) == 0 || name == "" || contains(flags, name) {
				continue
			}
			flags = append(flags, name)
		}
	}
	if _, _, _, d7 := CPUID(0x80000007, 0); d7&cpuidInvariantTS != 0 {
		flags = append(flags, "constant_tsc", "nonstop_tsc", "tsc_known_freq")
	}
	var name []byte
	for leaf := uint32(0x80000002); leaf <= 0x80000004; leaf++ {
		a, b, c, d := CPUID(leaf, 0)
		for _, r := range []uint32{a, b, c, d} {
			name = append(name, le32(r)...)
		}
	}
	for len(name) > 0 && name[len(name)-1] == 0 {
		name = name[:len(name)-1]
	}
	_, _, c6, _ := CPUID(0x80000006, 0)
	a8, _, _, _ := CPUID(0x80000008, 0)
	family := (a1 >> 8) & 0xf
	model := (a1 >> 4) & 0xf
	if family == 0xf {
		family += (a1 >> 20) & 0xff
	}
	if family >= 6 {
		model |= (a1 >> 12) & 0xf0
	}
	return X86Model{
		Vendor: vendor, Family: family, Model: model, Stepping: a1 & 0xf,
		Name: string(name), MHz: tscMHz, Flags: flags,
		CacheKB: c6 >> 16, CLFlush: (b1 >> 8 & 0xff) * 8,
		AddressSizes: fmt.Sprintf("%d bits physical, %d bits virtual", a8&0xff, a8>>8&0xff),
	}
}

func le32(v uint32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
