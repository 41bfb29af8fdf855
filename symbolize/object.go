package symbolize

import (
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/icount-dev/icount/internal/filedigest"
)

// Object is one object file: its identity (size, SHA-256, build ID,
// program headers), read when it is opened, and what it and its separate
// debug file say about its code, read when first asked. Its lookups are
// made through At. An Object is safe for concurrent use.
type Object struct {
	Path    string // the file it was opened as
	Name    string // the file's base name: what reports call it
	Size    int64  // 0 if it could not be read
	SHA256  string // hex; "" if it could not be read
	BuildID string // hex; "" if none
	Machine elf.Machine
	// Loads are its PT_LOAD segments; nil when it is not ELF.
	Loads []elf.ProgHeader

	class elf.Class
	link  debugLink
	dirs  DebugDirs
	lines bool // read DWARF line tables and inlined calls, not only declarations

	prepared  sync.Once // finds the debug file and reads the symbols
	debugPath string    // its separate debug file, "" if none
	syms      atomic.Pointer[symtab]

	mu        sync.Mutex // guards the DWARF, read as lookups reach it
	dwarfRead bool
	dwarf     []*debugInfo // the object's own, then its debug file's

	declMu    sync.Mutex // guards declQueue and declaring
	declQueue []uint64   // entries (the object's addresses) whose declarations to read next
	declaring bool       // a goroutine reads them (readDeclarations)
}

// openObject reads the identity of the file at path: an Object whose
// symbols and DWARF are read when first asked, with debug files looked for
// in dirs and, with lines, line tables and inlined calls read. A file that
// is not regular has no identity.
func openObject(path string, dirs DebugDirs, lines bool) *Object {
	o := &Object{Path: path, Name: filepath.Base(path), dirs: dirs, lines: lines}
	f, err := os.Open(path)
	if err != nil {
		return o
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return o // a device's contents are not an object's
	}
	if n, sum, err := filedigest.Of(int(f.Fd())); err == nil {
		o.Size, o.SHA256 = n, sum
	}
	ef, err := newELF(f)
	if err != nil {
		return o
	}
	o.Machine, o.class = ef.Machine, ef.Class
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD {
			o.Loads = append(o.Loads, p.ProgHeader)
		}
	}
	o.BuildID = BuildID(ef)
	o.link = readDebugLink(ef)
	return o
}

// newELF reads the ELF headers of r; a file debug/elf panics on is an
// error.
func newELF(r io.ReaderAt) (f *elf.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("debug/elf failed on it (%v)", p)
		}
	}()
	return elf.NewFile(r)
}

// openELF opens the ELF file at path, and says how big it is.
func openELF(path string) (*elf.File, uint64, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, 0, err
	}
	f, err := newELF(file)
	if err != nil {
		file.Close()
		return nil, 0, err
	}
	return f, uint64(st.Size()), nil
}

// DebugFile is the separate debug file found for the object, "" if none.
func (o *Object) DebugFile() string {
	o.prepare()
	return o.debugPath
}

// prepare finds the object's debug file and reads its symbols, once.
func (o *Object) prepare() {
	o.prepared.Do(func() {
		o.debugPath = o.dirs.find(o)
		f, _, err := openELF(o.Path)
		if err != nil {
			o.syms.Store(&symtab{module: o.Name})
			return
		}
		defer f.Close()
		var dbg *elf.File
		if o.debugPath != "" {
			if dbg, _, err = openELF(o.debugPath); err == nil {
				defer dbg.Close()
			}
		}
		o.syms.Store(symbolsOf(f, dbg, o.Name))
	})
}

// Prefetch reads what the object's lookups will need (its symbols, and
// its DWARF's sections and index of units: its own and, with lines, its
// debug file's) before the first of them, which then waits only for what
// is still being read: call it on a goroutine of its own when the
// object's code is about to run.
func (o *Object) Prefetch() {
	o.prepare()
	o.mu.Lock()
	defer o.mu.Unlock()
	o.debugInfos()
}

// readDeclarations reads the declarations of the entries queued
// (Loaded.ReadDeclaration), the object's own addresses, until none is
// left: the units holding them are parsed, and kept for Declaration.
func (o *Object) readDeclarations() {
	for {
		o.declMu.Lock()
		queued := o.declQueue
		o.declQueue = nil
		if len(queued) == 0 {
			o.declaring = false
			o.declMu.Unlock()
			return
		}
		o.declMu.Unlock()
		for _, a := range queued {
			o.At(0).Declaration(a)
		}
	}
}

// symbols returns the object's symbol table, read on first use.
func (o *Object) symbols() *symtab {
	o.prepare()
	return o.syms.Load()
}

// debugInfos returns the DWARF of the object and, with lines, of its
// debug file, those that have any, opened on first use; the caller holds
// o.mu. Without lines a debug file gives its symbols only: its DWARF is
// megabytes (glibc's 4 MB, compressed), whose reading would cost every
// run of a dynamic program a quarter of a second for the declarations of
// the library functions it ran.
func (o *Object) debugInfos() []*debugInfo {
	if !o.dwarfRead {
		o.dwarfRead = true
		o.prepare()
		for _, p := range []string{o.Path, o.debugPath} {
			if p == "" || p == o.debugPath && !o.lines {
				continue
			}
			f, size, err := openELF(p)
			if err != nil {
				continue
			}
			if di := openDebugInfo(f, p, size, o.lines); di != nil {
				o.dwarf = append(o.dwarf, di)
			}
			f.Close()
		}
	}
	return o.dwarf
}

// Problems says what was wrong with the symbols and DWARF read so far that
// icount left out, each as a phrase about the object ("its DWARF is
// corrupt (...): ...").
func (o *Object) Problems() []string {
	var out []string
	if t := o.syms.Load(); t != nil && t.problem != "" {
		out = append(out, fmt.Sprintf("its symbols are corrupt (%s): those icount could not read are left out", t.problem))
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, di := range o.dwarf {
		if di.problem == "" {
			continue
		}
		what := "its DWARF"
		if di.file != o.Path {
			what = fmt.Sprintf("the DWARF of its debug file %s", di.file)
		}
		out = append(out, fmt.Sprintf("%s is corrupt (%s): the lines and declarations icount could not read are left out", what, di.problem))
	}
	return out
}

// Segment is the file's bytes of an executable PT_LOAD, at its address in
// the object.
type Segment struct {
	Addr uint64
	Data []byte
}

// Code reads the object's executable segments: what the file holds, not
// what their headers claim (a corrupt size must not allocate it).
func (o *Object) Code() ([]Segment, error) {
	f, _, err := openELF(o.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Segment
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			data, err := io.ReadAll(p.Open())
			if err != nil {
				return nil, fmt.Errorf("%s: %w", o.Path, err)
			}
			out = append(out, Segment{p.Vaddr, data})
		}
	}
	return out, nil
}
