package symbolize

import "fmt"

// Loaded is an Object as a process loaded it, bias added to its
// addresses: its lookups take and give the process's addresses. The zero
// Loaded knows no code.
type Loaded struct {
	o    *Object
	bias uint64
}

// At returns the lookups of o loaded at bias.
func (o *Object) At(bias uint64) Loaded { return Loaded{o, bias} }

// Function is a function's range of addresses [Start, End) and its name:
// its symbol, name@plt for a PLT stub, or module+0xoffset for code only
// the unwind tables list.
type Function struct {
	Start, End uint64
	Size       uint64 // the symbol's own size in bytes; 0 when it gives none
	Name       string
}

// own returns addr in the object's own addresses; false when it lies
// below the object.
func (l Loaded) own(addr uint64) (uint64, bool) {
	if l.o == nil || addr < l.bias {
		return 0, false
	}
	return addr - l.bias, true
}

// Function returns the function holding addr.
func (l Loaded) Function(addr uint64) (Function, bool) {
	a, ok := l.own(addr)
	if !ok {
		return Function{}, false
	}
	f, ok := l.o.symbols().lookup(a)
	if !ok {
		return Function{}, false
	}
	return Function{f.start + l.bias, f.end + l.bias, f.size, f.name}, true
}

// Name names the function entered at entry: its symbol, or
// module+0xoffset (the offset in the object's own addresses) when no
// function starts there.
func (l Loaded) Name(entry uint64) string {
	if f, ok := l.Function(entry); ok && f.Start == entry {
		return f.Name
	}
	name := ""
	if l.o != nil {
		name = l.o.Name
	}
	return fmt.Sprintf("%s+%#x", name, entry-l.bias)
}

// Entry returns the entry of the function of that name (any of its
// aliases).
func (l Loaded) Entry(name string) (uint64, bool) {
	if l.o == nil {
		return 0, false
	}
	a, ok := l.o.symbols().byName(name)
	if !ok {
		return 0, false
	}
	return a + l.bias, true
}

// dwarf calls fn with each DWARF of the object (its own, then its debug
// file's) and addr in the object's addresses, until fn returns true.
func (l Loaded) dwarf(addr uint64, fn func(di *debugInfo, a uint64) bool) {
	a, ok := l.own(addr)
	if !ok {
		return
	}
	l.o.mu.Lock()
	defer l.o.mu.Unlock()
	for _, di := range l.o.debugInfos() {
		if fn(di, a) {
			return
		}
	}
}

// Line returns the source position of the instruction at addr, and
// whether a line table covers it. Without lines (NewCache), none does.
func (l Loaded) Line(addr uint64) (pos Position, ok bool) {
	l.dwarf(addr, func(di *debugInfo, a uint64) bool {
		pos, ok = di.line(a)
		return ok
	})
	return pos, ok
}

// Inlined returns the calls the compiler inlined at addr, outermost
// first: the innermost is the function whose code addr is. Nil if none,
// and without lines (NewCache).
func (l Loaded) Inlined(addr uint64) (chain []InlinedCall) {
	l.dwarf(addr, func(di *debugInfo, a uint64) bool {
		chain = di.inlinedAt(a)
		return chain != nil
	})
	return chain
}

// ReadDeclaration starts reading the declaration of the function entered
// at entry on a goroutine of the object's, which Declaration then finds
// read: called as each function is first seen, it has the DWARF of the
// functions that ran (the units holding them) read while the program
// runs, not after its end.
func (l Loaded) ReadDeclaration(entry uint64) {
	a, ok := l.own(entry)
	if !ok {
		return
	}
	o := l.o
	o.declMu.Lock()
	o.declQueue = append(o.declQueue, a)
	start := !o.declaring
	o.declaring = true
	o.declMu.Unlock()
	if start {
		go o.readDeclarations()
	}
}

// Declaration returns where the function entered at entry is declared or,
// when DWARF gives no declaration, the line of its first instruction; the
// zero Position if neither is known.
func (l Loaded) Declaration(entry uint64) Position {
	var pos Position
	found := false
	l.dwarf(entry, func(di *debugInfo, a uint64) bool {
		pos, found = di.declaration(a)
		return found
	})
	if !found {
		pos, _ = l.Line(entry)
	}
	return pos
}
