package kernel

import (
	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// arch_prctl codes.
const (
	archSetGS = 0x1001
	archSetFS = 0x1002
	archGetFS = 0x1003
	archGetGS = 0x1004
)

// sysArchPrctl sets and reads the x86-64 TLS bases.
func sysArchPrctl(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	switch a[0] {
	case archSetFS:
		return 0, p.cpu.SetReg(emu.X86FSBase, a[1])
	case archSetGS:
		return 0, p.cpu.SetReg(emu.X86GSBase, a[1])
	case archGetFS:
		return 0, p.writeU64(a[1], p.cpu.Reg(emu.X86FSBase))
	case archGetGS:
		return 0, p.writeU64(a[1], p.cpu.Reg(emu.X86GSBase))
	}
	// CET and AMX permission requests: the emulated CPU has neither.
	return 0, unix.EINVAL
}
