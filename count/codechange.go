package count

import "github.com/icount-dev/icount/emu"

// codeCPU is the CPU as the kernel drives it. The kernel discards the
// translations of executable memory that changes (munmap, MAP_FIXED,
// mprotect, a system call writing into it); the decoder then sets aside
// the blocks decoded there, as the emulator's block table does, so that a
// block of new code, even one with an old block's address and size, is
// decoded and counted as what it is.
type codeCPU struct {
	*emu.CPU
	dec *decoder
}

// InvalidateCode forgets the blocks of [addr, addr+size) and discards
// their translations.
func (c *codeCPU) InvalidateCode(addr, size uint64) error {
	c.dec.forget(addr, size)
	if err := c.CPU.DropSites(addr, size); err != nil {
		return err
	}
	return c.CPU.InvalidateCode(addr, size)
}
