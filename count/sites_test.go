package count

import (
	"testing"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/arch/x86/x86asm"
)

// TestSitesX86 checks which instructions of a block get a site, and of
// which kind: a fix only where its difference can show.
func TestSitesX86(t *testing.T) {
	for _, c := range []struct {
		name string
		code []byte
		want []emu.SiteKind // by instruction, 0 for none
	}{
		{"lock: EAX written as 32 bits", []byte{0x31, 0xc0, 0xba, 1, 0, 0, 0, 0xf0, 0x0f, 0xb1, 0x17}, // xor %eax,%eax; mov $1,%edx; lock cmpxchg %edx,(%rdi)
			[]emu.SiteKind{0, 0, 0}},
		{"lock: RAX unknown", []byte{0x49, 0x89, 0xc5, 0xf0, 0x0f, 0xb1, 0x17}, // mov %rax,%r13; lock cmpxchg %edx,(%rdi)
			[]emu.SiteKind{0, emu.SiteCmpxchg32}},
		{"register destination unknown", []byte{0x31, 0xc0, 0x0f, 0xb1, 0xd1}, // xor %eax,%eax; cmpxchg %edx,%ecx
			[]emu.SiteKind{0, emu.SiteCmpxchg32}},
		{"register destination written", []byte{0x89, 0xf1, 0x31, 0xc0, 0x0f, 0xb1, 0xd1}, // mov %esi,%ecx; xor %eax,%eax; cmpxchg %edx,%ecx
			[]emu.SiteKind{0, 0, 0}},
		{"cmpxchg of a byte", []byte{0x49, 0x89, 0xc5, 0x0f, 0xb0, 0xc8, 0xf0, 0x0f, 0xb0, 0x0f}, // mov %rax,%r13; cmpxchg %cl,%al; lock cmpxchg %cl,(%rdi)
			[]emu.SiteKind{0, 0, 0}},
		{"bsf after pmovmskb", []byte{0x66, 0x0f, 0xd7, 0xc0, 0x0f, 0xbc, 0xc0}, // pmovmskb %xmm0,%eax; bsf %eax,%eax
			[]emu.SiteKind{0, 0}},
		{"bsf alone", []byte{0x0f, 0xbc, 0xc0}, []emu.SiteKind{emu.SiteBitScan32}},
		{"bsf after a 16-bit write", []byte{0x66, 0x89, 0xc8, 0x0f, 0xbd, 0xc0}, // mov %cx,%ax; bsr %eax,%eax
			[]emu.SiteKind{0, emu.SiteBitScan32}},
		{"bsf after one-operand imul", []byte{0x89, 0xc0, 0x48, 0xf7, 0xe9, 0x0f, 0xbc, 0xd0}, // mov %eax,%eax; imul %rcx; bsf %eax,%edx
			[]emu.SiteKind{0, 0, emu.SiteBitScan32}},
		{"bsf of 64 bits", []byte{0x48, 0x0f, 0xbc, 0xc0}, []emu.SiteKind{0}},
		{"lock neg", []byte{0xf0, 0xf7, 0x1f}, []emu.SiteKind{emu.SiteLockNeg}},
		{"neg", []byte{0xf7, 0x1f}, []emu.SiteKind{0}},
		{"vex", []byte{0xc5, 0xf3, 0x58, 0xc2, 0x3e, 0xc4, 0xe2, 0x7d, 0x78, 0xc8}, // vaddsd; ds vpbroadcastb
			[]emu.SiteKind{emu.SiteIllegal, emu.SiteIllegal}},
		{"privileged", []byte{0xf4, 0x0f, 0x20, 0xc0, 0x0f, 0x01, 0xf8, 0xec, 0x90}, // hlt; mov %cr0,%rax; swapgs; in (%dx),%al; nop
			[]emu.SiteKind{emu.SitePrivileged, emu.SitePrivileged, emu.SitePrivileged, emu.SitePrivileged, 0}},
	} {
		var starts []uint32
		var insts []x86asm.Inst
		for off := 0; off < len(c.code); {
			inst, n, err := x86Decode(c.code[off:])
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			starts, insts = append(starts, uint32(off)), append(insts, inst)
			off += n
		}
		got := make([]emu.SiteKind, len(starts))
		for _, s := range sitesX86(c.code, starts, insts, 0x1000) {
			for i, off := range starts {
				if 0x1000+uint64(off) == s.PC {
					got[i] = s.Kind
				}
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: %d instructions, want %d", c.name, len(got), len(c.want))
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: sites %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

// TestSitesARM64 checks the arm64 system instructions refused at EL0 and
// those left to run.
func TestSitesARM64(t *testing.T) {
	for _, c := range []struct {
		name string
		w    uint32
		want emu.SiteKind
	}{
		{"wfi", 0xd503207f, emu.SiteNop}, {"wfe", 0xd503205f, emu.SiteNop}, {"yield", 0xd503203f, 0},
		{"msr daifset, #2", 0xd50342df, emu.SitePrivileged}, {"msr daifclr, #2", 0xd50342ff, emu.SitePrivileged},
		{"mrs x1, sctlr_el1", 0xd5381001, emu.SitePrivileged}, {"mrs x0, daif", 0xd53b4220, emu.SitePrivileged},
		{"mrs x0, midr_el1", 0xd5380000, 0}, {"mrs x0, id_aa64pfr0_el1", 0xd5380400, 0},
		{"mrs x0, cntvct_el0", 0xd53be040, 0}, {"mrs x0, cntfrq_el0", 0xd53be000, 0},
		{"mrs x0, cntv_ctl_el0", 0xd53be320, emu.SitePrivileged}, {"mrs x0, pmccntr_el0", 0xd53b9d00, emu.SitePrivileged},
		{"mrs x0, tpidr_el0", 0xd53bd040, 0}, {"msr tpidr_el0, x0", 0xd51bd040, 0},
		{"mrs x0, tpidrro_el0", 0xd53bd060, 0}, {"msr tpidrro_el0, x0", 0xd51bd060, emu.SitePrivileged},
		{"mrs x0, ctr_el0", 0xd53b0020, 0}, {"mrs x0, dczid_el0", 0xd53b00e0, 0},
		{"mrs x0, fpcr", 0xd53b4400, 0}, {"msr nzcv, x0", 0xd51b4200, 0},
		{"dc zva", 0xd50b7420, 0}, {"dc cvau", 0xd50b7b20, 0}, {"dc civac", 0xd50b7e20, 0}, {"ic ivau", 0xd50b7520, 0},
		{"dc ivac", 0xd5087620, emu.SitePrivileged}, {"ic iallu", 0xd508751f, emu.SitePrivileged},
		{"tlbi vmalle1", 0xd508871f, emu.SitePrivileged}, {"at s1e1r", 0xd5087800, emu.SitePrivileged},
		{"eret", 0xd69f03e0, emu.SitePrivileged}, {"hlt #0", 0xd4400000, emu.SitePrivileged},
		{"msr spsel, #1", 0xd50041bf, emu.SitePrivileged},
		{"dmb ish", 0xd5033bbf, 0}, {"isb", 0xd5033fdf, 0}, {"clrex", 0xd503305f, 0}, {"svc #0", 0xd4000001, 0},
		{"brk #0", 0xd4200000, 0},
	} {
		code := []byte{byte(c.w), byte(c.w >> 8), byte(c.w >> 16), byte(c.w >> 24)}
		var got emu.SiteKind
		if s := sitesARM64(code, 0x1000); len(s) == 1 {
			got = s[0].Kind
		}
		if got != c.want {
			t.Errorf("%s (%#08x): site %v, want %v", c.name, c.w, got, c.want)
		}
	}
}
