package kernel

import "github.com/icount-dev/icount/emu"

// What the guest's memory holds, for naming the code it runs: the file
// (and offset) behind each mapping, and a log of every range that was made
// executable, in order. The address space (memory.go) keeps permissions;
// this keeps provenance, updated by the calls that map, unmap, move and
// protect memory.

// ExecMapping is a range of guest memory that was made executable: by the
// loader (the executable and its interpreter), by mmap with PROT_EXEC, or
// by mprotect adding PROT_EXEC.
type ExecMapping struct {
	Start, End uint64
	Path       string // the host file mapped there; "" for anonymous memory
	Offset     uint64 // the file offset of Start
}

// region is a mapped range and what it holds.
type region struct {
	start, end uint64
	path       string
	offset     uint64 // file offset at start
	exec       bool
	log        int // index in the log while exec, else -1
}

func (r region) bounds() (uint64, uint64) { return r.start, r.end }

// clip keeps r's log entry: a piece of an executable mapping is named by
// the mapping it was made executable with.
func (r region) clip(start, end uint64) region {
	r.offset += start - r.start
	r.start, r.end = start, end
	return r
}

// provenance tracks regions, disjoint, and the log of executable
// mappings.
type provenance struct {
	regions spans[region] // a program may keep thousands (spans.go)
	log     []ExecMapping
	onExec  func(path string) // Options.ExecMapped
}

// cut removes [start, end) from every region, splitting those it crosses.
func (v *provenance) cut(start, end uint64) { v.regions.cut(start, end) }

// insert adds r over whatever [r.start, r.end) held; executable, it is
// logged, with logStart and logEnd as the range the log names (a segment's
// exact bounds within its pages).
func (v *provenance) insert(r region, logStart, logEnd uint64) {
	if r.start >= r.end {
		return
	}
	v.cut(r.start, r.end)
	r.log = -1
	if r.exec {
		r.log = len(v.log)
		v.log = append(v.log, ExecMapping{Start: logStart, End: logEnd, Path: r.path, Offset: r.offset + (logStart - r.start)})
		if v.onExec != nil && r.path != "" {
			v.onExec(r.path)
		}
	}
	v.regions.insert(r)
}

// mapped records a new mapping of [start, end) holding path from offset
// ("" for anonymous memory).
func (v *provenance) mapped(start, end uint64, prot emu.Prot, path string, offset uint64) {
	v.insert(region{start: start, end: end, path: path, offset: offset, exec: prot&emu.ProtExec != 0}, start, end)
}

// protected records new permissions of [start, end): a piece that becomes
// executable starts a new entry of the log.
func (v *provenance) protected(start, end uint64, prot emu.Prot) {
	exec := prot&emu.ProtExec != 0
	var changed []region
	at := start // memory not mapped by mmap or the loader (the heap, the stack) is anonymous
	for r := range v.regions.overlapping(start, end) {
		if r.start > at && exec {
			changed = append(changed, region{start: at, end: r.start, exec: true})
		}
		at = r.end
		if r.exec == exec {
			continue
		}
		changed = append(changed, r.clip(max(r.start, start), min(r.end, end)))
		changed[len(changed)-1].exec = exec
	}
	if at < end && exec {
		changed = append(changed, region{start: at, end: end, exec: true})
	}
	for _, r := range changed {
		v.insert(r, r.start, r.end)
	}
}

// moved records mremap moving [old, old+size) to new.
func (v *provenance) moved(old, size, new uint64) {
	for _, r := range v.regions.cut(old, old+size) {
		r.start, r.end = r.start-old+new, r.end-old+new
		v.insert(r, r.start, r.end)
	}
}

// grown records mremap growing the mapping that ends at end in place to
// newEnd: the new part continues the file.
func (v *provenance) grown(end, newEnd uint64) {
	if r, ok := v.regions.at(end - 1); ok && r.end == end {
		v.insert(region{start: end, end: newEnd, path: r.path, offset: r.offset + (end - r.start), exec: r.exec}, end, newEnd)
	}
}

// at returns the region holding addr.
func (v *provenance) at(addr uint64) (region, bool) { return v.regions.at(addr) }
