package emu

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"runtime"
	"testing"

	"github.com/icount-dev/icount/emu/internal/x87native"
)

// The IC_X87_* ops of x87.h are 1 + the index of their mnemonic in
// x87native.Ops; the results of ic_x87_exec.
const (
	x87OK      = 0
	x87Raised  = 1
	x87Pending = 2
	x87Refused = 3
)

// f80 is an 80-bit x87 value as it lies in memory.
type f80 [10]byte

func mkf80(neg bool, exp uint16, mant uint64) f80 {
	var v f80
	binary.LittleEndian.PutUint64(v[:], mant)
	if neg {
		exp |= 0x8000
	}
	binary.LittleEndian.PutUint16(v[8:], exp)
	return v
}

// x87State is the guest's x87 state as the tests set it: the control and
// status words (TOP in bits 11-13), which physical registers are empty,
// and the eight physical registers (empty ones hold bits too).
type x87State struct {
	fcw, fsw uint16
	empty    [8]bool
	regs     [8]f80
}

func (s *x87State) top() int { return int(s.fsw>>11) & 7 }

// st returns the physical register number of ST(i).
func (s *x87State) st(i int) int { return (s.top() + i) & 7 }

// image is s as the FSAVE image frstor loads: the tag word marks the
// non-empty registers valid (the processor keeps only "empty" and
// computes the tags it saves from the contents).
func (s *x87State) image() *[108]byte {
	var img [108]byte
	binary.LittleEndian.PutUint16(img[0:], s.fcw)
	binary.LittleEndian.PutUint16(img[4:], s.fsw)
	var ftw uint16
	for i := 0; i < 8; i++ {
		if s.empty[i] {
			ftw |= 3 << (2 * i)
		}
	}
	binary.LittleEndian.PutUint16(img[8:], ftw)
	for i := 0; i < 8; i++ {
		copy(img[28+10*i:], s.regs[s.st(i)][:])
	}
	return &img
}

// x87Result is the state after an instruction: the status word, the full
// tag word as the processor saves it, the physical registers.
type x87Result struct {
	fsw, ftw uint16
	regs     [8]f80
}

func (r x87Result) String() string {
	s := fmt.Sprintf("fsw %#04x ftw %#04x", r.fsw, r.ftw)
	for i, v := range r.regs {
		s += fmt.Sprintf(" r%d=%04x_%016x", i, binary.LittleEndian.Uint16(v[8:]), binary.LittleEndian.Uint64(v[:]))
	}
	return s
}

func resultOfImage(img *[108]byte) x87Result {
	r := x87Result{fsw: binary.LittleEndian.Uint16(img[4:]), ftw: binary.LittleEndian.Uint16(img[8:])}
	top := int(r.fsw>>11) & 7
	for i := 0; i < 8; i++ {
		copy(r.regs[(top+i)&7][:], img[28+10*i:])
	}
	return r
}

// native runs op on the host from s: the judge.
func native(op int, s *x87State, mem *[8]byte) x87Result {
	img := s.image()
	x87native.Run(op, img, mem)
	return resultOfImage(img)
}

// nativeTrap runs op on the host from s with a SIGFPE handler: trapped
// says the instruction raised #MF before running (pending exception),
// with the state at the fault and Linux's si_code.
func nativeTrap(op int, s *x87State, mem *[8]byte) (r x87Result, trapped bool, code int) {
	img := s.image()
	trapped, code, fx, insn := x87native.Trap(op, img, mem)
	if !trapped {
		return resultOfImage(img), false, 0
	}
	if b := byte(insn); b != x87Opcode[op] {
		panic(fmt.Sprintf("#MF at an instruction starting %#02x, not at %s", b, x87native.Ops[op]))
	}
	// The FXSAVE image: FSW at 2, the abridged tags (a bit per physical
	// register, 1 if not empty) at 4, ST(i) at 32 + 16i.
	r.fsw = binary.LittleEndian.Uint16(fx[2:])
	top := int(r.fsw>>11) & 7
	for i := 0; i < 8; i++ {
		copy(r.regs[(top+i)&7][:], fx[32+16*i:])
		if fx[4]>>uint(i)&1 == 0 {
			r.ftw |= 3 << (2 * i)
		}
	}
	return r, true, code
}

// x87Opcode is the first byte of each of x87native.Ops.
var x87Opcode = []byte{0xd9, 0xd9, 0xd9, 0xd9, 0xd9, 0xd9, 0xd9, 0xd9, 0xd9, 0xd9, 0xd9, 0xd9, 0xdf, 0xdb, 0xdd,
	0xd9, 0xd9, 0xd9, 0xd9, 0xd9}

// x87Store is the bytes op stores (fisttp), 0 if none.
func x87Store(op int) int {
	switch x87native.Ops[op] {
	case "fisttp16":
		return 2
	case "fisttp32":
		return 4
	case "fisttp64":
		return 8
	}
	return 0
}

// linuxFPECode is the si_code Linux gives the SIGFPE of an x87 #MF
// (fpu__exception_code): FPE_FLTINV, FLTDIV, FLTOVF, FLTUND or FLTRES
// by the first unmasked flag in that order, IE, ZE, OE, UE or DE, PE.
func linuxFPECode(fcw, fsw uint16) int {
	err := fsw &^ fcw
	switch {
	case err&0x01 != 0:
		return 7
	case err&0x04 != 0:
		return 3
	case err&0x08 != 0:
		return 4
	case err&0x12 != 0:
		return 5
	case err&0x20 != 0:
		return 6
	}
	return 0
}

// emptyTags keeps only "empty" of each register's tag.
func emptyTags(ftw uint16) uint16 {
	var e uint16
	for i := 0; i < 8; i++ {
		if ftw>>(2*uint(i))&3 == 3 {
			e |= 3 << (2 * uint(i))
		}
	}
	return e
}

// setX87 writes s into the CPU through Unicorn's registers.
func setX87(t *testing.T, c *CPU, s *x87State) {
	t.Helper()
	var ftw uint64
	for i := 0; i < 8; i++ {
		if s.empty[i] {
			ftw |= 3 << (2 * i)
		}
	}
	for _, e := range []error{c.SetReg(X86FPCW, uint64(s.fcw)), c.SetReg(X86FPSW, uint64(s.fsw)), c.SetReg(X86FPTAG, ftw)} {
		if e != nil {
			t.Fatal(e)
		}
	}
	for i := 0; i < 8; i++ {
		if err := c.SetRegBytes(X86ST(i), s.regs[s.st(i)][:]); err != nil {
			t.Fatal(err)
		}
	}
}

// readX87 reads the state back through Unicorn's registers (ST(i) are
// relative to TOP, so this does not rely on how x87.c names registers).
func readX87(c *CPU) (x87Result, uint16) {
	r := x87Result{fsw: uint16(c.Reg(X86FPSW)), ftw: uint16(c.Reg(X86FPTAG))}
	top := int(r.fsw>>11) & 7
	for i := 0; i < 8; i++ {
		copy(r.regs[(top+i)&7][:], c.RegBytes(X86ST(i), 10))
	}
	return r, uint16(c.Reg(X86FPCW))
}

// x87Gen makes the inputs.
type x87Gen struct{ r *rand.Rand }

// value is an 80-bit value of any class: zeros, denormals,
// pseudo-denormals, unnormals, infinities, QNaN, SNaN, pseudo-NaN and
// pseudo-infinity, huge and tiny, small integers, values beyond 2^63, and
// (most often) normal values near 1.
func (g x87Gen) value() f80 {
	r := g.r
	neg := r.Intn(2) == 0
	m := r.Uint64()
	switch r.Intn(24) {
	case 0:
		return mkf80(neg, 0, 0)
	case 1:
		return mkf80(neg, 0, m>>uint(1+r.Intn(63))|1)
	case 2:
		return mkf80(neg, 0, m|1<<63)
	case 3:
		return mkf80(neg, uint16(1+r.Intn(0x7ffe)), m&^(1<<63))
	case 4:
		return mkf80(neg, 0x7fff, 1<<63)
	case 5:
		return mkf80(neg, 0x7fff, m|3<<62)
	case 6:
		return mkf80(neg, 0x7fff, (m&^(3<<62))|1<<63|1)
	case 7:
		return mkf80(neg, 0x7fff, m&^(1<<63))
	case 8:
		return mkf80(neg, uint16(0x7ffe-r.Intn(16)), m|1<<63)
	case 9:
		return mkf80(neg, uint16(1+r.Intn(16)), m|1<<63)
	case 10:
		n := uint64(1 + r.Intn(1000))
		e := 63
		for n<<(63-uint(e))>>63 == 0 {
			e--
		}
		return mkf80(neg, uint16(0x3fff+e), n<<(63-uint(e)))
	case 11:
		return mkf80(neg, uint16(0x3fff+63+r.Intn(40)), m|1<<63)
	case 12:
		return mkf80(neg, uint16(r.Intn(0x7fff)), m|1<<63)
	case 13: // |x| < 1: the range of f2xm1, and fyl2xp1's
		return mkf80(neg, uint16(0x3fff-1-r.Intn(70)), m|1<<63)
	case 14: // near the integer limits of fisttp and fscale's shifts
		e := []int{14, 15, 16, 30, 31, 32, 62, 63, 64}[r.Intn(9)]
		mm := uint64(1) << 63
		if r.Intn(2) == 0 {
			mm |= m >> uint(1+r.Intn(64))
		}
		return mkf80(neg, uint16(0x3fff+e), mm)
	}
	return mkf80(neg, uint16(0x3fff+r.Intn(140)-70), m|1<<63)
}

// state makes a state: every precision control (the reserved one too)
// and rounding control, masks mostly all set, sticky flags and condition
// codes at random, any TOP, ST(0) and ST(1) mostly in use, sometimes
// empty (underflow), the stack sometimes full (overflow); pending allows
// an unmasked sticky flag.
func (g x87Gen) state(pending bool) *x87State {
	r := g.r
	s := &x87State{}
	masks := uint16(0x3f)
	if r.Intn(4) == 0 {
		masks = uint16(r.Intn(64))
	}
	pc := uint16(r.Intn(4)) // 24, reserved, 53, 64 bits
	s.fcw = 0x40 | pc<<8 | uint16(r.Intn(4))<<10 | masks
	flags := uint16(r.Intn(128))
	if r.Intn(2) == 0 {
		flags = 0
	}
	if !pending {
		flags &= masks | 0x40
		if flags&0x40 != 0 { // SF comes with IE
			flags &^= 0x40
			if masks&1 != 0 {
				flags |= 0x41
			}
		}
	}
	// ES and B as hardware keeps them, and sometimes not, as QEMU's
	// fldcw and fldenv may leave them.
	if flags&0x3f&^masks != 0 {
		flags |= 0x8080
	}
	if r.Intn(8) == 0 {
		flags ^= 0x8080
	}
	cc := uint16(r.Intn(16))
	s.fsw = flags | (cc&7)<<8 | (cc>>3)<<14 | uint16(r.Intn(8))<<11
	for i := range s.regs {
		s.regs[i] = g.value()
		s.empty[i] = r.Intn(2) == 0
	}
	switch r.Intn(10) {
	case 0: // ST(0) empty
		s.empty[s.st(0)] = true
	case 1: // ST(1) empty
		s.empty[s.st(0)], s.empty[s.st(1)] = false, true
	case 2, 3: // full
		for i := range s.empty {
			s.empty[i] = false
		}
	default:
		s.empty[s.st(0)], s.empty[s.st(1)] = false, false
		s.empty[s.st(7)] = r.Intn(4) != 0 // room to push, mostly
	}
	return s
}

// newX87CPU is an x86-64 CPU with two writable pages at 0x10000, a
// read-only one after them, and RIP at 0x400123.
func newX87CPU(t *testing.T) *CPU {
	t.Helper()
	c := newTestCPU(t, X86_64)
	if err := c.Map(0x10000, 2*PageSize, ProtRead|ProtWrite); err != nil {
		t.Fatal(err)
	}
	if err := c.Map(0x12000, PageSize, ProtRead); err != nil {
		t.Fatal(err)
	}
	if err := c.SetReg(X86RIP, 0x400123); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestX87Native executes every instruction of x87.c under emulation and
// natively, from the same states, and requires the same result to the
// bit: the status word (C0-C3, flags, SF, ES, B, TOP), the tag word, all
// eight registers, fisttp's store; IC_X87_RAISED exactly when the
// hardware raised an unmasked exception; IC_X87_PENDING, with the state
// the hardware shows at the fault, exactly when the hardware raises #MF
// before executing the instruction (a SIGFPE caught natively, whose
// si_code is checked against the rule x87.h gives the caller);
// IC_X87_REFUSED, nothing changed, for a store the guest may not make.
func TestX87Native(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := newX87CPU(t)
	g := x87Gen{rand.New(rand.NewSource(87))}
	const perOp = 1000
	intel := hostPartialIsIntel()
	for op, name := range x87native.Ops {
		counts := map[int]int{}
		var seen [16]int // results with each of FSW's bits 0-15 set
		for n := 0; n < perOp; n++ {
			s := g.state(n%4 == 3)
			addr := uint64(0x10100) // untouched by the register forms
			fisttp := x87Store(op) > 0
			if fisttp {
				size := uint64(x87Store(op))
				switch n % 16 {
				case 14: // read-only
					addr = 0x12000 + uint64(g.r.Intn(64))
				case 15: // across into the read-only page
					addr = 0x12000 - 1 - uint64(g.r.Intn(int(size)-1))
				default:
					addr = 0x10000 + uint64(g.r.Intn(2*PageSize-int(size)+1))
				}
			}
			canary := [8]byte{0xa5, 0x5a, 0xc3, 0x3c, 0x96, 0x69, 0x0f, 0xf0}
			if err := c.Write(addr&^7, make([]byte, 16)); err != nil {
				t.Fatal(err)
			}
			if err := c.Write(addr, canary[:]); err != nil {
				t.Fatal(err)
			}
			setX87(t, c, s)
			before, _ := readX87(c)
			st, fault := c.x87Exec(op+1, addr)
			got, fcw := readX87(c)
			mem := make([]byte, 8)
			if err := c.Read(addr, mem); err != nil {
				t.Fatal(err)
			}
			counts[st]++
			what := fmt.Sprintf("%s #%d fcw %#04x from %v", name, n, s.fcw, before)
			if fcw != s.fcw {
				t.Errorf("%s: fcw became %#04x", what, fcw)
			}
			if !intel && isPartial(op, s) {
				continue // TestX87FpremPartial checks those
			}
			nm := canary
			want, trapped, code := nativeTrap(op, s, &nm)
			size := x87Store(op)
			if trapped {
				// The state at the fault; the tags as Unicorn
				// computes the others from the contents.
				got.ftw = emptyTags(got.ftw)
				if st != x87Pending || got != want || !bytes.Equal(mem, canary[:]) {
					t.Errorf("%s: pending #MF: status %d, %v\nat the fault %v", what, st, got, want)
				}
				if wc := linuxFPECode(s.fcw, s.fsw); code != wc {
					t.Errorf("%s: si_code %d, Linux's rule says %d", what, code, wc)
				}
				continue
			}
			if fisttp && addr+uint64(size) > 0x12000 {
				want := max(addr, 0x12000)
				if st != x87Refused || fault != want || got != before || !bytes.Equal(mem, canary[:]) {
					t.Errorf("%s: store at %#x: status %d fault %#x, %v", what, addr, st, fault, got)
				}
				continue
			}
			wantSt := x87OK
			if want.fsw&0x80 != 0 {
				wantSt = x87Raised
			}
			for b := range seen {
				if want.fsw&^s.fsw&(1<<uint(b)) != 0 || b == 10 && want.fsw&(1<<10) != 0 {
					seen[b]++
				}
			}
			if st != wantSt || got != want || !bytes.Equal(mem, nm[:]) {
				t.Errorf("%s:\n status %d, %v, mem % x\nnative %d, %v, mem % x", what, st, got, mem, wantSt, want, nm[:])
			}
		}
		t.Logf("%s: %d inputs: %d ran, %d raised #MF, %d pending #MF, %d refused stores; newly set IE %d (SF %d) DE %d ZE %d OE %d UE %d PE %d; C2 set after %d",
			name, perOp, counts[x87OK], counts[x87Raised], counts[x87Pending], counts[x87Refused],
			seen[0], seen[6], seen[1], seen[2], seen[3], seen[4], seen[5], seen[10])
	}
}

// TestX87FpremLoop runs fprem and fprem1 as software does, again while
// C2 says the remainder is partial, on operands whose exponents differ by
// up to 16000: every step equals the hardware's step from the same state,
// and the loop ends as it ends natively, after as many steps (on a host
// that follows Intel's rule for partial remainders, as icount does).
func TestX87FpremLoop(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if !hostPartialIsIntel() {
		t.Skip("this host's x87 computes other partial remainders than icount (Intel's): TestX87FpremPartial checks them")
	}
	c := newX87CPU(t)
	r := rand.New(rand.NewSource(8))
	for n := 0; n < 100; n++ {
		op := 8 + n%2 // fprem, fprem1
		s := &x87State{fcw: 0x37f, fsw: 6 << 11}
		for i := range s.empty {
			s.empty[i] = true
		}
		s.empty[6], s.empty[7] = false, false
		s.regs[6] = mkf80(r.Intn(2) == 0, uint16(0x3fff+r.Intn(16000)), r.Uint64()|1<<63)
		s.regs[7] = mkf80(r.Intn(2) == 0, uint16(0x3fff-r.Intn(60)), r.Uint64()|1<<63)
		steps := 0
		for ; ; steps++ {
			setX87(t, c, s)
			if st, _ := c.x87Exec(op+1, 0); st != x87OK {
				t.Fatalf("status %d", st)
			}
			got, _ := readX87(c)
			var m [8]byte
			want := native(op, s, &m)
			if got != want {
				t.Fatalf("%s #%d step %d:\n   %v\nnative %v", x87native.Ops[op], n, steps, got, want)
			}
			s.fsw, s.regs = got.fsw, got.regs
			if got.fsw&0x400 == 0 || steps > 1000 {
				break
			}
		}
		if steps < 2 && n < 4 {
			t.Logf("%s #%d: %d steps", x87native.Ops[op], n, steps+1)
		}
	}
}

// BenchmarkX87Exec measures one emulated fsin (from Go, so with a cgo
// call's cost).
func BenchmarkX87Exec(b *testing.B) {
	c, err := New(X86_64, Hooks{}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	c.SetReg(X86FPCW, 0x37f)
	c.SetReg(X86FPSW, 7<<11)
	c.SetReg(X86FPTAG, 0x3fff)
	v := mkf80(false, 0x3fff, 0xc90fdaa22168c235)
	c.SetRegBytes(X86ST(0), v[:])
	for i := 0; i < b.N; i++ {
		c.x87Exec(1, 0)
	}
}

// TestX87GuestView checks what the guest's own instructions see after an
// emulated one: QEMU's fnsave, run right after it, stores the control
// and status words, the tag word and the registers the hardware left
// (natively), FIP at the instruction and, for fisttp, FDP at its operand.
func TestX87GuestView(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c, err := New(X86_64, Hooks{NewBlock: func(id uint32, addr uint64, size uint32) BlockInfo {
		return BlockInfo{Instructions: 2}
	}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const code, save, rip = 0x400000, 0x10800, 0x400123
	if err := c.Map(0x10000, PageSize, ProtRead|ProtWrite); err != nil {
		t.Fatal(err)
	}
	if err := c.Map(code, PageSize, ProtRead|ProtExec); err != nil {
		t.Fatal(err)
	}
	// fnsave save; hlt
	if err := c.Write(code, []byte{0xdd, 0x34, 0x25, save & 0xff, save >> 8 & 0xff, save >> 16, 0, 0xf4}); err != nil {
		t.Fatal(err)
	}
	g := x87Gen{rand.New(rand.NewSource(7))}
	for op, name := range x87native.Ops {
		for n := 0; n < 100; n++ {
			s := g.state(false)
			addr := uint64(0x10100 + 8*n)
			setX87(t, c, s)
			if err := c.SetReg(X86RIP, rip); err != nil {
				t.Fatal(err)
			}
			if st, _ := c.x87Exec(op+1, addr); st != x87OK && st != x87Raised {
				t.Fatalf("%s: status %d", name, st)
			}
			if err := c.Run(code, nil); err != nil {
				t.Fatal(err)
			}
			img := make([]byte, 108)
			if err := c.Read(save, img); err != nil {
				t.Fatal(err)
			}
			var m [8]byte
			want := s.image()
			x87native.Run(op, want, &m)
			le := binary.LittleEndian
			for _, f := range []struct {
				what      string
				got, want uint64
			}{
				{"fcw", uint64(le.Uint16(img[0:])), uint64(le.Uint16(want[0:]))},
				{"fsw", uint64(le.Uint16(img[4:])), uint64(le.Uint16(want[4:]))},
				{"ftw", uint64(le.Uint16(img[8:])), uint64(le.Uint16(want[8:]))},
				{"fip", uint64(le.Uint32(img[12:])), rip},
			} {
				if f.got != f.want {
					t.Errorf("%s #%d: the guest's fnsave has %s %#x, want %#x", name, n, f.what, f.got, f.want)
				}
			}
			if x87Store(op) > 0 && uint64(le.Uint32(img[20:])) != addr {
				t.Errorf("%s #%d: fdp %#x, want %#x", name, n, le.Uint32(img[20:]), addr)
			}
			if !bytes.Equal(img[28:], want[28:]) {
				t.Errorf("%s #%d: the guest's fnsave has registers % x\nnative % x", name, n, img[28:], want[28:])
			}
		}
	}
}

// x87Partial are fprem (op 8) and fprem1 (op 9) steps that compute a
// partial remainder, from ST(0) = e0:m0 and ST(1) = e1:m1 (sign and
// exponent, significand) to ST(0) = er:mr with status word fsw (TOP 6),
// as an Intel Xeon computes them: the architecture leaves the step's size
// to the processor, and icount follows Intel's rule on any host (x87.c).
var x87Partial = []struct {
	op  int
	e0  uint16
	m0  uint64
	e1  uint16
	m1  uint64
	er  uint16
	mr  uint64
	fsw uint16
}{
	{8, 0x403f, 0xc90fdaa22168c234, 0x3fff, 0xb17217f7d1cf79ab, 0x401e, 0xfc20194e907c49d2, 0x3400},
	{9, 0x403f, 0xc90fdaa22168c234, 0x3fff, 0xb17217f7d1cf79ab, 0x401e, 0xfc20194e907c49d2, 0x3400},
	{8, 0x405e, 0xfedcba9876543210, 0x4000, 0xc90fdaa22168c235, 0x401e, 0xc279eb40d4c16820, 0x3400},
	{9, 0xc05f, 0xfedcba9876543210, 0x4000, 0xc90fdaa22168c235, 0xc01f, 0xc279eb40d4c16820, 0x3400},
	{8, 0x407e, 0x8000000000000001, 0xbffe, 0xaaaaaaaaaaaaaaab, 0x403e, 0xc000000000000000, 0x3400},
	{9, 0x43e7, 0x9e3779b97f4a7c15, 0x4001, 0xc90fdaa22168c235, 0x43c1, 0x941b608923c2af99, 0x3400},
	{8, 0xfe7f, 0xd1b54a32d192ed03, 0x3f9b, 0xf39cc0605cedc834, 0xfe5a, 0xf2130e760c80bed8, 0x3400},
	{9, 0x7ffe, 0xffffffffffffffff, 0x0001, 0x8000000000000000, 0x7fc0, 0xc000000000000000, 0x3400},
}

func partialState(e0 uint16, m0 uint64, e1 uint16, m1 uint64) *x87State {
	s := &x87State{fcw: 0x37f, fsw: 6 << 11}
	for i := range s.empty {
		s.empty[i] = i < 6
	}
	s.regs[6] = mkf80(false, e0, m0)
	s.regs[7] = mkf80(false, e1, m1)
	return s
}

// TestX87FpremPartial checks the partial remainders icount computes
// against those an Intel Xeon computed, on any host.
func TestX87FpremPartial(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := newX87CPU(t)
	for _, k := range x87Partial {
		s := partialState(k.e0, k.m0, k.e1, k.m1)
		setX87(t, c, s)
		if st, _ := c.x87Exec(k.op+1, 0); st != x87OK {
			t.Fatalf("status %d", st)
		}
		got, _ := readX87(c)
		want := s.regs
		want[6] = mkf80(false, k.er, k.mr)
		if got.fsw != k.fsw || got.regs != want {
			t.Errorf("%s of %04x_%016x by %04x_%016x: %v, want fsw %#04x st0 %04x_%016x",
				x87native.Ops[k.op], k.e0, k.m0, k.e1, k.m1, got, k.fsw, k.er, k.mr)
		}
	}
	if !hostPartialIsIntel() {
		t.Log("this host's x87 computes other partial remainders: icount's are Intel's")
	}
}

// hostPartialIsIntel says whether this host's own fprem and fprem1 give
// x87Partial's results.
func hostPartialIsIntel() bool {
	for _, k := range x87Partial {
		var m [8]byte
		r := native(k.op, partialState(k.e0, k.m0, k.e1, k.m1), &m)
		if r.fsw != k.fsw || r.regs[6] != mkf80(false, k.er, k.mr) {
			return false
		}
	}
	return true
}

// isPartial says whether op (fprem, fprem1) computes a partial remainder
// from s, a step whose size the architecture leaves to the processor:
// ST(0) and ST(1) normal, their exponents 64 or more apart.
func isPartial(op int, s *x87State) bool {
	if op != 8 && op != 9 || s.empty[s.st(0)] || s.empty[s.st(1)] {
		return false
	}
	a, b := s.regs[s.st(0)], s.regs[s.st(1)]
	e0, e1 := binary.LittleEndian.Uint16(a[8:])&0x7fff, binary.LittleEndian.Uint16(b[8:])&0x7fff
	normal := func(v f80, e uint16) bool { return e != 0 && e != 0x7fff && v[7]&0x80 != 0 }
	return normal(a, e0) && normal(b, e1) && int(e0)-int(e1) >= 64
}
