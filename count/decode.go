package count

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"
)

// decodedBlock is a translated block decoded once, on first sight. Its
// shape gives its bytes when first seen (code, nil if they could not be
// read), the offset of each instruction (starts), what each does, for the
// mix (kind, see kinds), and what decoding found in few blocks (notes:
// differences from the hardware, sites), shared with every block of the
// same bytes at the same address (shapes).
type decodedBlock struct {
	*blockShape
	addr uint64 // where it starts
	id   uint32 // the emulator's id of the block
	info emu.BlockInfo
	bad  string // why decoding or reading failed, if it did
	// mapping is the kernel's executable mapping the block lay in when
	// first seen (an index of kernel.Process.ExecMappings), -1 if none.
	mapping int
	// cuts counts the executions cut short, by the index of the first
	// instruction that did not complete (see notRun).
	cuts map[int]uint64
}

// blockShape is what decoding a block's bytes at its address gives, kept
// for the run: every process that runs the same program (each fork, each
// exec of it) meets the same blocks, decoded once.
type blockShape struct {
	code   []byte // the bytes decoded
	starts []uint32
	kind   []kind
	end    emu.BlockEnd
	notes  *shapeNotes // nil for nearly every block
}

// shapeNotes is what decoding found in the few blocks that are not plain:
// instructions with a known difference from the hardware (fidelity.go),
// instruction sites, or bytes it could not decode.
type shapeNotes struct {
	fidelity []fidelityAt
	sites    []emu.Site
	bad      string
}

// failure says why decoding the block's bytes failed, "" if it did not.
func (sh *blockShape) failure() string {
	if sh.notes == nil {
		return ""
	}
	return sh.notes.bad
}

// sites are the block's instruction sites its bytes show.
func (sh *blockShape) sites() []emu.Site {
	if sh.notes == nil {
		return nil
	}
	return sh.notes.sites
}

// differences are the block's instructions with a known difference from
// the hardware.
func (sh *blockShape) differences() []fidelityAt {
	if sh.notes == nil {
		return nil
	}
	return sh.notes.fidelity
}

// note keeps what decoding found, unless it found nothing (then it
// allocates nothing).
func (sh *blockShape) note(n shapeNotes) {
	if n.bad != "" || len(n.fidelity) > 0 || len(n.sites) > 0 {
		sh.notes = &shapeNotes{n.fidelity, n.sites, n.bad}
	}
}

// shapeKey names a block's bytes at its address: by their size and a
// hash of them, the bytes themselves compared on a match.
type shapeKey struct {
	addr uint64
	size uint32
	sum  uint64
}

// shapes is the run's decoded blocks, by address and bytes.
type shapes struct {
	seed maphash.Seed
	m    map[shapeKey]*blockShape
}

func newShapes() *shapes {
	return &shapes{seed: maphash.MakeSeed(), m: map[shapeKey]*blockShape{}}
}

// find returns the decoding of code at addr, if the run has one, and the
// key under which add keeps a new one.
func (s *shapes) find(addr uint64, code []byte) (*blockShape, shapeKey) {
	k := shapeKey{addr, uint32(len(code)), maphash.Bytes(s.seed, code)}
	if sh := s.m[k]; sh != nil && bytes.Equal(sh.code, code) {
		return sh, k
	}
	return nil, k
}

// add keeps the decoding of a block's bytes, unless another block's
// bytes took its key (a hash collision: then each decodes its own).
func (s *shapes) add(k shapeKey, sh *blockShape) {
	if _, taken := s.m[k]; !taken {
		s.m[k] = sh
	}
}

// decoder decodes each distinct block the CPU translates.
type decoder struct {
	arch emu.Arch
	read func(addr uint64, b []byte) error
	// place names the function holding addr (its entry, 0 if unknown)
	// and the executable mapping (decodedBlock.mapping, -1 if none).
	place func(addr uint64) (fn uint64, mapping int)
	// resumes says whether the indirect jump ending a block of the
	// function entered at fn resumes a goroutine (emu.EndResume); nil for
	// no.
	resumes func(fn uint64) bool
	// byID is every decoding, by the id the emulator gave its block (the
	// emulator's ids count from 1). A block whose code changed is new to
	// the emulator, with a new id, even at an old block's address and
	// size: it is decoded and counted as what it is.
	byID   []*decodedBlock
	failed []string // blocks whose instructions could not all be decoded
	// cpu hooks the instruction sites (sites.go) and counter reads
	// (hookCounters) found in new blocks; nil hooks none.
	cpu siteHooks
	// probes returns the probes of a new block of the function entered at
	// fn (gobench.go); nil for none.
	probes func(arch emu.Arch, fn, addr uint64, code []byte, starts []uint32, end emu.BlockEnd) []emu.Site
	// insts is newBlock's room for the instructions it decodes, and
	// fastStarts and fastKinds decodeFastX86's.
	insts      []x86asm.Inst
	fastStarts []uint32
	fastKinds  []kind
	// shapes is the run's, shared by every image's decoder; nil for none.
	shapes *shapes
	// slab and code are where new blocks and their bytes are allocated,
	// many at a time (carve); shapeSlab, startSlab and kindSlab where
	// new shapes and their offsets and kinds are (arm64's, and
	// decodeFastX86's).
	slab      []decodedBlock
	code      []byte
	shapeSlab []blockShape
	startSlab []uint32
	kindSlab  []kind
}

func newDecoder(arch emu.Arch, read func(uint64, []byte) error, place func(uint64) (uint64, int)) *decoder {
	return &decoder{arch: arch, read: read, place: place}
}

// alloc returns a new block and room for its bytes.
func (d *decoder) alloc(size uint32) (*decodedBlock, []byte) {
	return &carve(&d.slab, 1, 256)[0], carve(&d.code, int(size), 64<<10)
}

// carve returns n elements from the front of *slab, first making it a new
// slab of max(n, chunk) elements if it holds fewer: what many small
// allocations kept for the run would take, allocated at once. The slice
// returned has no room to grow into the slab.
func carve[T any](slab *[]T, n, chunk int) []T {
	if n > len(*slab) {
		*slab = make([]T, max(n, chunk))
	}
	s := (*slab)[:n:n]
	*slab = (*slab)[n:]
	return s
}

// newBlock is the emulator's first-sight hook: it counts the block's
// instructions, names its function, classifies how it ends, and hooks its
// instruction sites and counter reads (the block then restarts).
func (d *decoder) newBlock(id uint32, addr uint64, size uint32) emu.BlockInfo {
	b, code := d.alloc(size)
	b.addr, b.id = addr, id
	var fn uint64
	fn, b.mapping = d.place(addr)
	if err := d.read(addr, code); err != nil {
		b.bad = err.Error()
		code = nil
	}
	b.info = emu.BlockInfo{Func: fn}
	var shape *blockShape
	var sk shapeKey
	if code != nil && d.shapes != nil {
		shape, sk = d.shapes.find(addr, code)
	}
	if shape == nil {
		shape = d.decode(code, addr)
		if code != nil && d.shapes != nil {
			d.shapes.add(sk, shape)
		}
	} else if bad := shape.failure(); bad != "" {
		d.failed = append(d.failed, bad)
	}
	b.blockShape = shape
	if b.bad == "" {
		b.bad = shape.failure()
	}
	b.info.Instructions, b.info.End = uint32(len(shape.starts)), shape.end
	if b.info.End == emu.EndIndirectJump && d.resumes != nil && d.resumes(fn) {
		b.info.End = emu.EndResume
	}
	if int(id) >= len(d.byID) {
		// Doubled, where append would grow a long slice by a quarter
		// and copy it five times as often.
		if int(id) >= cap(d.byID) {
			d.byID = append(make([]*decodedBlock, 0, max(2*cap(d.byID), int(id)+1, 1024)), d.byID...)
		}
		d.byID = d.byID[:id+1]
	}
	d.byID[id] = b
	info := b.info
	sites := d.hookSites(b, d.sitesOf(b, addr, shape))
	counters := d.hookCounters(b, addr)
	info.Restart = sites || counters
	return info
}

// sitesOf returns the instruction sites of b, a new block at addr decoded
// as shape: the shape's, and those that depend on more than the block's
// bytes (a client request's preamble may lie before the block) or on the
// run (probes).
func (d *decoder) sitesOf(b *decodedBlock, addr uint64, shape *blockShape) []emu.Site {
	sites := shape.sites()
	if b.code == nil || shape.failure() != "" {
		return sites
	}
	if more := clientRequestSites(d.arch, b.code, shape.starts, addr, d.read); len(more) > 0 {
		sites = append(slices.Clip(sites), more...)
	}
	if d.probes != nil {
		if more := d.probes(d.arch, b.info.Func, addr, b.code, shape.starts, shape.end); len(more) > 0 {
			sites = append(slices.Clip(sites), more...)
		}
	}
	return sites
}

// decode decodes the instructions of code, the bytes newBlock read of a
// new block at addr (nil if it could not read them), once: their offsets,
// kinds (for the mix), how the block ends, its instruction sites and its
// known differences from the hardware.
func (d *decoder) decode(code []byte, addr uint64) *blockShape {
	sh := &carve(&d.shapeSlab, 1, 256)[0]
	sh.code = code
	switch d.arch {
	case emu.ARM64:
		// Every arm64 instruction is 4 bytes.
		n := uint32(len(code)) / 4
		sh.starts = carve(&d.startSlab, int(n), 4096)
		sh.kind = carve(&d.kindSlab, int(n), 4096)
		for i := range n {
			sh.starts[i] = 4 * i
			inst, err := arm64asm.Decode(code[4*i:])
			if err == nil {
				sh.kind[i] = classifyARM64(inst)
			}
			if i == n-1 {
				sh.end = blockEndARM64(inst, err)
			}
		}
		if code != nil {
			sh.note(shapeNotes{sites: sitesARM64(code, addr)})
		}
	case emu.X86_64:
		// Most blocks hold only instructions x86Fast knows, none of them
		// a site; the others are decoded whole with x86asm.
		if !d.decodeFastX86(sh) {
			d.decodeX86(sh, addr)
		}
	}
	return sh
}

// decodeX86 decodes the x86-64 block sh.code at addr with x86asm: its
// instructions' offsets and kinds, how it ends, its known differences
// from the hardware and its instruction sites.
func (d *decoder) decodeX86(sh *blockShape, addr uint64) {
	code := sh.code
	insts := d.insts[:0] // each instruction decoded, Op 0 if unknown
	defer func() { d.insts = insts[:0] }()
	var notes shapeNotes
	for off := 0; off < len(code); {
		sh.starts = append(sh.starts, uint32(off))
		inst, n, k, err := x86DecodeKind(code[off:])
		insts = append(insts, inst)
		sh.kind = append(sh.kind, k)
		if err != nil && isVEX(code[off:]) {
			// A VEX or EVEX instruction the emulator stopped
			// translating in (its block ends with it): its site
			// refuses it, so nothing from it on runs.
			break
		}
		if err != nil {
			// The emulator executed it, so it is one instruction;
			// without its length the rest of the block is unknown.
			notes.bad = fmt.Sprintf("cannot decode % x at %#x: %v", code[off:min(off+15, len(code))], addr+uint64(off), err)
			d.failed = append(d.failed, notes.bad)
			break
		}
		off += n
	}
	if n := len(sh.starts); n > 0 && notes.bad == "" {
		sh.end = blockEndX86(insts[n-1])
	}
	if notes.bad == "" {
		notes.fidelity = classifyFidelity(emu.X86_64, insts)
	}
	if code != nil {
		notes.sites = sitesX86(code, sh.starts, insts, addr)
	}
	sh.note(notes)
}

// blockEndARM64 and blockEndX86 classify the last instruction of a block,
// as decode decoded it, for call tracking.
func blockEndARM64(inst arm64asm.Inst, err error) emu.BlockEnd {
	if err != nil {
		return emu.EndPlain
	}
	switch inst.Op {
	case arm64asm.BL, arm64asm.BLR:
		return emu.EndCall
	case arm64asm.RET:
		return emu.EndReturn
	case arm64asm.BR:
		return emu.EndIndirectJump
	}
	return emu.EndPlain
}

func blockEndX86(inst x86asm.Inst) emu.BlockEnd {
	switch inst.Op {
	case x86asm.CALL, x86asm.LCALL:
		return emu.EndCall
	case x86asm.RET, x86asm.LRET:
		return emu.EndReturn
	case x86asm.JMP, x86asm.LJMP:
		if _, direct := inst.Args[0].(x86asm.Rel); !direct {
			return emu.EndIndirectJump
		}
	}
	return emu.EndPlain
}

// notRun is how many instructions of block blk, from the one at pc on, did
// not complete when the guest stopped at pc. Every cut the emulator takes
// back is asked for here, so the decoder also records where each
// execution stopped, for per-instruction counts.
func (d *decoder) notRun(blk emu.Block, pc uint64) uint32 {
	b := d.of(blk.ID)
	if b == nil || pc < blk.Addr || pc >= blk.Addr+uint64(blk.Size) {
		return 0
	}
	off := uint32(pc - blk.Addr)
	for i, s := range b.starts {
		if s >= off {
			if b.cuts == nil {
				b.cuts = map[int]uint64{}
			}
			b.cuts[i]++
			return uint32(len(b.starts) - i)
		}
	}
	return 0
}

// wholeBefore returns where the instructions from pc that lie wholly below
// limit end: where a block running from pc into memory the guest may not
// execute at limit faults.
func (d *decoder) wholeBefore(pc, limit uint64) uint64 {
	if limit <= pc || limit-pc > 1<<16 {
		return pc
	}
	if d.arch == emu.ARM64 {
		return pc + (limit-pc)&^3
	}
	code := make([]byte, limit-pc)
	if d.read(pc, code) != nil {
		return pc
	}
	at := 0
	for at < len(code) {
		n, err := x86Len(code[at:])
		if err != nil || at+n > len(code) {
			break // an instruction that does not end before limit
		}
		at += n
	}
	return pc + uint64(at)
}

// insnEnd returns where the instruction at pc ends, 0 if it cannot be
// read or decoded.
func (d *decoder) insnEnd(pc uint64) uint64 {
	if d.arch == emu.ARM64 {
		return pc + 4
	}
	code := codeAt(pc, 15, d.read)
	n, err := x86Len(code)
	if err != nil || n > len(code) {
		return 0
	}
	return pc + uint64(n)
}

// x86Len returns the length of the x86-64 instruction at the start of code.
func x86Len(code []byte) (int, error) {
	_, n, err := x86Decode(code)
	return n, err
}

// x86Decode decodes the x86-64 instruction at the start of code and
// returns it and its length. x86asm does not know the hint-NOP space
// 0F 18-0F 1F beyond 0F 1F (endbr64 is F3 0F 1E FA): those share one ModRM
// encoding, so their length is that of the same bytes made into the NOP
// 0F 1F /0, and the instruction returned is the zero Inst. Nor does it
// decode a VEX or EVEX instruction after a legacy prefix: the instruction
// returned is then the one without the prefixes, with their length.
func x86Decode(code []byte) (x86asm.Inst, int, error) {
	inst, n, _, err := x86DecodeKind(code)
	return inst, n, err
}

// x86DecodeKind is x86Decode, also classifying the instruction for the
// mix (classifyX86): as x86asm decodes the bytes as they are, so that an
// instruction it does not know, or knows only without its prefixes, is of
// no kind.
func x86DecodeKind(code []byte) (x86asm.Inst, int, kind, error) {
	inst, err := x86asm.Decode(code, 64)
	var k kind
	if err == nil {
		k = classifyX86(inst)
	}
	if err == nil && inst.Op != 0 && inst.Len > 0 {
		return inst, inst.Len, k, nil
	}
	// A prefix before an opcode x86asm does not know decodes as a lone
	// prefix (Op 0) with no error.
	// Skip legacy and REX prefixes to the opcode.
	i := 0
	for i < len(code) && i < 14 && isX86Prefix(code[i]) {
		i++
	}
	if i > 0 && i < len(code) && (code[i] == 0xc4 || code[i] == 0xc5 || code[i] == 0x62) {
		// x86asm does not decode a VEX or EVEX instruction after a
		// prefix (a segment override, say); the prefixes add to its
		// length.
		if vex, err2 := x86asm.Decode(code[i:], 64); err2 == nil && vex.Op != 0 && vex.Len > 0 {
			vex.Len += i
			return vex, vex.Len, k, nil
		}
	}
	if i+1 < len(code) && code[i] == 0x0f && code[i+1] >= 0x18 && code[i+1] <= 0x1f {
		alt := append([]byte(nil), code[:min(len(code), 15)]...) // x86asm reads at most 15
		alt[i+1] = 0x1f
		if i+2 < len(alt) {
			alt[i+2] &^= 0x38 // NOP is 0F 1F /0: the ModRM reg field does not change the length
		}
		if alt, err2 := x86asm.Decode(alt, 64); err2 == nil && alt.Op != 0 && alt.Len > 0 {
			return x86asm.Inst{}, alt.Len, k, nil
		}
	}
	if err == nil {
		err = fmt.Errorf("unrecognized instruction")
	}
	return x86asm.Inst{}, 0, k, err
}

func isX86Prefix(b byte) bool {
	switch b {
	case 0x66, 0x67, 0xf0, 0xf2, 0xf3, 0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65:
		return true
	}
	return b&0xf0 == 0x40 // REX
}

// of returns the decoding of the emulator's block id (nil for one the
// decoder never saw).
func (d *decoder) of(id uint32) *decodedBlock {
	if int(id) < len(d.byID) {
		return d.byID[id]
	}
	return nil
}
