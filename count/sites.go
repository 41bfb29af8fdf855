package count

import (
	"fmt"

	"github.com/icount-dev/icount/emu"
)

// Instruction sites: when a block is first decoded, each of its
// instructions is classified (sitesX86, sitesARM64); one the emulated CPU
// would not execute as the hardware does gets a hook of its own
// (emu.CPU.AddSite) before any instruction of the block runs: the block's
// entry then does not count, and it restarts translated with the hook.
// Blocks without such instructions are untouched.

// siteHooks is what the decoder needs of the CPU to hook sites and
// counter reads.
type siteHooks interface {
	AddSite(emu.Site) (bool, error)
	WatchCounterAt(pc uint64, size int) (bool, error)
}

// hookSites hooks the sites decoding found among the instructions of b,
// and reports whether any hook is new (the block must restart). A site that cannot be hooked runs as the emulator
// runs it, and the run's Profile says so.
func (d *decoder) hookSites(b *decodedBlock, sites []emu.Site) bool {
	if d.cpu == nil || b.code == nil {
		return false
	}
	restart := false
	for _, s := range sites {
		added, err := d.cpu.AddSite(s)
		if err != nil {
			d.failed = append(d.failed, fmt.Sprintf("cannot hook the instruction at %#x: %v", s.PC, err))
			continue
		}
		restart = restart || added
	}
	return restart
}

// siteCuts records that n executions of block b stopped before the
// instruction at from (a site moved the PC past its own instruction, or
// left the block at the next), and returns how many instructions of b lie
// at or after from (emu.CPU.SetSiteCuts).
func (d *decoder) siteCuts(b emu.Block, from, n uint64) uint32 {
	db := d.of(b.ID)
	if db == nil || from < b.Addr || from >= b.Addr+uint64(b.Size) {
		return 0
	}
	off := uint32(from - b.Addr)
	for i, s := range db.starts {
		if s >= off {
			if n > 0 {
				if db.cuts == nil {
					db.cuts = map[int]uint64{}
				}
				db.cuts[i] += n
			}
			return uint32(len(db.starts) - i)
		}
	}
	return 0
}
