package symbolize

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"path"
	"sort"
	"strings"
)

// Position is a place in the source.
type Position struct {
	File string // as DWARF names it, made absolute by its unit's directory
	Line int
}

// InlinedCall is a function the compiler inlined: its name and where it
// was called from, in the function it was inlined into.
type InlinedCall struct {
	Function string
	CallFile string
	CallLine int
}

// lineRow is one row of a DWARF line table: the instructions from addr up
// to the next row's address come from pos. An end row ends a sequence: the
// addresses from it on have no line until the next sequence starts.
type lineRow struct {
	addr uint64
	pos  Position
	end  bool
}

// debugInfo is what icount reads of one file's DWARF, in the object's own
// addresses. Opening it indexes its compilation units by the addresses
// they cover; a unit is read when a lookup first reaches it (a library's
// DWARF is megabytes, of which a run asks for a few functions).
type debugInfo struct {
	file    string // the file it is read from: the object, or its debug file
	d       *dwarf.Data
	lineSec []byte // the line tables, their headers checked before debug/dwarf reads them
	lines   bool   // read line tables and inlined calls, not only declarations
	units   []*unit
	ranges  []unitRange // sorted by lo
	maxHi   []uint64    // maxHi[i] is the highest hi of ranges[:i+1]
	// dies is every subprogram DIE of the units parsed, by offset.
	dies map[dwarf.Offset]*die
	// problem is the first thing wrong with the DWARF that made icount
	// leave some or all of it out, "" if none.
	problem string
}

// unitRange is a range of addresses [lo, hi) a unit covers.
type unitRange struct {
	lo, hi uint64
	u      *unit
}

// unit is one compilation (or partial) unit: indexed, then parsed (its
// DIEs read), then resolved (what its functions and inlined calls are
// called, and where they are declared).
type unit struct {
	entry    *dwarf.Entry // the unit's own DIE
	size     uint64       // the bytes of .debug_info from its DIE to the next unit's
	badLines bool         // its line table's header is corrupt (checkLineHeader): it is not read
	files    []string     // its file table, as absolute paths where DWARF says

	parsed, resolved bool
	// What parsing found, for resolving.
	funcs []concrete
	inls  []inl
	seqs  [][]lineRow

	rows    []lineRow           // its sequences, in address order
	decl    map[uint64]Position // declaration of the function entered at an address
	inlined []inlinePiece       // disjoint, in address order
}

// concrete is a function with code, entered at entry, and its DIE.
type concrete struct {
	entry uint64
	off   dwarf.Offset
}

// inl is an inlined call: the ranges of its code, its abstract origin,
// where it was called from, and how many inlined calls deep it is.
type inl struct {
	ranges [][2]uint64
	origin dwarf.Offset
	call   Position
	depth  int
}

// die is what icount keeps of a subprogram's DIE, to resolve the abstract
// origins and specifications that point at it.
type die struct {
	name    string
	decl    Position
	origin  dwarf.Offset // abstract origin or specification, 0 if none
	hasDecl bool
}

// note keeps the first problem found in the DWARF.
func (di *debugInfo) note(format string, args ...any) {
	if di.problem == "" {
		di.problem = fmt.Sprintf(format, args...)
	}
}

// openDebugInfo opens the DWARF of f, the file at path of size bytes, and
// indexes its units; with lines, their line tables and inlined calls are
// read as well as their functions' declarations. A file without DWARF
// gives nil; DWARF icount cannot open gives none, its problem noted. Line
// tables whose headers are corrupt are left out, and so is every unit that
// debug/dwarf cannot read (or panics on).
func openDebugInfo(f *elf.File, path string, size uint64, lines bool) (di *debugInfo) {
	if f.Section(".debug_info") == nil && f.Section(".zdebug_info") == nil {
		return nil
	}
	di = &debugInfo{file: path, lines: lines, dies: map[dwarf.Offset]*die{}}
	defer func() {
		if p := recover(); p != nil {
			di = &debugInfo{file: path, problem: fmt.Sprintf("debug/dwarf failed on it (%v)", p)}
		}
	}()
	if err := checkDebugSizes(f, size); err != nil {
		di.problem = err.Error()
		return di
	}
	d, lineSec, err := loadDWARF(f)
	if err != nil {
		di.problem = err.Error()
		return di
	}
	info := f.Section(".debug_info")
	if info == nil {
		info = f.Section(".zdebug_info")
	}
	di.d, di.lineSec = d, lineSec
	di.index(info.Size) // the size f.DWARF read it as
	return di
}

// index lists the units of the infoSize bytes of .debug_info and the
// addresses each covers, and checks the header of each one's line table
// (checkLineHeader) before debug/dwarf reads it. A unit that gives no
// ranges holds no code that lookups reach; its DIEs are read if another
// unit points into it.
func (di *debugInfo) index(infoSize uint64) {
	r := di.d.Reader()
	for entries := uint64(0); ; {
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
		if e.Tag == dwarf.TagCompileUnit || e.Tag == dwarf.TagPartialUnit {
			if n := len(di.units); n > 0 {
				prev := di.units[n-1]
				prev.size = uint64(e.Offset - prev.entry.Offset)
			}
			u := &unit{entry: e, size: infoSize - min(infoSize, uint64(e.Offset))}
			di.units = append(di.units, u)
			if off, ok := e.Val(dwarf.AttrStmtList).(int64); ok && di.lineSec != nil {
				if err := checkLineHeader(di.lineSec, off); err != nil {
					di.note("%v", err)
					u.badLines = true
				}
			}
			rs, err := di.d.Ranges(e)
			if err != nil {
				di.note("%v", err)
			}
			for _, rg := range rs {
				if rg[0] < rg[1] {
					di.ranges = append(di.ranges, unitRange{rg[0], rg[1], u})
				}
			}
		}
		r.SkipChildren() // to the next unit
	}
	sort.SliceStable(di.ranges, func(i, j int) bool { return di.ranges[i].lo < di.ranges[j].lo })
	di.maxHi = make([]uint64, len(di.ranges))
	for i, rg := range di.ranges {
		di.maxHi[i] = rg.hi
		if i > 0 {
			di.maxHi[i] = max(rg.hi, di.maxHi[i-1])
		}
	}
}

// unitsAt calls fn with each unit covering addr, resolved, until fn
// returns true.
func (di *debugInfo) unitsAt(addr uint64, fn func(*unit) bool) {
	i := sort.Search(len(di.ranges), func(i int) bool { return di.ranges[i].lo > addr }) - 1
	for ; i >= 0 && di.maxHi[i] > addr; i-- {
		if rg := di.ranges[i]; addr < rg.hi {
			di.resolve(rg.u)
			if fn(rg.u) {
				return
			}
		}
	}
}

// parse reads the DIEs of u: its subprograms (into dies), the functions
// with code and, with lines, its inlined calls and line table.
func (di *debugInfo) parse(u *unit) {
	if u.parsed {
		return
	}
	u.parsed = true
	defer func() {
		if p := recover(); p != nil {
			u.funcs, u.inls, u.seqs = nil, nil, nil
			di.note("debug/dwarf failed on it (%v)", p)
		}
	}()
	var lr *dwarf.LineReader
	if !u.badLines {
		var err error
		if lr, err = di.d.LineReader(u.entry); err != nil {
			di.note("%v", err)
		}
	}
	if lr != nil {
		dir, _ := u.entry.Val(dwarf.AttrCompDir).(string)
		for _, f := range lr.Files() {
			name := ""
			if f != nil {
				name = f.Name
				if !path.IsAbs(name) && dir != "" {
					name = path.Join(dir, name)
				}
			}
			u.files = append(u.files, name)
		}
		if di.lines {
			u.seqs = readSequences(lr, u.files)
		}
	}
	if !u.entry.Children {
		return
	}
	r := di.d.Reader()
	r.Seek(u.entry.Offset)
	if _, err := r.Next(); err != nil { // the unit's own DIE
		di.note("%v", err)
		return
	}
	inlDepth := 0         // inlined subroutines open around the current DIE
	open := []bool{false} // for each DIE whose children are being read: is it inlined
	for entries := uint64(0); len(open) > 0; {
		e, err := r.Next()
		if err != nil {
			di.note("%v", err)
			return
		}
		if e == nil || e.Tag == dwarf.TagCompileUnit || e.Tag == dwarf.TagPartialUnit {
			return // the next unit
		}
		// As in index: a number cut off by the unit's end reads as an
		// empty entry, forever.
		if entries++; entries > u.size {
			di.note(".debug_info ends inside an entry's number")
			return
		}
		if e.Tag == 0 { // the end of a DIE's children
			if open[len(open)-1] {
				inlDepth--
			}
			open = open[:len(open)-1]
			continue
		}
		isInl := e.Tag == dwarf.TagInlinedSubroutine
		switch e.Tag {
		case dwarf.TagSubprogram:
			x := &die{name: dieName(e)}
			if pos, ok := u.position(e, dwarf.AttrDeclFile, dwarf.AttrDeclLine); ok {
				x.decl, x.hasDecl = pos, true
			}
			if o, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset); ok {
				x.origin = o
			} else if o, ok := e.Val(dwarf.AttrSpecification).(dwarf.Offset); ok {
				x.origin = o
			}
			di.dies[e.Offset] = x
			if lo, ok := e.Val(dwarf.AttrLowpc).(uint64); ok && lo != 0 {
				u.funcs = append(u.funcs, concrete{lo, e.Offset})
			}
		case dwarf.TagInlinedSubroutine:
			if o, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset); ok && di.lines {
				if rs, err := di.d.Ranges(e); err == nil && len(rs) > 0 {
					call, _ := u.position(e, dwarf.AttrCallFile, dwarf.AttrCallLine)
					u.inls = append(u.inls, inl{rs, o, call, inlDepth + 1})
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
}

// position is the source position the attributes file and line of e
// give, from u's file table; false if the file is not in it.
func (u *unit) position(e *dwarf.Entry, file, line dwarf.Attr) (Position, bool) {
	fi, ok := e.Val(file).(int64)
	if !ok || fi < 0 || int(fi) >= len(u.files) || u.files[fi] == "" {
		return Position{}, false
	}
	n, _ := e.Val(line).(int64)
	return Position{u.files[fi], int(n)}, true
}

// unitOf returns the unit whose entries hold off, nil if none.
func (di *debugInfo) unitOf(off dwarf.Offset) *unit {
	i := sort.Search(len(di.units), func(i int) bool { return di.units[i].entry.Offset > off }) - 1
	if i < 0 {
		return nil
	}
	return di.units[i]
}

// origin follows abstract origins and specifications from off to a name
// and a declaration, parsing the units they lead into.
func (di *debugInfo) origin(off dwarf.Offset) (string, Position) {
	var name string
	var pos Position
	haveDecl := false
	for i := 0; i < 8; i++ { // a chain is two or three links long
		x := di.dies[off]
		if x == nil {
			if u := di.unitOf(off); u != nil && !u.parsed {
				di.parse(u)
				x = di.dies[off]
			}
		}
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

// resolve parses u and gives its functions their declarations, its
// inlined calls their names, and its line table its order.
func (di *debugInfo) resolve(u *unit) {
	if u.resolved {
		return
	}
	di.parse(u)
	u.resolved = true
	u.decl = map[uint64]Position{}
	for _, c := range u.funcs {
		if _, pos := di.origin(c.off); pos.File != "" {
			u.decl[c.entry] = pos
		}
	}
	var spans []inlineSpan
	for _, x := range u.inls {
		name, _ := di.origin(x.origin)
		if name == "" {
			continue
		}
		for _, rg := range x.ranges {
			if rg[0] < rg[1] {
				spans = append(spans, inlineSpan{lo: rg[0], hi: rg[1], depth: x.depth,
					call: InlinedCall{Function: name, CallFile: x.call.File, CallLine: x.call.Line}})
			}
		}
	}
	u.inlined = nest(spans)
	sort.SliceStable(u.seqs, func(i, j int) bool { return u.seqs[i][0].addr < u.seqs[j][0].addr })
	for _, s := range u.seqs {
		u.rows = append(u.rows, s...)
	}
	u.funcs, u.inls, u.seqs = nil, nil, nil
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
			row.pos = Position{name, le.Line}
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

// line returns the source position of the instruction at addr, and whether
// the unit's line table covers it.
func (u *unit) line(addr uint64) (Position, bool) {
	i := sort.Search(len(u.rows), func(i int) bool { return u.rows[i].addr > addr }) - 1
	if i < 0 || u.rows[i].end {
		return Position{}, false
	}
	return u.rows[i].pos, true
}

// inlinedAt returns the calls inlined at addr, outermost first; nil if
// none.
func (u *unit) inlinedAt(addr uint64) []InlinedCall {
	i := sort.Search(len(u.inlined), func(i int) bool { return u.inlined[i].lo > addr }) - 1
	if i < 0 || addr >= u.inlined[i].hi {
		return nil
	}
	return u.inlined[i].chain
}

// line returns the source position of the instruction at addr (an address
// of the object's own), and whether a line table covers it.
func (di *debugInfo) line(addr uint64) (pos Position, ok bool) {
	di.unitsAt(addr, func(u *unit) bool {
		pos, ok = u.line(addr)
		return ok
	})
	return pos, ok
}

// inlinedAt returns the calls inlined at addr, outermost first; nil if
// none.
func (di *debugInfo) inlinedAt(addr uint64) (chain []InlinedCall) {
	di.unitsAt(addr, func(u *unit) bool {
		chain = u.inlinedAt(addr)
		return chain != nil
	})
	return chain
}

// declaration returns where the function entered at entry is declared.
func (di *debugInfo) declaration(entry uint64) (pos Position, ok bool) {
	di.unitsAt(entry, func(u *unit) bool {
		pos, ok = u.decl[entry]
		return ok
	})
	return pos, ok
}

// dwarfSections are the DWARF sections debug/dwarf reads, by their names'
// suffixes: f.DWARF also decompresses the others (a library's location
// lists are a quarter of its DWARF), which debug/dwarf then ignores.
var dwarfSections = map[string]bool{"abbrev": true, "info": true, "str": true, "line": true, "ranges": true,
	"addr": true, "line_str": true, "str_offsets": true, "rnglists": true, "types": true}

// loadDWARF is f.DWARF without reading the sections debug/dwarf ignores,
// with the line tables' section debug/dwarf was given (lineSection). A
// file with relocations to apply to its DWARF (an object file) is read by
// f.DWARF.
func loadDWARF(f *elf.File) (*dwarf.Data, []byte, error) {
	suffixes := make([]string, len(f.Sections))
	for i, s := range f.Sections {
		name, ok := strings.CutPrefix(s.Name, ".debug_")
		if !ok {
			name, ok = strings.CutPrefix(s.Name, ".zdebug_")
		}
		if ok && dwarfSections[name] {
			suffixes[i] = name
		}
	}
	for _, r := range f.Sections {
		if (r.Type == elf.SHT_RELA || r.Type == elf.SHT_REL) && f.Type != elf.ET_EXEC && int(r.Info) < len(suffixes) && suffixes[r.Info] != "" {
			line, err := lineSection(f)
			if err != nil {
				return nil, nil, err
			}
			d, err := f.DWARF()
			return d, line, err
		}
	}
	data := func(s *elf.Section) ([]byte, error) {
		b, err := s.Data()
		if err != nil && uint64(len(b)) < s.Size {
			return nil, err
		}
		return b, nil
	}
	dat := map[string][]byte{}
	for i, s := range f.Sections {
		switch suffixes[i] {
		case "abbrev", "info", "str", "line", "ranges":
			b, err := data(s)
			if err != nil {
				return nil, nil, fmt.Errorf("reading %s: %w", s.Name, err)
			}
			dat[suffixes[i]] = b
		}
	}
	d, err := dwarf.New(dat["abbrev"], nil, nil, dat["info"], dat["line"], nil, dat["ranges"], dat["str"])
	if err != nil {
		return nil, nil, err
	}
	for i, s := range f.Sections {
		switch suffixes[i] {
		case "", "abbrev", "info", "str", "line", "ranges":
			continue
		}
		b, err := data(s)
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", s.Name, err)
		}
		if suffixes[i] == "types" {
			err = d.AddTypes(fmt.Sprintf("types-%d", i), b)
		} else {
			err = d.AddSection(".debug_"+suffixes[i], b)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return d, dat["line"], nil
}
