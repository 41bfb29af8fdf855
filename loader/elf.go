package loader

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/icount-dev/icount/internal/filedigest"
	"io"
	"io/fs"
	"os"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/symbolize"
)

// Limits of the guest address space icount lays executables out in.
const (
	userTop = 1 << 47 // segment addresses before relocation: both arches' user space
	minAddr = 0x10000 // like vm.mmap_min_addr
)

// archUserTop is the end of each arch's user address space: 47 bits on
// x86-64, 48 bits on arm64 (whose PIE base and stack lie above 1<<47).
var archUserTop = map[emu.Arch]uint64{
	emu.X86_64: 1 << 47,
	emu.ARM64:  1 << 48,
}

// Fixed load bases of position-independent executables, the kernel's
// ELF_ET_DYN_BASE without address randomisation.
var pieBase = map[emu.Arch]uint64{
	emu.X86_64: 0x555555554000,
	emu.ARM64:  0xaaaaaaaa0000,
}

// Segment is one PT_LOAD segment as validated.
type Segment struct {
	Vaddr, Memsz   uint64 // before relocation by the load base
	Offset, Filesz uint64
	Prot           emu.Prot
}

// Executable is a validated ELF executable, not yet mapped.
type Executable struct {
	Path    string
	Arch    emu.Arch
	PIE     bool   // ET_DYN: loaded at a fixed base
	Interp  string // PT_INTERP, empty for static executables
	Entry   uint64 // before relocation
	Phoff   uint64
	Phnum   int
	Phent   int
	Segs    []Segment
	Size    int64
	SHA256  string
	BuildID string
	data    []byte
	file    *os.File // open until CloseFile (Open); nil from Parse

	// ExecStack says the program asks for an executable stack
	// (PT_GNU_STACK with PF_X, as `-z execstack` makes it).
	ExecStack bool

	// Go says the file was built by Go's toolchain: it has a section of
	// Go's build information (.go.buildinfo or .note.go.buildid), which
	// its linker writes, stripped or not. Only such a program may hold Go
	// benchmarks or goroutines, which count looks for by symbol.
	Go bool
}

// Open reads and validates the executable at path.
func Open(path string) (*Executable, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, errorf(path, NotFound, "no such file")
	case err != nil:
		return nil, errorf(path, NotRunnable, "cannot read: %v", unwrapPath(err))
	case st.IsDir():
		return nil, errorf(path, NotRunnable, "is a directory, not an executable")
	case !st.Mode().IsRegular():
		return nil, errorf(path, NotRunnable, "is not a regular file")
	case st.Mode().Perm()&0o111 == 0:
		return nil, errorf(path, NotRunnable, "is not executable (no x permission); chmod +x it if it is a program")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, errorf(path, NotRunnable, "cannot read: %v", unwrapPath(err))
	}
	// The first bytes say whether it is an ELF file icount runs: a file
	// that is not is refused without reading the rest.
	head := make([]byte, min(st.Size(), identSize))
	if _, err := io.ReadFull(f, head); err != nil {
		return nil, errorf(path, NotRunnable, "cannot read: %v", unwrapPath(err))
	}
	if err := checkIdent(path, head, st.Size()); err != nil {
		return nil, err
	}
	data, mapped, err := contents(f, head, st.Size())
	if err != nil {
		f.Close()
		return nil, errorf(path, NotRunnable, "cannot read: %v", unwrapPath(err))
	}
	// The digest through the run's cache of them, which count and the
	// kernel find it in when they meet the file again.
	size, sum, err := filedigest.Of(int(f.Fd()))
	var exe *Executable
	if err != nil || size != int64(len(data)) {
		err = errorf(path, NotRunnable, "the file changed while it was read")
	} else {
		exe, err = parse(path, data, sum)
	}
	h := held{f, data, mapped}
	if err != nil {
		h.release()
		return nil, err
	}
	// The file stays open for the loader to map its pages (LoadAt) until
	// CloseFile, or until the Executable goes with the mapping of its
	// bytes.
	exe.file = f
	runtime.AddCleanup(exe, held.release, h)
	return exe, nil
}

// CloseFile closes the file an Executable Open made keeps open for LoadAt
// to map: a LoadAt after it copies the file's bytes. Loaded once, a program
// needs it no more (its mappings hold the file), and a run of many
// programs need not keep one descriptor each until they are collected.
func (e *Executable) CloseFile() {
	if e.file != nil {
		e.file.Close()
		e.file = nil
	}
}

// held is what an opened Executable holds of the host: its file, and the
// mapping of its bytes if they were mapped.
type held struct {
	file   *os.File
	data   []byte
	mapped bool
}

func (h held) release() {
	h.file.Close()
	if h.mapped {
		unix.Munmap(h.data)
	}
}

// ArchOf reads the architecture of the ELF executable at path from its
// header alone (checkIdent, then the machine): what Open will say, for a
// start made before Open (emu.Prepare). It reports false for any file
// that is not a 64-bit little-endian ELF file for an architecture icount
// runs.
func ArchOf(path string) (emu.Arch, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, false
	}
	var h [20]byte // up to e_machine
	if _, err := io.ReadFull(f, h[:]); err != nil || checkIdent(path, h[:], st.Size()) != nil {
		return 0, false
	}
	return archOf(elf.Machine(binary.LittleEndian.Uint16(h[18:])))
}

// archOf is the architecture of ELF machine m, if icount runs it.
func archOf(m elf.Machine) (emu.Arch, bool) {
	switch m {
	case elf.EM_X86_64:
		return emu.X86_64, true
	case elf.EM_AARCH64:
		return emu.ARM64, true
	}
	return 0, false
}

// contents returns the bytes of f, of size bytes, whose first bytes head
// holds: a private read-only mapping of the file, which costs no copy and
// no fresh memory (only what LoadAt copies into the guest is read, and the
// host reads ahead in the page cache), unmapped when the Executable that
// keeps it is collected; or, where the host cannot map it, a copy read.
// Like the guest's own mappings of files, it shows the file as it is: the
// file must not change during the run (README: a file truncated under a
// mapping).
func contents(f *os.File, head []byte, size int64) (data []byte, mapped bool, err error) {
	if data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE); err == nil {
		return data, true, nil
	}
	data = make([]byte, size)
	copy(data, head)
	if _, err := io.ReadFull(f, data[len(head):]); err != nil {
		return nil, false, err
	}
	return data, false, nil
}

// identSize is how much of a file checkIdent needs: the ELF header, or a
// script's #! line.
const identSize = 256

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Parse validates data as an executable icount can run; path names it in
// errors.
func Parse(path string, data []byte) (exe *Executable, err error) {
	return parse(path, data, "")
}

// parse is Parse, given the SHA-256 of data if known ("": compute it).
func parse(path string, data []byte, sum string) (exe *Executable, err error) {
	if err := checkIdent(path, data[:min(len(data), identSize)], int64(len(data))); err != nil {
		return nil, err
	}
	defer func() {
		// debug/elf is meant to reject malformed input with an error; a
		// panic on input it did not foresee is still malformed input.
		if p := recover(); p != nil {
			exe, err = nil, errorf(path, NotRunnable, "malformed ELF file (%v)", p)
		}
	}()
	phoff, phent, phnum := binary.LittleEndian.Uint64(data[0x20:]), uint64(binary.LittleEndian.Uint16(data[0x36:])), uint64(binary.LittleEndian.Uint16(data[0x38:]))
	if phoff > uint64(len(data)) || phent*phnum > uint64(len(data))-phoff {
		return nil, errorf(path, NotRunnable, "truncated ELF file: its program headers end at byte %#x, the file has %#x", phoff+phent*phnum, len(data))
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, errorf(path, NotRunnable, "truncated ELF file: %v", err)
	}
	if err != nil {
		return nil, errorf(path, NotRunnable, "malformed ELF file: %v", err)
	}
	exe = &Executable{Path: path, Size: int64(len(data)), data: data}
	var ok bool
	if exe.Arch, ok = archOf(f.Machine); !ok {
		return nil, errorf(path, Unsupported, "is an ELF file for %v; icount runs x86-64 and aarch64 executables", f.Machine)
	}
	switch f.Type {
	case elf.ET_EXEC:
	case elf.ET_DYN:
		exe.PIE = true
	case elf.ET_REL:
		return nil, errorf(path, NotRunnable, "is a relocatable object file, not an executable; link it first")
	case elf.ET_CORE:
		return nil, errorf(path, NotRunnable, "is a core dump, not an executable")
	default:
		return nil, errorf(path, NotRunnable, "has ELF type %v, not an executable", f.Type)
	}
	exe.Entry = f.Entry
	exe.Go = f.Section(".go.buildinfo") != nil || f.Section(".note.go.buildid") != nil
	exe.Phoff = binary.LittleEndian.Uint64(data[0x20:])
	exe.Phent = int(binary.LittleEndian.Uint16(data[0x36:]))
	exe.Phnum = len(f.Progs)
	if exe.Phnum == 0 {
		return nil, errorf(path, NotRunnable, "has no program headers: not an executable")
	}
	if exe.Phent != 56 {
		return nil, errorf(path, NotRunnable, "malformed ELF file: program header size %d, want 56", exe.Phent)
	}
	for i, p := range f.Progs {
		switch p.Type {
		case elf.PT_INTERP:
			if p.Off+p.Filesz > uint64(len(data)) || p.Filesz == 0 {
				return nil, errorf(path, NotRunnable, "truncated ELF file: PT_INTERP lies outside the file")
			}
			exe.Interp = string(bytes.TrimRight(data[p.Off:p.Off+p.Filesz], "\x00"))
		case elf.PT_LOAD:
			if p.Memsz == 0 && p.Filesz == 0 {
				continue // maps nothing; linkers emit these, and Linux skips them
			}
			seg, err := checkLoad(path, i, p, uint64(len(data)))
			if err != nil {
				return nil, err
			}
			exe.Segs = append(exe.Segs, seg)
		case elf.PT_GNU_STACK:
			exe.ExecStack = p.Flags&elf.PF_X != 0
		}
	}
	if len(exe.Segs) == 0 {
		return nil, errorf(path, NotRunnable, "has no loadable segment (PT_LOAD)")
	}
	if err := checkLayout(exe); err != nil {
		return nil, err
	}
	if sum == "" {
		digest := sha256.Sum256(data)
		sum = hex.EncodeToString(digest[:])
	}
	exe.SHA256 = sum
	exe.BuildID = symbolize.BuildID(f)
	return exe, nil
}

// checkIdent checks the first bytes of a file of size bytes: an ELF
// header of a kind icount runs.
func checkIdent(path string, data []byte, size int64) error {
	switch {
	case size == 0:
		return errorf(path, NotRunnable, "is empty, not an ELF executable")
	case bytes.HasPrefix(data, []byte("#!")):
		line, _, _ := bytes.Cut(data[2:], []byte("\n"))
		return errorf(path, NotRunnable, "is a script for %q, not an ELF executable; run icount on the interpreter with the script as its argument", bytes.TrimSpace(line))
	case len(data) < 4 || !bytes.Equal(data[:4], []byte(elf.ELFMAG)):
		return errorf(path, NotRunnable, "is not an ELF file")
	case size < 64:
		return errorf(path, NotRunnable, "truncated ELF file: %d bytes, shorter than an ELF header", size)
	case elf.Class(data[elf.EI_CLASS]) == elf.ELFCLASS32:
		return errorf(path, Unsupported, "is a 32-bit ELF file; icount runs 64-bit x86-64 and aarch64 executables")
	case elf.Class(data[elf.EI_CLASS]) != elf.ELFCLASS64:
		return errorf(path, NotRunnable, "malformed ELF file: unknown class %d", data[elf.EI_CLASS])
	case elf.Data(data[elf.EI_DATA]) == elf.ELFDATA2MSB:
		return errorf(path, Unsupported, "is a big-endian ELF file; icount runs little-endian x86-64 and aarch64 executables")
	case elf.Data(data[elf.EI_DATA]) != elf.ELFDATA2LSB:
		return errorf(path, NotRunnable, "malformed ELF file: unknown data encoding %d", data[elf.EI_DATA])
	}
	return nil
}

func checkLoad(path string, i int, p *elf.Prog, fileSize uint64) (Segment, error) {
	bad := func(format string, args ...any) (Segment, error) {
		return Segment{}, errorf(path, NotRunnable, "malformed ELF file: program header %d (PT_LOAD): %s", i, fmt.Sprintf(format, args...))
	}
	switch {
	case p.Filesz > p.Memsz:
		return bad("file size %#x exceeds memory size %#x", p.Filesz, p.Memsz)
	case p.Filesz > 0 && (p.Off > fileSize || p.Filesz > fileSize-p.Off):
		// (A segment with no file bytes, all .bss, may name any offset:
		// linkers put it past the end of the file.)
		return Segment{}, errorf(path, NotRunnable, "truncated ELF file: segment %d needs bytes %#x-%#x, the file has %#x", i, p.Off, p.Off+p.Filesz, fileSize)
	case p.Vaddr >= userTop || p.Memsz >= userTop-p.Vaddr:
		return bad("address range %#x+%#x lies outside user space", p.Vaddr, p.Memsz)
	case p.Vaddr%emu.PageSize != p.Off%emu.PageSize:
		return bad("address %#x and file offset %#x disagree modulo the page size", p.Vaddr, p.Off)
	}
	var prot emu.Prot
	if p.Flags&elf.PF_R != 0 {
		prot |= emu.ProtRead
	}
	if p.Flags&elf.PF_W != 0 {
		prot |= emu.ProtWrite
	}
	if p.Flags&elf.PF_X != 0 {
		prot |= emu.ProtExec
	}
	off := p.Off
	if p.Filesz == 0 {
		off = 0 // nothing is read from the file
	}
	return Segment{Vaddr: p.Vaddr, Memsz: p.Memsz, Offset: off, Filesz: p.Filesz, Prot: prot}, nil
}

func checkLayout(exe *Executable) error {
	var lo, hi uint64 = ^uint64(0), 0
	entryOK := false
	for _, s := range exe.Segs {
		lo, hi = min(lo, s.Vaddr), max(hi, s.Vaddr+s.Memsz)
		if s.Prot&emu.ProtExec != 0 && exe.Entry >= s.Vaddr && exe.Entry < s.Vaddr+s.Memsz {
			entryOK = true
		}
	}
	base := exe.Base()
	if !exe.PIE && lo < minAddr {
		return errorf(exe.Path, NotRunnable, "malformed ELF file: segment at %#x lies below the lowest mappable address %#x", lo, minAddr)
	}
	if base+hi > archUserTop[exe.Arch] || hi-lo > 1<<40 {
		return errorf(exe.Path, NotRunnable, "malformed ELF file: segments span %#x-%#x, outside user space", lo, hi)
	}
	if !entryOK {
		return errorf(exe.Path, NotRunnable, "malformed ELF file: entry point %#x is not in an executable segment", exe.Entry)
	}
	return nil
}

// Base is the load bias: 0 for ET_EXEC, the fixed PIE base for ET_DYN.
func (e *Executable) Base() uint64 {
	if e.PIE {
		return pieBase[e.Arch]
	}
	return 0
}
