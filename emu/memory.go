package emu

/*
#include "hotpath.h"
#include "memory.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Guest memory is icount's own page table (memory.c), which the emulator
// asks on every TLB miss, over host memory reserved lazily: mapping,
// unmapping and protecting memory change the page table only, at a cost
// that does not grow with the number of mappings.

// addrLimit bounds guest addresses.
const addrLimit = 1 << C.IC_ADDR_BITS

// MemoryError says why guest memory could not be mapped or accessed.
type MemoryError struct {
	Op   string // "map 0x1000+0x2000", "read 0x10+8", ...
	Addr uint64 // the first address at fault
	What string
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("%s: %s at %#x", e.Op, e.What, e.Addr)
}

// pages checks that [addr, addr+size) is a non-empty page-aligned range of
// guest addresses.
func pages(op string, addr, size uint64) error {
	if addr%PageSize != 0 || size%PageSize != 0 || size == 0 {
		return &MemoryError{Op: op, Addr: addr, What: "not a page-aligned range"}
	}
	if addr >= addrLimit || size > addrLimit-addr {
		return &MemoryError{Op: op, Addr: addr, What: "beyond the guest address space"}
	}
	return nil
}

func (c *CPU) back(op string, addr, size uint64) error {
	if C.ic_mem_back(c.mem, C.uint64_t(addr), C.uint64_t(addr+size)) != 0 {
		return &MemoryError{Op: op, Addr: addr, What: "out of host address space"}
	}
	return nil
}

func (c *CPU) set(op string, addr, size uint64, value C.uint8_t) error {
	return c.update(op, addr, size, 0, value)
}

// update gives the pages of [addr, addr+size) the value (old & keep) | value.
func (c *CPU) update(op string, addr, size uint64, keep, value C.uint8_t) error {
	if C.ic_mem_update(c.mem, C.uint64_t(addr), C.uint64_t(addr+size), keep, value) != 0 {
		return &MemoryError{Op: op, Addr: addr, What: "out of memory for the page table"}
	}
	return nil
}

// Map maps [addr, addr+size) with prot; both must be page aligned, and no
// page of the range mapped already. New memory reads as zeros.
func (c *CPU) Map(addr, size uint64, prot Prot) error {
	op := fmt.Sprintf("map %#x+%#x", addr, size)
	if err := pages(op, addr, size); err != nil {
		return err
	}
	if C.ic_mem_any(c.mem, C.uint64_t(addr), C.uint64_t(addr+size))&C.IC_MAPPED != 0 {
		return &MemoryError{Op: op, Addr: addr, What: "already mapped"}
	}
	// Memory no access is allowed to (a reservation) needs no host memory
	// until it is made accessible.
	if prot&ProtAll != 0 {
		if err := c.back(op, addr, size); err != nil {
			return err
		}
	}
	// Nothing was mapped: the emulator's TLB holds nothing of the range.
	return c.set(op, addr, size, C.uint8_t(prot&ProtAll)|C.IC_MAPPED)
}

// Unmap unmaps [addr, addr+size); pages not mapped are skipped. The memory
// is zeroed, so that a later mapping reads zeros.
func (c *CPU) Unmap(addr, size uint64) error {
	op := fmt.Sprintf("unmap %#x+%#x", addr, size)
	if err := pages(op, addr, size); err != nil {
		return err
	}
	old := C.ic_mem_any(c.mem, C.uint64_t(addr), C.uint64_t(addr+size))
	if old == 0 {
		return nil
	}
	if old&C.IC_CODE != 0 {
		// The code goes with its pages (and their marks).
		if err := c.InvalidateCode(addr, size); err != nil {
			return err
		}
	}
	if err := c.set(op, addr, size, 0); err != nil {
		return err
	}
	C.ic_mem_release(c.mem, C.uint64_t(addr), C.uint64_t(addr+size), C.int(old&C.IC_FILE))
	if old&C.UC_PROT_ALL != 0 {
		return check("flush TLB", C.ic_mem_flush_tlb(c.mem))
	}
	return nil
}

// Protect changes the permissions of [addr, addr+size), which must be
// mapped.
func (c *CPU) Protect(addr, size uint64, prot Prot) error {
	op := fmt.Sprintf("protect %#x+%#x", addr, size)
	if err := pages(op, addr, size); err != nil {
		return err
	}
	if bad := uint64(C.ic_mem_find(c.mem, C.uint64_t(addr), C.uint64_t(addr+size), 0)); bad != addr+size {
		return &MemoryError{Op: op, Addr: bad, What: "not mapped"}
	}
	if prot&ProtAll != 0 {
		if err := c.back(op, addr, size); err != nil {
			return err
		}
	}
	old := Prot(C.ic_mem_any(c.mem, C.uint64_t(addr), C.uint64_t(addr+size)))
	// A page holding translated code stays marked (IC_CODE): made writable,
	// the TLB gives it no write access, and a store there discards its code.
	// A file's page stays one (IC_FILE, IC_BEYOND).
	if err := c.update(op, addr, size, C.IC_CODE|C.IC_FILE|C.IC_BEYOND, C.uint8_t(prot&ProtAll)|C.IC_MAPPED); err != nil {
		return err
	}
	// The TLB may hold a permission taken away; one given needs no flush,
	// since refusals are not cached.
	if old&^prot&ProtAll != 0 {
		return check("flush TLB", C.ic_mem_flush_tlb(c.mem))
	}
	return nil
}

// MapFile shows the host file fd's bytes from offset off (page aligned)
// in [addr, addr+size), mapped (Map) and not written since: the host maps
// the file there, privately, so that the guest reads the file's pages,
// shared with the host's page cache, without a copy of them, and a write
// (the guest's or icount's) gives its page a private copy that never
// reaches the file. The file must hold the range's bytes but for part of
// its last page: the host would stop icount with SIGBUS at a page wholly
// past the file's end (see PastEOF). What the guest sees of the file's
// pages it has not written is the host's page cache, as on Linux: a change
// to the file shows in them. MapFile reports false, the memory left
// reading zeros, when the host cannot map the file; a fork's copy
// (CopyMemoryFrom) has the file's bytes in memory of its own.
func (c *CPU) MapFile(addr, size uint64, fd int, off uint64) (bool, error) {
	op := fmt.Sprintf("map file %#x+%#x", addr, size)
	if err := pages(op, addr, size); err != nil {
		return false, err
	}
	if off%PageSize != 0 {
		return false, &MemoryError{Op: op, Addr: addr, What: fmt.Sprintf("file offset %#x not page aligned", off)}
	}
	if bad := uint64(C.ic_mem_find(c.mem, C.uint64_t(addr), C.uint64_t(addr+size), 0)); bad != addr+size {
		return false, &MemoryError{Op: op, Addr: bad, What: "not mapped"}
	}
	return C.ic_mem_map_file(c.mem, C.uint64_t(addr), C.uint64_t(addr+size), C.int(fd), C.uint64_t(off)) == 0, nil
}

// PastEOF marks the mapped pages of [addr, addr+size) as lying wholly past
// the end of the file they map, as a file's pages past its end when
// mapped, or after it was cut shorter: the guest may access none of them
// (a Fault with PastEOF, Linux's SIGBUS), and their host memory, the
// file's or the guest's copies, is given back. Their translated code is
// discarded.
func (c *CPU) PastEOF(addr, size uint64) error {
	op := fmt.Sprintf("past EOF %#x+%#x", addr, size)
	if err := pages(op, addr, size); err != nil {
		return err
	}
	old := C.ic_mem_any(c.mem, C.uint64_t(addr), C.uint64_t(addr+size))
	if old&C.IC_MAPPED == 0 {
		return nil
	}
	if old&C.IC_CODE != 0 {
		if err := c.InvalidateCode(addr, size); err != nil {
			return err
		}
	}
	for a := addr; a < addr+size; {
		var end C.uint64_t
		v := C.ic_mem_lookup(c.mem, C.uint64_t(a), &end)
		next := min(uint64(end), addr+size)
		if v&C.IC_MAPPED != 0 {
			if err := c.update(op, a, next-a, ^C.uint8_t(C.IC_FILE), C.IC_BEYOND); err != nil {
				return err
			}
		}
		a = next
	}
	C.ic_mem_release(c.mem, C.uint64_t(addr), C.uint64_t(addr+size), C.int(old&C.IC_FILE))
	return check("flush TLB", C.ic_mem_flush_tlb(c.mem))
}

// Zero zeroes the mapped pages of [addr, addr+size), page aligned, and
// gives their host memory back; a file's page (MapFile) holds the file's
// bytes again, as Linux's MADV_DONTNEED gives a private file mapping.
func (c *CPU) Zero(addr, size uint64) error {
	if err := pages(fmt.Sprintf("zero %#x+%#x", addr, size), addr, size); err != nil {
		return err
	}
	C.ic_mem_zero(c.mem, C.uint64_t(addr), C.uint64_t(addr+size))
	return nil
}

// copyMem copies between b and guest memory at addr, after checking that
// every byte is mapped and, with need, that the guest may access it so.
func (c *CPU) copyMem(op string, addr uint64, b []byte, need Prot, write bool) error {
	if len(b) == 0 {
		return nil
	}
	n := uint64(len(b))
	if addr >= addrLimit || n > addrLimit-addr {
		return &MemoryError{Op: fmt.Sprintf("%s %#x+%d", op, addr, n), Addr: addr, What: "beyond the guest address space"}
	}
	if bad := uint64(C.ic_mem_find(c.mem, C.uint64_t(addr), C.uint64_t(addr+n), C.uint8_t(need))); bad != addr+n {
		what := "not mapped"
		if need != 0 && C.ic_mem_get(c.mem, C.uint64_t(bad))&C.IC_MAPPED != 0 {
			what = "protected"
		}
		return &MemoryError{Op: fmt.Sprintf("%s %#x+%d", op, addr, n), Addr: bad, What: what}
	}
	w := C.int(0)
	if write {
		w = 1
	}
	if C.ic_mem_copy(c.mem, C.uint64_t(addr), unsafe.Pointer(&b[0]), C.uint64_t(n), w) != 0 {
		return &MemoryError{Op: fmt.Sprintf("%s %#x+%d", op, addr, n), Addr: addr, What: "out of host address space"}
	}
	return nil
}

// Read copies guest memory at addr into b, whatever its permissions; every
// byte must be mapped.
func (c *CPU) Read(addr uint64, b []byte) error { return c.copyMem("read", addr, b, 0, false) }

// Write copies b into guest memory at addr, whatever its permissions (the
// loader fills read-only segments so); every byte must be mapped. It does
// not discard translated code (see InvalidateCode).
func (c *CPU) Write(addr uint64, b []byte) error { return c.copyMem("write", addr, b, 0, true) }

// ReadAsGuest copies guest memory at addr into b if the guest may read
// every byte of it, as the kernel copies a system call's buffers.
func (c *CPU) ReadAsGuest(addr uint64, b []byte) error {
	return c.copyMem("read", addr, b, ProtRead, false)
}

// WriteAsGuest copies b into guest memory at addr if the guest may write
// every byte of it.
func (c *CPU) WriteAsGuest(addr uint64, b []byte) error {
	return c.copyMem("write", addr, b, ProtWrite, true)
}

// Accessible returns how many of the n bytes at addr the guest may
// access with need, counted from addr up to the first it may not: where a
// kernel's copy to or from user memory stops at a fault.
func (c *CPU) Accessible(addr, n uint64, need Prot) uint64 {
	if n == 0 || addr >= addrLimit {
		return 0
	}
	end := addr + min(n, addrLimit-addr)
	return uint64(C.ic_mem_find(c.mem, C.uint64_t(addr), C.uint64_t(end), C.uint8_t(need))) - addr
}

// InvalidateCode discards translated blocks of [addr, addr+size), for when
// executable memory changes under the emulator: host writes, unmapping and
// protection changes do not discard them. Stores by the guest's own
// instructions discard what they overlap themselves (codewrite.go).
func (c *CPU) InvalidateCode(addr, size uint64) error {
	if size == 0 || addr >= addrLimit {
		return nil
	}
	lo, hi := addr&^(PageSize-1), min(addr+size, addrLimit)
	if hi < addr {
		hi = addrLimit // wrapped
	}
	hi = (hi + PageSize - 1) &^ (PageSize - 1)
	// A page without IC_CODE holds no translated code: every block first
	// seen marks its pages, and only a discard of all their code clears it.
	if C.ic_mem_any(c.mem, C.uint64_t(lo), C.uint64_t(hi))&C.IC_CODE == 0 {
		return nil
	}
	// The sites hooked in the old code go (their cuts told first, while
	// their blocks are known), and the block table forgets the old blocks
	// too: a block of new code with an old one's address and size is a new
	// block, decoded afresh, and its sites hooked then.
	if err := c.DropSites(addr, size); err != nil {
		return err
	}
	C.ic_forget_code(c.st, C.uint64_t(addr), C.uint64_t(addr+size))
	if err := check("remove translation cache", C.ic_mem_remove_cache(c.mem, C.uint64_t(addr), C.uint64_t(addr+size))); err != nil {
		return err
	}
	// The pages wholly inside hold no code now.
	if wlo, whi := (addr+PageSize-1)&^(PageSize-1), min(addr+size, addrLimit)&^(PageSize-1); wlo < whi && addr+size > addr {
		return c.update(fmt.Sprintf("invalidate %#x+%#x", addr, size), wlo, whi-wlo, ^C.uint8_t(C.IC_CODE), 0)
	}
	return nil
}

// refusal is the first memory access the page table refused in a run, if
// any.
type refusal struct {
	ok    bool
	typ   C.int
	page  uint64 // the emulator's page: 4 KiB on x86-64, 1 KiB on arm64
	value C.uint8_t
	code  bool // a store into a page holding translated code, not a fault
	// suspect is a fetch from a suspect page (spare.go), not a fault.
	suspect bool
}

func (c *CPU) clearRefusal() { c.mem.refused = 0 }

func (c *CPU) lastRefusal() refusal {
	m := c.mem
	return refusal{ok: m.refused != 0, typ: m.refused_type, page: uint64(m.refused_at), value: m.refused_page,
		code: m.refused_code != 0, suspect: m.refused_suspect != 0}
}
