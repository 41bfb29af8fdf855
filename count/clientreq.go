package count

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/profile"
)

// Valgrind's client requests: a program built with valgrind.h marks each
// with a special instruction sequence, a no-op on hardware (four rotations
// of one register by 128 bits in all, then a register exchanged or or'ed
// with itself), that valgrind recognises when it translates it. The
// request is a block of six words (its number and five arguments) whose
// address is in a register, and its result goes to the register holding
// its default value (emu.SiteClientRequest). icount answers callgrind's
// requests (callgrind.h) as callgrind does, and every other request with
// its default, as hardware does: RUNNING_ON_VALGRIND gives 0, so the
// program does the work it does natively, which is the work icount counts.

// The request numbers icount answers (valgrind.h, callgrind.h).
const (
	cgBase                 = 'C'<<24 | 'T'<<16 // VG_USERREQ_TOOL_BASE('C','T')
	cgDumpStats            = cgBase + 0
	cgZeroStats            = cgBase + 1
	cgToggleCollect        = cgBase + 2
	cgDumpStatsAt          = cgBase + 3
	cgStartInstrumentation = cgBase + 4
	cgStopInstrumentation  = cgBase + 5
)

// The special instruction sequences: the preamble's bytes, and the last
// instruction of a client request (valgrind.h's
// __SPECIAL_INSTRUCTION_PREAMBLE and VALGRIND_DO_CLIENT_REQUEST_EXPR).
var (
	// rol $3,%rdi; rol $13,%rdi; rol $61,%rdi; rol $51,%rdi
	preambleX86 = []byte{0x48, 0xc1, 0xc7, 0x03, 0x48, 0xc1, 0xc7, 0x0d, 0x48, 0xc1, 0xc7, 0x3d, 0x48, 0xc1, 0xc7, 0x33}
	// xchg %rbx,%rbx
	requestX86 = []byte{0x48, 0x87, 0xdb}
	// ror x12,x12,#3; ror x12,x12,#13; ror x12,x12,#51; ror x12,x12,#61
	preambleARM64 = []byte{0x8c, 0x0d, 0xcc, 0x93, 0x8c, 0x35, 0xcc, 0x93, 0x8c, 0xcd, 0xcc, 0x93, 0x8c, 0xf5, 0xcc, 0x93}
	// orr x10,x10,x10
	requestARM64 = []byte{0x4a, 0x01, 0x0a, 0xaa}
)

// clientRequestSites returns the client requests of a block (code at
// addr, instructions at starts): each instruction that ends a request
// sequence. Its preamble is looked for before it in the block, and in
// memory before the block when the block starts within the sequence (the
// emulator ends a block at a page's end, where a sequence may be cut):
// valgrind translates the sequence whole, and so always sees it whole. A
// marker without the preamble before it is the ordinary instruction it
// is (an exchange of a register with itself, or an or), left alone.
func clientRequestSites(arch emu.Arch, code []byte, starts []uint32, addr uint64, read func(uint64, []byte) error) []emu.Site {
	marker, preamble := requestX86, preambleX86
	if arch == emu.ARM64 {
		marker, preamble = requestARM64, preambleARM64
	}
	var out []emu.Site
	for i, off := range starts {
		end := int(off) + len(marker)
		if end > len(code) || !bytes.Equal(code[off:end], marker) || i+1 < len(starts) && int(starts[i+1]) != end {
			continue
		}
		before := make([]byte, len(preamble))
		inBlock := min(int(off), len(preamble))
		copy(before[len(preamble)-inBlock:], code[int(off)-inBlock:off])
		if inBlock < len(preamble) && read(addr-uint64(len(preamble)-inBlock), before[:len(preamble)-inBlock]) != nil {
			continue
		}
		if bytes.Equal(before, preamble) {
			out = append(out, emu.Site{PC: addr + uint64(off), Len: len(marker), Kind: emu.SiteClientRequest})
		}
	}
	return out
}

// partCounter is an image's parts, and what counting them needs: the
// state callgrind's requests set, and a Go test binary's benchmark runs
// (gobench.go).
type partCounter struct {
	im    *image
	parts []profile.Part
	// start is where the part being counted began (the image's start, the
	// last dump or zero); excluded is what ran since then while counting
	// was off, and offPart where it went off, while it is.
	start, excluded, offPart counts
	// outside is what ran while counting was off over the whole image's
	// run, left out of its counts, and offRun where counting went off.
	outside, offRun counts
	// Counting is on while both collection (CALLGRIND_TOGGLE_COLLECT)
	// and instrumentation (CALLGRIND_START/STOP_INSTRUMENTATION) are.
	collectOff, instrOff bool
	dumps                int  // dumps asked for
	asked                bool // a dump or zero was asked: the exit ends a part too
	gobench              *goBench
	// tid is the thread that ran last, and switches counts the times
	// another thread than the last ran.
	tid      int
	switches uint64
	warnings []string // what the Profile should say about the parts
}

// resumed notes that thread tid runs next on the image's CPU.
func (pc *partCounter) resumed(tid int) {
	if tid != pc.tid {
		pc.tid = tid
		pc.switches++
	}
}

func (pc *partCounter) counting() bool { return !pc.collectOff && !pc.instrOff }

// clientRequest answers a client request (emu.Hooks.ClientRequest): args
// is the address of its six words, def its default value.
func (pc *partCounter) clientRequest(args, def uint64) uint64 {
	var words [6 * 8]byte
	if pc.im.cpu.Read(args, words[:]) != nil {
		return def // natively, the words are not read at all
	}
	word := func(i int) uint64 { return binary.LittleEndian.Uint64(words[8*i:]) }
	req := word(0)
	switch req {
	case cgDumpStats, cgDumpStatsAt:
		pc.dumps++
		name := fmt.Sprintf("dump %d", pc.dumps)
		if req == cgDumpStatsAt {
			if s, ok := readCString(pc.im.cpu.Read, word(1), maxPartName); ok && s != "" {
				name = s
			}
		}
		pc.dump(name)
	case cgZeroStats:
		pc.asked = true
		now := pc.im.readCounts(false).counts
		pc.start, pc.excluded = now, counts{}
		if !pc.counting() {
			pc.offPart = now
		}
	case cgToggleCollect:
		pc.switchCounting(func() { pc.collectOff = !pc.collectOff })
	case cgStartInstrumentation:
		pc.switchCounting(func() { pc.instrOff = false })
	case cgStopInstrumentation:
		pc.switchCounting(func() { pc.instrOff = true })
	}
	return def
}

// probe is the hook of a probe site (emu.Hooks.Probe).
func (pc *partCounter) probe(at uint64) {
	if pc.gobench != nil {
		pc.gobench.probe(at)
	}
}

// maxPartName bounds the name of a dump read from the guest.
const maxPartName = 256

// dump ends the part being counted, named name, and starts the next.
func (pc *partCounter) dump(name string) {
	pc.asked = true
	r := pc.im.readCounts(false)
	d := r.counts.minus(pc.start).minus(pc.excluded)
	if !pc.counting() {
		d = d.minus(r.counts.minus(pc.offPart))
		pc.offPart = r.counts
	}
	pc.parts = append(pc.parts, pc.im.countPart(name, 0, d, r.blocks, r.tree))
	pc.start, pc.excluded = r.counts, counts{}
}

// switchCounting applies change to the switches, and notes where counting
// went off or came back on.
func (pc *partCounter) switchCounting(change func()) {
	was := pc.counting()
	change()
	if now := pc.counting(); now != was {
		c := pc.im.readCounts(false).counts
		if !now {
			pc.offPart, pc.offRun = c, c
			return
		}
		pc.excluded = pc.excluded.plus(c.minus(pc.offPart))
		pc.outside = pc.outside.plus(c.minus(pc.offRun))
	}
}

// finish ends the image's counting: the part counted since the last dump
// or zero, named "exit" as callgrind's dump at the program's end, when
// the program asked for a dump or a zero; and it returns the image's
// blocks and call tree with what ran while counting was off left out,
// and how many instructions and block executions that was.
func (pc *partCounter) finish(blocks []emu.Block, tree []emu.Node) ([]emu.Block, []emu.Node, uint64, uint64) {
	if pc.gobench != nil {
		pc.gobench.finish()
		pc.warnings = append(pc.warnings, pc.gobench.warnings()...)
	}
	if pc.asked {
		pc.dump("exit")
	}
	out := pc.outside
	if !pc.counting() {
		now := countsFrom(blocks, tree, 0)
		out = out.plus(now.minus(pc.offRun))
	}
	var insns, execs uint64
	for _, b := range blocks {
		insns += countAt(out.execs, int(b.ID))*uint64(b.Instructions) - countAt(out.cut, int(b.ID))
		execs += countAt(out.execs, int(b.ID))
	}
	if execs == 0 {
		return blocks, tree, 0, 0
	}
	all := countsFrom(blocks, tree, 0)
	kept := all.minus(out)
	return blocksOf(blocks, kept), treeOf(tree, kept), insns, execs
}

// readCString reads a NUL-terminated string of at most max bytes at addr.
func readCString(read func(uint64, []byte) error, addr uint64, max int) (string, bool) {
	var out []byte
	buf := make([]byte, 64)
	for len(out) < max {
		n := min(len(buf), max-len(out))
		// A page boundary may end what can be read: read up to it.
		if pg := int(4096 - addr%4096); pg < n {
			n = pg
		}
		if read(addr, buf[:n]) != nil {
			return "", false
		}
		if i := bytes.IndexByte(buf[:n], 0); i >= 0 {
			return string(append(out, buf[:i]...)), true
		}
		out = append(out, buf[:n]...)
		addr += uint64(n)
	}
	return string(out), true
}
