package symbolize

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Checks of DWARF against the file before debug/dwarf reads it: that
// package sizes a DWARF 5 line table's directory and file tables by the
// counts the header gives, unchecked (a corrupt count is an allocation of
// gigabytes), so each unit's header is walked here first; and the
// sections' sizes, which decompression may make larger than the file, are
// bounded by it.

// maxExpansion bounds the size a compressed debug section may claim for
// its contents, in multiples of the file's size.
const maxExpansion = 64

// errBadLines says a line table's header cannot be read as it claims.
var errBadLines = errors.New("malformed line table header")

// checkDebugSizes refuses DWARF sections whose contents claim more than
// maxExpansion times the file's size (compressed) or lie outside the file.
func checkDebugSizes(f *elf.File, fileSize uint64) error {
	for _, s := range f.Sections {
		if !strings.HasPrefix(s.Name, ".debug_") && !strings.HasPrefix(s.Name, ".zdebug_") || s.Type == elf.SHT_NOBITS {
			continue
		}
		compressed := s.Flags&elf.SHF_COMPRESSED != 0 || strings.HasPrefix(s.Name, ".zdebug_")
		switch {
		case s.Offset > fileSize || s.FileSize > fileSize-s.Offset:
			return fmt.Errorf("section %s (%#x bytes at %#x) lies outside the %#x-byte file", s.Name, s.FileSize, s.Offset, fileSize)
		case compressed && s.Size/maxExpansion > fileSize:
			return fmt.Errorf("compressed section %s claims %#x bytes, more than %d times the file", s.Name, s.Size, maxExpansion)
		}
	}
	return nil
}

// lineSection is the line tables' section as f.DWARF gives it to
// debug/dwarf (the last .debug_line or .zdebug_line), nil if none.
func lineSection(f *elf.File) ([]byte, error) {
	var data []byte
	for _, s := range f.Sections {
		if s.Name != ".debug_line" && s.Name != ".zdebug_line" {
			continue
		}
		b, err := s.Data()
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", s.Name, err)
		}
		data = b
	}
	return data, nil
}

// lineBuf reads a line table's header, failing at its end.
type lineBuf struct {
	b   []byte
	bad bool
}

func (r *lineBuf) take(n uint64) []byte {
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return make([]byte, 8)
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *lineBuf) u8() uint64  { return uint64(r.take(1)[0]) }
func (r *lineBuf) u16() uint64 { return uint64(binary.LittleEndian.Uint16(r.take(2))) }
func (r *lineBuf) u32() uint64 { return uint64(binary.LittleEndian.Uint32(r.take(4))) }
func (r *lineBuf) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }

func (r *lineBuf) uleb() uint64 {
	var v uint64
	for shift := uint(0); !r.bad; shift += 7 {
		c := r.u8()
		if shift < 64 {
			v |= (c & 0x7f) << shift
		}
		if c&0x80 == 0 {
			break
		}
	}
	return v
}

// DWARF 5's forms that may describe a line table's directory or file
// entry (DWARF 5 section 6.2.4.1).
const (
	formBlock  = 0x09
	formData1  = 0x0b
	formData2  = 0x05
	formData4  = 0x06
	formData8  = 0x07
	formData16 = 0x1e
	formString = 0x08
	formStrp   = 0x0e
	formUdata  = 0x0f
	formStrx   = 0x1a
	formStrpSp = 0x1d
	formLStrp  = 0x1f
	formStrx1  = 0x25
	formStrx2  = 0x26
	formStrx3  = 0x27
	formStrx4  = 0x28
)

// skipForm skips one value of form; it reports false for a form a line
// table may not use.
func (r *lineBuf) skipForm(form uint64, dwarf64 bool) bool {
	offSize := uint64(4)
	if dwarf64 {
		offSize = 8
	}
	switch form {
	case formString:
		for !r.bad && r.u8() != 0 {
		}
	case formUdata, formStrx:
		r.uleb()
	case formBlock:
		r.take(r.uleb())
	case formData1, formStrx1:
		r.take(1)
	case formData2, formStrx2:
		r.take(2)
	case formStrx3:
		r.take(3)
	case formData4, formStrx4:
		r.take(4)
	case formData8:
		r.take(8)
	case formData16:
		r.take(16)
	case formStrp, formLStrp, formStrpSp:
		r.take(offSize)
	default:
		return false
	}
	return true
}

// checkLineHeader checks the header of the line table at off in the line
// section: that it lies in the section and that a DWARF 5 header's
// directory and file tables hold the entries their counts give.
func checkLineHeader(sec []byte, off int64) error {
	if off < 0 || off >= int64(len(sec)) {
		return fmt.Errorf("%w: at %#x, outside the %#x-byte section", errBadLines, off, len(sec))
	}
	r := &lineBuf{b: sec[off:]}
	length, dwarf64 := r.u32(), false
	if length == 0xffffffff {
		length, dwarf64 = r.u64(), true
	}
	if r.bad || length > uint64(len(r.b)) {
		return fmt.Errorf("%w: at %#x, its length %#x runs past the section's end", errBadLines, off, length)
	}
	r.b = r.b[:length]
	if version := r.u16(); version != 5 {
		return nil // earlier versions' tables end at a NUL: debug/dwarf reads as far as they go
	}
	r.take(2) // address and segment selector sizes
	if dwarf64 {
		r.u64()
	} else {
		r.u32()
	}
	r.take(5)          // minimum_instruction_length ... line_range
	r.take(r.u8() - 1) // standard_opcode_lengths
	for table := 0; table < 2 && !r.bad; table++ {
		forms := make([]uint64, r.u8())
		for i := range forms {
			r.uleb() // content type
			forms[i] = r.uleb()
		}
		count := r.uleb()
		// Each entry takes at least a byte per form: a count beyond the
		// bytes left is corrupt (and so is one of entries of no forms).
		if count > uint64(len(r.b)) || count > 0 && len(forms) == 0 {
			return fmt.Errorf("%w: at %#x, %d entries in %d bytes", errBadLines, off, count, len(r.b))
		}
		for i := uint64(0); i < count && !r.bad; i++ {
			for _, form := range forms {
				if !r.skipForm(form, dwarf64) {
					return fmt.Errorf("%w: at %#x, form %#x in its file table", errBadLines, off, form)
				}
			}
		}
	}
	if r.bad {
		return fmt.Errorf("%w: at %#x, it ends inside its tables", errBadLines, off)
	}
	return nil
}
