package count

import (
	"encoding/binary"
	"testing"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/profile"
)

func TestClassifyX86(t *testing.T) {
	for _, c := range []struct {
		asm  string
		code []byte
		want kind
	}{
		{"mov (%rdi),%eax", []byte{0x8b, 0x07}, kLoad},
		{"mov %eax,(%rdi)", []byte{0x89, 0x07}, kStore},
		{"add %eax,(%rdi)", []byte{0x01, 0x07}, kLoad | kStore},
		{"cmp %eax,(%rdi)", []byte{0x39, 0x07}, kLoad},
		{"xchg %eax,(%rdi)", []byte{0x87, 0x07}, kLoad | kStore},
		{"push %rbx", []byte{0x53}, kStore},
		{"pop %rbx", []byte{0x5b}, kLoad},
		{"push (%rdi)", []byte{0xff, 0x37}, kLoad | kStore},
		{"leave", []byte{0xc9}, kLoad},
		{"rep movsb", []byte{0xf3, 0xa4}, kLoad | kStore},
		{"stos %rax,%es:(%rdi)", []byte{0x48, 0xab}, kStore},
		{"lods %ds:(%rsi),%al", []byte{0xac}, kLoad},
		{"lea (%rdi),%rax", []byte{0x48, 0x8d, 0x07}, 0},
		{"nopw 0x0(%rax,%rax,1)", []byte{0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00}, 0},
		{"add %esi,%eax", []byte{0x01, 0xf0}, 0},
		{"call rel32", []byte{0xe8, 0, 0, 0, 0}, kCall},
		{"call *(%rax)", []byte{0xff, 0x10}, kCall | kLoad},
		{"ret", []byte{0xc3}, kReturn},
		{"jne", []byte{0x75, 0x00}, kBranch},
		{"jmp *%rax", []byte{0xff, 0xe0}, kBranch},
		{"syscall", []byte{0x0f, 0x05}, kSyscall},
		{"movaps (%rdi),%xmm0", []byte{0x0f, 0x28, 0x07}, kLoad | kSIMDFP},
		{"movups %xmm0,(%rdi)", []byte{0x0f, 0x11, 0x07}, kStore | kSIMDFP},
		{"addsd %xmm1,%xmm0", []byte{0xf2, 0x0f, 0x58, 0xc1}, kSIMDFP},
		{"fldl (%rdi)", []byte{0xdd, 0x07}, kLoad | kSIMDFP},
		{"fstpl (%rdi)", []byte{0xdd, 0x1f}, kStore | kSIMDFP},
		{"faddp", []byte{0xde, 0xc1}, kSIMDFP},
	} {
		if got := classify(emu.X86_64, c.code); got != c.want {
			t.Errorf("%s: kind %07b, want %07b", c.asm, got, c.want)
		}
	}
}

func TestClassifyARM64(t *testing.T) {
	for _, c := range []struct {
		asm  string
		word uint32
		want kind
	}{
		{"ldr x0, [x1]", 0xf9400020, kLoad},
		{"str x0, [x1]", 0xf9000020, kStore},
		{"ldp x29, x30, [sp], #16", 0xa8c17bfd, kLoad},
		{"stp x29, x30, [sp, #-16]!", 0xa9bf7bfd, kStore},
		{"ldxr x0, [x1]", 0xc85f7c20, kLoad},
		{"stxr w2, x0, [x1]", 0xc8027c20, kStore},
		{"bl", 0x94000000, kCall},
		{"blr x1", 0xd63f0020, kCall},
		{"ret", 0xd65f03c0, kReturn},
		{"b.ne", 0x54000001, kBranch},
		{"cbz x0", 0xb4000000, kBranch},
		{"br x1", 0xd61f0020, kBranch},
		{"svc #0", 0xd4000001, kSyscall},
		{"fadd d0, d1, d2", 0x1e622820, kSIMDFP},
		{"ldr q0, [x1]", 0x3dc00020, kLoad | kSIMDFP},
		{"add v0.4s, v1.4s, v2.4s", 0x4ea28420, kSIMDFP},
		{"add x0, x1, x2", 0x8b020020, 0},
		{"prfm pldl1keep, [x0]", 0xf9800000, 0},
	} {
		code := binary.LittleEndian.AppendUint32(nil, c.word)
		if got := classify(emu.ARM64, code); got != c.want {
			t.Errorf("%s: kind %07b, want %07b", c.asm, got, c.want)
		}
	}
}

func TestMixAdd(t *testing.T) {
	var m profile.Mix
	addKind(&m, kLoad|kSIMDFP, 3)
	addKind(&m, 0, 2)
	addKind(&m, kCall, 1)
	if m != (profile.Mix{Loads: 3, SIMDFP: 3, Other: 2, Calls: 1}) {
		t.Errorf("mix %+v", m)
	}
}

// classify is the kind decode gives the instruction at the start of code,
// alone in a block.
func classify(arch emu.Arch, code []byte) kind {
	d := &decoder{arch: arch}
	sh := d.decode(code, 0x1000)
	if len(sh.kind) == 0 {
		return 0
	}
	return sh.kind[0]
}
