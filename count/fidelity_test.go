package count

import (
	"testing"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/arch/x86/x86asm"
)

// TestFidelityWarningsCounts checks that an instruction with a known
// difference is counted by the executions of its block that reached it:
// a block of mov, fnstsw (index 1), mov, stmxcsr (3) run 10 times, 3 of
// them cut at the first mov and 2 at the last mov.
func TestFidelityWarningsCounts(t *testing.T) {
	code := []byte{
		0x89, 0xc0, // mov %eax,%eax
		0xdf, 0xe0, // fnstsw %ax
		0x89, 0xc0, // mov %eax,%eax
		0x0f, 0xae, 0x1f, // stmxcsr (%rdi)
	}
	db := &decodedBlock{blockShape: &blockShape{code: code, starts: []uint32{0, 2, 4, 6}}, cuts: map[int]uint64{0: 3, 2: 2}}
	var insts []x86asm.Inst
	for _, off := range db.starts {
		inst, _, err := x86Decode(code[off:])
		if err != nil {
			t.Fatal(err)
		}
		insts = append(insts, inst)
	}
	db.note(shapeNotes{fidelity: classifyFidelity(emu.X86_64, insts)})
	if f := db.differences(); len(f) != 2 || f[0].index != 1 || f[1].index != 3 {
		t.Fatalf("classified %+v", f)
	}
	b := emu.Block{Addr: 0x1000, Size: uint32(len(code)), Instructions: 4, Executions: 10, Cut: 3*4 + 2*2}
	r := ranBlock{Block: &b, dec: db, detail: &ranDetail{cuts: cutsOf(db, 4, b.Cut)}}
	got := fidelityWarnings([]ranBlock{r})
	want := []string{
		"`fnstsw` ran 7 times and may give another result than on hardware: " + flagsPartial,
		"`stmxcsr` ran 5 times and may give another result than on hardware: " + flagsPartial,
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("warnings %q, want %q", got, want)
	}
}
