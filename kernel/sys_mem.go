package kernel

import (
	"bytes"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// Memory system calls: brk, mmap, munmap, mprotect, mremap, madvise.

// mmap flags (shared by x86-64 and arm64).
const (
	mapShared         = 0x01
	mapPrivate        = 0x02
	mapFixed          = 0x10
	mapAnonymous      = 0x20
	mapFixedNoreplace = 0x100000
)

// mremap's flags.
const (
	mremapMaymove   = 1
	mremapFixed     = 2
	mremapDontunmap = 4
)

// mayMap reports whether the guest may map grow more bytes under
// --max-memory (Options.MaxMemory), which bounds every mapping (the
// executable, the stack, the heap and what it maps) as RLIMIT_AS does. A
// refusal is counted: the guest sees ENOMEM.
func (p *Process) mayMap(grow uint64) bool {
	if p.k.opts.MaxMemory == 0 || grow == 0 {
		return true
	}
	if total := p.mappedIn(0, ^uint64(0)); total+grow > p.k.opts.MaxMemory || total+grow < total {
		p.k.memRefused++
		return false
	}
	return true
}

// mappedIn returns the bytes of [start, end) the guest has mapped.
func (p *Process) mappedIn(start, end uint64) uint64 { return p.mm.vmas.bytesIn(start, end) }

// guestProt converts PROT_* bits, numbered as Unicorn's.
func guestProt(prot uint64) (emu.Prot, error) {
	if prot&^7 != 0 {
		return 0, unix.EINVAL
	}
	return emu.Prot(prot), nil
}

func sysBrk(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	m := p.mm
	want := a[0]
	if want < m.brkStart {
		return m.brk, nil
	}
	oldEnd, newEnd := pageUp(m.brk), pageUp(want)
	switch {
	case newEnd > oldEnd:
		if !p.mayMap(newEnd - oldEnd) {
			return m.brk, nil
		}
		if m.overlaps(oldEnd, newEnd) {
			return m.brk, nil
		}
		if err := m.Map(oldEnd, newEnd-oldEnd, emu.ProtRead|emu.ProtWrite, "[heap]"); err != nil {
			return m.brk, nil
		}
	case newEnd < oldEnd:
		if err := m.unmap(newEnd, oldEnd); err != nil {
			return m.brk, nil
		}
		p.prov.cut(newEnd, oldEnd)
	}
	m.brk = want
	return m.brk, nil
}

func sysMmap(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	addr, length, flags, off := a[0], a[1], a[3], a[5]
	prot, err := guestProt(a[2])
	if err != nil {
		return 0, err
	}
	if length == 0 || addr%emu.PageSize != 0 || off%emu.PageSize != 0 {
		return 0, unix.EINVAL
	}
	size := pageUp(length)
	if size < length || size > 1<<46 {
		return 0, unix.ENOMEM
	}
	anon := flags&mapAnonymous != 0
	var src *file
	if !anon {
		if src, err = p.fds.get(a[4]); err != nil {
			return 0, err
		}
		if flags&mapShared != 0 && prot&emu.ProtWrite != 0 {
			return 0, errUnsupported("writable MAP_SHARED file mapping")
		}
	} else if flags&(mapShared|mapPrivate) == 0 {
		return 0, unix.EINVAL
	}
	grow := size
	if flags&mapFixed != 0 && flags&mapFixedNoreplace == 0 {
		grow -= p.mappedIn(addr, addr+size) // what it replaces
	}
	if !p.mayMap(grow) {
		return 0, unix.ENOMEM
	}
	m := p.mm
	switch {
	case flags&mapFixedNoreplace != 0:
		if m.overlaps(addr, addr+size) {
			return 0, unix.EEXIST
		}
	case flags&mapFixed != 0:
		if addr == 0 || addr+size > m.mmapTop+mmapGap {
			return 0, unix.EINVAL
		}
		if err := m.unmap(addr, addr+size); err != nil {
			return 0, err
		}
	default:
		if addr == 0 || addr+size > m.mmapTop || m.overlaps(addr, addr+size) || addr < m.brk {
			var ok bool
			if addr, ok = m.findFree(size); !ok {
				return 0, unix.ENOMEM
			}
		}
	}
	name := ""
	if src != nil {
		name = src.path
	}
	if err := m.Map(addr, size, prot, name); err != nil {
		return 0, unix.ENOMEM
	}
	p.prov.mapped(addr, addr+size, prot, name, off)
	switch {
	case anon && flags&mapShared != 0:
		m.sharedAnon = append(m.sharedAnon, [2]uint64{addr, addr + size})
	case flags&mapShared != 0:
		m.sharedFile = append(m.sharedFile, [2]uint64{addr, addr + size})
	}
	if src != nil {
		if err := p.mapFile(src, addr, size, length, off); err != nil {
			m.unmap(addr, addr+size)
			p.prov.cut(addr, addr+size)
			return 0, err
		}
	}
	return addr, nil
}

func sysMunmap(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	addr, length := a[0], a[1]
	if addr%emu.PageSize != 0 || length == 0 {
		return 0, unix.EINVAL
	}
	p.prov.cut(addr, addr+pageUp(length))
	return 0, p.mm.unmap(addr, addr+pageUp(length))
}

func sysMprotect(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	addr, length := a[0], a[1]
	prot, err := guestProt(a[2] &^ 0x3000000) // PROT_GROWSDOWN/UP apply to stacks only
	if err != nil {
		return 0, err
	}
	if addr%emu.PageSize != 0 {
		return 0, unix.EINVAL
	}
	if length == 0 {
		return 0, nil
	}
	if err := p.mm.protect(addr, addr+pageUp(length), prot); err != nil {
		return 0, err
	}
	p.prov.protected(addr, addr+pageUp(length), prot)
	return 0, nil
}

func sysMremap(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	old, oldSize, newSize, flags := a[0], pageUp(a[1]), pageUp(a[2]), a[3]
	m := p.mm
	// Linux's checks, in its order: flags it has not, FIXED or DONTUNMAP
	// without MAYMOVE, the address, the new size.
	switch {
	case flags&^uint64(mremapMaymove|mremapFixed|mremapDontunmap) != 0,
		flags&(mremapFixed|mremapDontunmap) != 0 && flags&mremapMaymove == 0,
		old%emu.PageSize != 0, newSize == 0:
		return 0, unix.EINVAL
	case flags&^uint64(mremapMaymove) != 0:
		return 0, errUnsupported("mremap with MREMAP_FIXED or MREMAP_DONTUNMAP")
	}
	if !m.mapped(old, old+oldSize) {
		return 0, unix.EFAULT
	}
	if newSize <= oldSize {
		p.prov.cut(old+newSize, old+oldSize)
		return old, m.unmap(old+newSize, old+oldSize)
	}
	if !p.mayMap(newSize - oldSize) {
		return 0, unix.ENOMEM
	}
	prot := m.protAt(old)
	if !m.overlaps(old+oldSize, old+newSize) && old+newSize <= m.mmapTop {
		if err := m.Map(old+oldSize, newSize-oldSize, prot, m.nameAt(old)); err == nil {
			p.prov.grown(old+oldSize, old+newSize)
			return old, nil
		}
	}
	if flags&mremapMaymove == 0 {
		return 0, unix.ENOMEM
	}
	addr, ok := m.findFree(newSize)
	if !ok {
		return 0, unix.ENOMEM
	}
	if err := m.Map(addr, newSize, prot, m.nameAt(old)); err != nil {
		return 0, unix.ENOMEM
	}
	// The contents move whatever their permissions, a piece at a time:
	// a mapping's size is not icount's memory.
	piece := make([]byte, min(oldSize, maxIO))
	for at := uint64(0); at < oldSize; at += uint64(len(piece)) {
		piece = piece[:min(uint64(len(piece)), oldSize-at)]
		if err := p.cpu.Read(old+at, piece); err != nil {
			return 0, err
		}
		if err := p.cpu.Write(addr+at, piece); err != nil {
			return 0, err
		}
	}
	p.prov.moved(old, oldSize, addr)
	p.prov.grown(addr+oldSize, addr+newSize)
	return addr, m.unmap(old, old+oldSize)
}

const madvDontneed = 4

func sysMadvise(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	addr, length := a[0], pageUp(a[1])
	if addr%emu.PageSize != 0 {
		return 0, unix.EINVAL
	}
	if !p.mm.mapped(addr, addr+length) {
		return 0, unix.ENOMEM
	}
	if a[2] == madvDontneed && length > 0 {
		// Private anonymous pages read back as zeros afterwards.
		if err := p.cpu.Zero(addr, length); err != nil {
			return 0, err
		}
	}
	return 0, nil
}

// sysMincore reports every mapped page resident: the guest's memory is
// all in the emulator's.
func sysMincore(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	addr, length := a[0], pageUp(a[1])
	if addr%emu.PageSize != 0 || length < a[1] {
		return 0, unix.EINVAL
	}
	if !p.mm.mapped(addr, addr+length) {
		return 0, unix.ENOMEM
	}
	// Written a piece at a time: the length is the guest's.
	ones := bytes.Repeat([]byte{1}, int(min(length/emu.PageSize, 1<<16)))
	for at := uint64(0); at < length/emu.PageSize; at += uint64(len(ones)) {
		if err := p.writeMem(a[2]+at, ones[:min(uint64(len(ones)), length/emu.PageSize-at)]); err != nil {
			return 0, err
		}
	}
	return 0, nil
}
