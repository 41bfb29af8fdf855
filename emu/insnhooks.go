package emu

/*
#include <stdlib.h>
#include "insnhooks.h"
*/
import "C"

import (
	"fmt"
	"sort"
	"unsafe"
)

// CounterInsn is an instruction that reads the CPU's counter, which icount
// emulates from the guest's clock.
type CounterInsn int

// Counter-reading instructions; the values match insnhooks.h.
const (
	RDTSC  CounterInsn = C.IC_RDTSC
	RDTSCP CounterInsn = C.IC_RDTSCP
	// arm64: mrs of the generic timer's counts, and of its frequency
	// (which reads no clock).
	CNTVCT   CounterInsn = C.IC_CNTVCT
	CNTVCTSS CounterInsn = C.IC_CNTVCTSS
	CNTPCT   CounterInsn = C.IC_CNTPCT
	CNTPCTSS CounterInsn = C.IC_CNTPCTSS
	CNTFRQ   CounterInsn = C.IC_CNTFRQ
)

func (k CounterInsn) String() string {
	switch k {
	case RDTSC:
		return "rdtsc"
	case RDTSCP:
		return "rdtscp"
	case CNTVCT:
		return "CNTVCT_EL0"
	case CNTVCTSS:
		return "CNTVCTSS_EL0"
	case CNTPCT:
		return "CNTPCT_EL0"
	case CNTPCTSS:
		return "CNTPCTSS_EL0"
	case CNTFRQ:
		return "CNTFRQ_EL0"
	}
	return fmt.Sprintf("counter(%d)", int(k))
}

// TSCAux is IA32_TSC_AUX, what rdtscp returns in ECX: CPU 0 of node 0, as
// Linux sets it for the first CPU.
const TSCAux = 0

// counterHooks are the Go functions behind the counter instructions.
type counterHooks struct {
	read func(insn CounterInsn) uint64
	// remaining says how many instructions of a block lie at or after pc.
	remaining func(b Block, pc uint64) uint32
	watched   map[uint64]int // addresses with a counter hook, and the instruction's length
}

// SetCounter gives the CPU what its counter-reading instructions return.
// read returns the counter's value for one execution of insn. remaining
// says how many instructions of the translated block b (its ID, Addr and
// Size as the block table has them) lie at or after pc: an emulated
// counter read ends its block, and the instructions after it are taken
// back from the block's count (they run, and count, as a block of their
// own).
func (c *CPU) SetCounter(read func(insn CounterInsn) uint64, remaining func(b Block, pc uint64) uint32) {
	c.counter.read, c.counter.remaining = read, remaining
}

// CounterInsnAt tells whether code starts with a counter-reading
// instruction (rdtsc or rdtscp, with any prefixes), and its length.
func CounterInsnAt(code []byte) (CounterInsn, int) {
	i := 0
	for i < len(code) && i < 14 && isPrefix(code[i]) {
		i++
	}
	switch {
	case i+2 <= len(code) && code[i] == 0x0f && code[i+1] == 0x31:
		return RDTSC, i + 2
	case i+3 <= len(code) && code[i] == 0x0f && code[i+1] == 0x01 && code[i+2] == 0xf9:
		return RDTSCP, i + 3
	}
	return 0, 0
}

// WatchCounterAt hooks the counter read (rdtsc, rdtscp, with any
// prefixes) of size bytes at pc, unless it has a hook already, so that it
// reads the guest's clock instead of the host's; it reports whether it had
// none. The translated code holding pc is discarded: a block whose counter
// read is hooked as it is first seen must start over (BlockInfo.Restart).
func (c *CPU) WatchCounterAt(pc uint64, size int) (bool, error) {
	if _, ok := c.counter.watched[pc]; ok {
		return false, nil
	}
	if err := check("hook counter read", C.ic_watch_counter(c.st, C.uint64_t(pc), C.uint32_t(size))); err != nil {
		return false, err
	}
	if c.counter.watched == nil {
		c.counter.watched = map[uint64]int{}
	}
	c.counter.watched[pc] = size
	return true, nil
}

func isPrefix(b byte) bool {
	switch b {
	case 0x66, 0x67, 0xf2, 0xf3, 0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65:
		return true
	}
	return b&0xf0 == 0x40 // REX
}

// CopyCounterWatchesFrom hooks on c every counter-reading instruction
// from hooks: a fork's, whose memory is from's, need not search it again.
func (c *CPU) CopyCounterWatchesFrom(from *CPU) error {
	pcs := make([]uint64, 0, len(from.counter.watched))
	for pc := range from.counter.watched {
		pcs = append(pcs, pc)
	}
	sort.Slice(pcs, func(i, j int) bool { return pcs[i] < pcs[j] })
	for _, pc := range pcs {
		if _, err := c.WatchCounterAt(pc, from.counter.watched[pc]); err != nil {
			return err
		}
	}
	return nil
}

// CounterSites returns how many addresses have a counter hook.
func (c *CPU) CounterSites() int { return len(c.counter.watched) }

// installInsnHooks installs the hooks of whole instruction classes (cpuid).
func (c *CPU) installInsnHooks() error {
	return check("install instruction hooks", C.ic_install_insn_hooks(c.st, C.int(c.arch)))
}

//export icountGoCounter
func icountGoCounter(h C.uintptr_t, pc C.uint64_t, size C.uint32_t, kind C.int, value *C.uint64_t, aux *C.uint32_t) (notrun C.uint32_t) {
	c := cpuOf(h)
	c.guard(func() {
		var v uint64
		if c.counter.read != nil {
			v = c.counter.read(CounterInsn(kind))
		}
		*value, *aux = C.uint64_t(v), TSCAux
		// size 0: the instruction does not end its block (arm64's mrs).
		next := uint64(pc) + uint64(size)
		if b := c.st.cur; b != nil && size > 0 && c.counter.remaining != nil &&
			uint64(pc) >= uint64(b.addr) && next <= uint64(b.addr)+uint64(b.size) {
			notrun = C.uint32_t(c.counter.remaining(blockOf(b), next))
		}
	})
	return notrun
}

//export icountGoCPUID
func icountGoCPUID(h C.uintptr_t, leaf, sub C.uint32_t, out *C.uint32_t) {
	r := unsafe.Slice((*uint32)(unsafe.Pointer(out)), 4)
	r[0], r[1], r[2], r[3] = CPUID(uint32(leaf), uint32(sub))
}
