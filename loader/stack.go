package loader

import (
	"encoding/binary"
	"fmt"

	"github.com/icount-dev/icount/emu"
)

// Auxiliary vector keys (include/uapi/linux/auxvec.h).
const (
	atNull     = 0
	atPhdr     = 3
	atPhent    = 4
	atPhnum    = 5
	atPagesz   = 6
	atBase     = 7
	atFlags    = 8
	atEntry    = 9
	atUID      = 11
	atEUID     = 12
	atGID      = 13
	atEGID     = 14
	atPlatform = 15
	atHwcap    = 16
	atClktck   = 17
	atSecure   = 23
	atRandom   = 25
	atHwcap2   = 26
	atExecfn   = 31
)

// StackSize is the size of the mapped initial stack.
const StackSize = 8 << 20

// StackTop is the fixed top of the initial stack per guest arch.
var StackTop = map[emu.Arch]uint64{
	emu.X86_64: 0x7ffffffff000,
	emu.ARM64:  0xfffffffff000,
}

// StackSpec is what the initial stack holds besides the image.
type StackSpec struct {
	Argv     []string // argv[0] is the name the program sees, also AT_EXECFN
	Env      []string
	Random   [16]byte // AT_RANDOM bytes
	UID, GID uint64
	Hwcap    uint64
	Hwcap2   uint64
	Platform string
	// InterpBase is where the interpreter was loaded (AT_BASE), 0 for a
	// static executable.
	InterpBase uint64
	// ExecStack maps the stack executable too, as Linux does for a
	// program whose PT_GNU_STACK asks for it (Executable.ExecStack).
	ExecStack bool
}

// BuildStack maps the initial stack at the arch's fixed top and lays out
// argc, argv, envp and the auxiliary vector as the kernel does. It returns
// the initial stack pointer, 16-byte aligned, pointing at argc.
func BuildStack(mem Memory, arch emu.Arch, img *Image, spec StackSpec) (uint64, error) {
	top := StackTop[arch]
	prot := emu.ProtRead | emu.ProtWrite
	if spec.ExecStack {
		prot |= emu.ProtExec
	}
	if err := mem.Map(top-StackSize, StackSize, prot, "[stack]"); err != nil {
		return 0, fmt.Errorf("mapping the stack: %w", err)
	}
	// Strings go at the top, in a buffer laid out downwards from top-8.
	var strs []byte
	put := func(s string) uint64 {
		strs = append(strs, s...)
		strs = append(strs, 0)
		return uint64(len(strs) - len(s) - 1)
	}
	execfn := put(spec.Argv[0])
	argOff := make([]uint64, len(spec.Argv))
	for i, a := range spec.Argv {
		argOff[i] = put(a)
	}
	envOff := make([]uint64, len(spec.Env))
	for i, e := range spec.Env {
		envOff[i] = put(e)
	}
	platform := put(spec.Platform)
	strBase := top - 8 - uint64(len(strs))
	random := (strBase - 16) &^ 15
	at := func(off uint64) uint64 { return strBase + off }

	auxv := [][2]uint64{
		{atPhdr, img.Phdr}, {atPhent, uint64(img.Phent)}, {atPhnum, uint64(img.Phnum)},
		{atPagesz, emu.PageSize}, {atBase, spec.InterpBase}, {atFlags, 0}, {atEntry, img.Entry},
		{atUID, spec.UID}, {atEUID, spec.UID}, {atGID, spec.GID}, {atEGID, spec.GID},
		{atSecure, 0}, {atRandom, random}, {atHwcap, spec.Hwcap}, {atHwcap2, spec.Hwcap2},
		{atClktck, 100}, {atPlatform, at(platform)}, {atExecfn, at(execfn)}, {atNull, 0},
	}
	words := []uint64{uint64(len(spec.Argv))}
	for _, o := range argOff {
		words = append(words, at(o))
	}
	words = append(words, 0)
	for _, o := range envOff {
		words = append(words, at(o))
	}
	words = append(words, 0)
	for _, kv := range auxv {
		words = append(words, kv[0], kv[1])
	}
	sp := (random - uint64(8*len(words))) &^ 15
	if top-sp > StackSize/4 {
		return 0, fmt.Errorf("arguments and environment take %d bytes, more than a quarter of the %d-byte stack", top-sp, StackSize)
	}
	buf := make([]byte, 8*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint64(buf[8*i:], w)
	}
	for _, w := range []struct {
		addr uint64
		b    []byte
	}{{sp, buf}, {random, spec.Random[:]}, {strBase, strs}} {
		if err := mem.Write(w.addr, w.b); err != nil {
			return 0, fmt.Errorf("writing the initial stack: %w", err)
		}
	}
	return sp, nil
}
