package count

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"path"
	"sort"
)

// srcPos is a place in the source.
type srcPos struct {
	file string
	line int
}

// lineRow is one row of a DWARF line table: the instructions from addr up
// to the next row's address come from pos. An end row ends a sequence: the
// addresses from it on have no line until the next sequence starts.
type lineRow struct {
	addr uint64
	pos  srcPos
	end  bool
}

// span is a range of addresses [lo, hi) of a function's inlined body:
// its name, how deep it is nested, the call that inlined it (its file and
// line) and, once made disjoint (innermost), the chain of inlined calls
// around it, outermost first, itself last.
type span struct {
	lo, hi uint64
	name   string
	depth  int
	call   srcPos
	chain  []span
}

// debugInfo is what icount reads from an object's DWARF, in the object's
// own addresses (before relocation by its load bias).
type debugInfo struct {
	rows    []lineRow         // sequences, in address order
	decl    map[uint64]srcPos // declaration of the function entered at an address
	inlined []span            // disjoint: the innermost inlined function at each address, with its chain
	// problem is the first thing wrong with the DWARF that made icount
	// leave some or all of it out, "" if none.
	problem string
}

// note keeps the first problem found in the DWARF.
func (di *debugInfo) note(format string, args ...any) {
	if di.problem == "" {
		di.problem = fmt.Sprintf(format, args...)
	}
}

// loadDebugInfo reads the function declarations of the ELF file at path
// and, with lines, its line tables and inlined frames (most of the work in
// a large binary). A file without DWARF gives an empty debugInfo, and so
// does DWARF icount cannot read, with the problem noted.
func loadDebugInfo(path string, lines bool) *debugInfo {
	f, size, err := openELF(path)
	if err != nil {
		return &debugInfo{decl: map[uint64]srcPos{}}
	}
	defer f.Close()
	return debugInfoOf(f, size, lines)
}

// debugInfoOf reads the DWARF of f, a file of size bytes, as loadDebugInfo
// does. Line tables whose headers are corrupt are left out, and so is all
// of a DWARF that debug/dwarf cannot read (or panics on).
func debugInfoOf(f *elf.File, size uint64, lines bool) (di *debugInfo) {
	di = &debugInfo{decl: map[uint64]srcPos{}}
	if f.Section(".debug_info") == nil && f.Section(".zdebug_info") == nil {
		return di
	}
	defer func() {
		if p := recover(); p != nil {
			di = &debugInfo{decl: map[uint64]srcPos{}, problem: fmt.Sprintf("debug/dwarf failed on it (%v)", p)}
		}
	}()
	if err := checkDebugSizes(f, size); err != nil {
		di.problem = err.Error()
		return di
	}
	lineSec, err := lineSection(f)
	if err != nil {
		di.problem = err.Error()
		return di
	}
	d, err := f.DWARF()
	if err != nil {
		di.problem = err.Error()
		return di
	}
	info := f.Section(".debug_info")
	if info == nil {
		info = f.Section(".zdebug_info")
	}
	di.read(d, lineSec, info.Size, lines) // the size f.DWARF read it as
	return di
}

// die is what icount keeps of a subprogram's DIE, to resolve the abstract
// origins and specifications that point at it.
type die struct {
	name    string
	decl    srcPos
	origin  dwarf.Offset // abstract origin or specification, 0 if none
	hasDecl bool
}

// read reads d, whose line tables lie in lineSec and whose entries in
// infoSize bytes.
func (di *debugInfo) read(d *dwarf.Data, lineSec []byte, infoSize uint64, lines bool) {
	dies := map[dwarf.Offset]*die{}
	type concrete struct {
		entry uint64
		off   dwarf.Offset
	}
	var funcs []concrete
	type inl struct {
		ranges [][2]uint64
		off    dwarf.Offset // its abstract origin
		depth  int
		call   srcPos // where it was called
	}
	var inls []inl
	var seqs [][]lineRow

	r := d.Reader()
	entries := uint64(0)
	var files []string // the unit's file table, as absolute paths where DWARF says
	inlDepth := 0      // inlined subroutines open around the current DIE
	var open []bool    // for each DIE whose children are being read: is it inlined
	for {
		e, err := r.Next()
		if err != nil {
			di.note("%v", err)
			break
		}
		if e == nil {
			break
		}
		// Each entry takes a byte at least; debug/dwarf reads a number
		// cut off by its unit's end as 0, an empty entry, without moving
		// on: forever.
		if entries++; entries > infoSize {
			di.note(".debug_info ends inside an entry's number")
			break
		}
		if e.Tag == 0 { // the end of a DIE's children
			if len(open) > 0 {
				if open[len(open)-1] {
					inlDepth--
				}
				open = open[:len(open)-1]
			}
			continue
		}
		if e.Tag == dwarf.TagCompileUnit || e.Tag == dwarf.TagPartialUnit {
			files = nil
			lr, err := lineReader(d, lineSec, e)
			if err != nil {
				di.note("%v", err)
			}
			if lr != nil {
				dir, _ := e.Val(dwarf.AttrCompDir).(string)
				for _, f := range lr.Files() {
					name := ""
					if f != nil {
						name = f.Name
						if !path.IsAbs(name) && dir != "" {
							name = path.Join(dir, name)
						}
					}
					files = append(files, name)
				}
				if lines {
					seqs = append(seqs, readSequences(lr, files)...)
				}
			}
			inlDepth, open = 0, nil
			if e.Children {
				open = append(open, false)
			}
			continue
		}
		isInl := e.Tag == dwarf.TagInlinedSubroutine
		switch e.Tag {
		case dwarf.TagSubprogram:
			x := &die{name: dieName(e)}
			if fi, ok := e.Val(dwarf.AttrDeclFile).(int64); ok && fi >= 0 && int(fi) < len(files) && files[fi] != "" {
				line, _ := e.Val(dwarf.AttrDeclLine).(int64)
				x.decl, x.hasDecl = srcPos{files[fi], int(line)}, true
			}
			if o, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset); ok {
				x.origin = o
			} else if o, ok := e.Val(dwarf.AttrSpecification).(dwarf.Offset); ok {
				x.origin = o
			}
			dies[e.Offset] = x
			if lo, ok := e.Val(dwarf.AttrLowpc).(uint64); ok && lo != 0 {
				funcs = append(funcs, concrete{lo, e.Offset})
			}
		case dwarf.TagInlinedSubroutine:
			if o, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset); ok && lines {
				if rs, err := d.Ranges(e); err == nil && len(rs) > 0 {
					var call srcPos
					if fi, ok := e.Val(dwarf.AttrCallFile).(int64); ok && fi >= 0 && int(fi) < len(files) {
						line, _ := e.Val(dwarf.AttrCallLine).(int64)
						call = srcPos{files[fi], int(line)}
					}
					inls = append(inls, inl{rs, o, inlDepth + 1, call})
				}
			}
		}
		if e.Children {
			open = append(open, isInl)
			if isInl {
				inlDepth++
			}
		}
	}

	// resolve follows abstract origins and specifications to a name and a
	// declaration.
	resolve := func(off dwarf.Offset) (string, srcPos) {
		var name string
		var pos srcPos
		haveDecl := false
		for i := 0; i < 8; i++ { // a chain is two or three links long
			x := dies[off]
			if x == nil {
				break
			}
			if name == "" {
				name = x.name
			}
			if !haveDecl && x.hasDecl {
				pos, haveDecl = x.decl, true
			}
			if x.origin == 0 || name != "" && haveDecl {
				break
			}
			off = x.origin
		}
		return name, pos
	}
	for _, c := range funcs {
		if _, pos := resolve(c.off); pos.file != "" {
			di.decl[c.entry] = pos
		}
	}
	var spans []span
	for _, x := range inls {
		name, _ := resolve(x.off)
		if name == "" {
			continue
		}
		for _, rg := range x.ranges {
			if rg[0] < rg[1] {
				spans = append(spans, span{lo: rg[0], hi: rg[1], name: name, depth: x.depth, call: x.call})
			}
		}
	}
	di.inlined = innermost(spans)

	sort.SliceStable(seqs, func(i, j int) bool { return seqs[i][0].addr < seqs[j][0].addr })
	for _, s := range seqs {
		di.rows = append(di.rows, s...)
	}
}

// lineReader reads the header of the line table of the unit cu, after
// checking it (checkLineHeader); nil if the unit has none.
func lineReader(d *dwarf.Data, lineSec []byte, cu *dwarf.Entry) (*dwarf.LineReader, error) {
	if off, ok := cu.Val(dwarf.AttrStmtList).(int64); ok && lineSec != nil {
		if err := checkLineHeader(lineSec, off); err != nil {
			return nil, err
		}
	}
	return d.LineReader(cu)
}

// dieName is the name a DIE gives its function: the linkage (mangled) name
// when it has one, as the symbol table does.
func dieName(e *dwarf.Entry) string {
	for _, a := range []dwarf.Attr{dwarf.AttrLinkageName, dwarf.AttrName} {
		if s, ok := e.Val(a).(string); ok && s != "" {
			return s
		}
	}
	if s, ok := e.Val(dwarf.Attr(0x2007)).(string); ok { // DW_AT_MIPS_linkage_name
		return s
	}
	return ""
}

// readSequences reads a compilation unit's line table as sequences of rows,
// each ended by its end row, naming files from the unit's table (files,
// made absolute). Sequences at address 0 are code the linker dropped.
func readSequences(lr *dwarf.LineReader, files []string) [][]lineRow {
	index := map[*dwarf.LineFile]string{}
	for i, f := range lr.Files() {
		index[f] = files[i]
	}
	var seqs [][]lineRow
	var cur []lineRow
	var le dwarf.LineEntry
	for lr.Next(&le) == nil {
		row := lineRow{addr: le.Address, end: le.EndSequence}
		if le.File != nil {
			name, ok := index[le.File]
			if !ok {
				name = le.File.Name
			}
			row.pos = srcPos{name, le.Line}
		}
		cur = append(cur, row)
		if le.EndSequence {
			if cur[0].addr != 0 && len(cur) > 1 {
				seqs = append(seqs, cur)
			}
			cur = nil
		}
	}
	return seqs
}

// innermost turns nested inlined ranges into disjoint ones, each named by
// the deepest range covering it, with the chain of ranges covering it.
func innermost(spans []span) []span {
	sort.SliceStable(spans, func(i, j int) bool {
		a, b := spans[i], spans[j]
		if a.lo != b.lo {
			return a.lo < b.lo
		}
		if a.depth != b.depth {
			return a.depth < b.depth
		}
		return a.hi > b.hi
	})
	var out []span
	var stack []span
	var cur uint64
	emit := func(hi uint64) {
		if n := len(stack); n > 0 && cur < hi {
			top := stack[n-1]
			if k := len(out); k > 0 && out[k-1].hi == cur && sameChain(out[k-1].chain, stack) {
				out[k-1].hi = hi
			} else {
				chain := make([]span, len(stack))
				for i, s := range stack {
					chain[i] = span{name: s.name, call: s.call}
				}
				out = append(out, span{lo: cur, hi: hi, name: top.name, call: top.call, chain: chain})
			}
		}
		if hi > cur {
			cur = hi
		}
	}
	closeTo := func(addr uint64) {
		for len(stack) > 0 && stack[len(stack)-1].hi <= addr {
			emit(stack[len(stack)-1].hi)
			stack = stack[:len(stack)-1]
		}
	}
	for _, s := range spans {
		closeTo(s.lo)
		emit(s.lo)
		stack = append(stack, s)
	}
	closeTo(^uint64(0))
	return out
}

// sameChain tells whether a chain of inlined calls is that of the stack of
// ranges open.
func sameChain(chain, stack []span) bool {
	if len(chain) != len(stack) {
		return false
	}
	for i := range chain {
		if chain[i].name != stack[i].name || chain[i].call != stack[i].call {
			return false
		}
	}
	return true
}

// line returns the source position of the instruction at addr (an address
// of the object's own), and whether the line table covers it.
func (di *debugInfo) line(addr uint64) (srcPos, bool) {
	i := sort.Search(len(di.rows), func(i int) bool { return di.rows[i].addr > addr }) - 1
	if i < 0 || di.rows[i].end {
		return srcPos{}, false
	}
	return di.rows[i].pos, true
}

// inlinedChain is the chain of inlined calls at addr, outermost first,
// each with the call's file and line; nil if none.
func (di *debugInfo) inlinedChain(addr uint64) []span {
	if s := di.inlinedSpan(addr); s != nil {
		return s.chain
	}
	return nil
}

// inlinedSpan is the innermost inlined range holding addr, nil if none.
func (di *debugInfo) inlinedSpan(addr uint64) *span {
	i := sort.Search(len(di.inlined), func(i int) bool { return di.inlined[i].lo > addr }) - 1
	if i < 0 || addr >= di.inlined[i].hi {
		return nil
	}
	return &di.inlined[i]
}

// funcPos is where the function entered at entry is declared, or else the
// line of its first instruction.
func (di *debugInfo) funcPos(entry uint64) srcPos {
	if p, ok := di.decl[entry]; ok {
		return p
	}
	p, _ := di.line(entry)
	return p
}
