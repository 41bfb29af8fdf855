// Package mutate makes corrupt variants of real ELF files for the mutation
// tests of the readers of untrusted input (loader, symbolize, cmd/icount): each
// mutant is a function of its seed file and its number alone, so a failure
// names a mutant that can be made again.
package mutate

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Seed is a real ELF file to mutate, with where its parts lie.
type Seed struct {
	Name  string
	Data  []byte
	parts []part // the headers and the sections worth corrupting
}

// part is a byte range of the file and what it holds.
type part struct {
	name     string
	off, len uint64
	// fields are offsets (from off) of size and count fields worth setting
	// to huge values, and their widths in bytes.
	fields []field
}

type field struct {
	at    uint64
	width int
	name  string
}

// Mutant is one corrupt variant of a seed.
type Mutant struct {
	Data []byte
	What string // how it was made, for a failure's message
}

// NewSeed finds the parts of data, a valid 64-bit little-endian ELF file.
func NewSeed(name string, data []byte) (*Seed, error) {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("seed %s: %w", name, err)
	}
	le := binary.LittleEndian
	s := &Seed{Name: name, Data: data}
	s.parts = append(s.parts, part{name: "ELF header", off: 0, len: 64, fields: []field{
		{0x20, 8, "e_phoff"}, {0x28, 8, "e_shoff"}, {0x36, 2, "e_phentsize"}, {0x38, 2, "e_phnum"},
		{0x3a, 2, "e_shentsize"}, {0x3c, 2, "e_shnum"}, {0x3e, 2, "e_shstrndx"}, {0x18, 8, "e_entry"}}})
	phoff, phnum := le.Uint64(data[0x20:]), uint64(le.Uint16(data[0x38:]))
	s.parts = append(s.parts, table("program headers", phoff, phnum, 56,
		[]field{{8, 8, "p_offset"}, {16, 8, "p_vaddr"}, {32, 8, "p_filesz"}, {40, 8, "p_memsz"}}))
	shoff, shnum := le.Uint64(data[0x28:]), uint64(le.Uint16(data[0x3c:]))
	s.parts = append(s.parts, table("section headers", shoff, shnum, 64,
		[]field{{24, 8, "sh_offset"}, {32, 8, "sh_size"}, {40, 4, "sh_link"}, {56, 8, "sh_entsize"}}))
	for _, sec := range f.Sections {
		if sec.Type == elf.SHT_NOBITS || sec.Size == 0 || sec.Offset+sec.Size > uint64(len(data)) || !worthCorrupting(sec.Name) {
			continue
		}
		p := part{name: sec.Name, off: sec.Offset, len: sec.Size}
		if strings.HasPrefix(sec.Name, ".debug_") {
			// Unit lengths (and, in a line program's header, the
			// header length and counts) lie at the first words.
			for at := uint64(0); at+4 <= min(sec.Size, 64); at += 4 {
				p.fields = append(p.fields, field{at, 4, fmt.Sprintf("%s+%d", sec.Name, at)})
			}
		}
		s.parts = append(s.parts, p)
	}
	return s, nil
}

// table is a part of n entries of entsize bytes at off, with each
// entry's fields (offsets within the entry), named by entry.
func table(name string, off, n, entsize uint64, entry []field) part {
	p := part{name: name, off: off, len: n * entsize}
	for i := uint64(0); i < n; i++ {
		for _, f := range entry {
			p.fields = append(p.fields, field{i*entsize + f.at, f.width, fmt.Sprintf("%s[%d]", f.name, i)})
		}
	}
	return p
}

func worthCorrupting(name string) bool {
	switch name {
	case ".symtab", ".strtab", ".dynsym", ".dynstr", ".dynamic", ".rela.plt", ".rela.dyn", ".plt", ".plt.sec",
		".eh_frame_hdr", ".note.gnu.build-id", ".interp", ".gnu_debuglink", ".gnu.version", ".gnu.version_r",
		".gnu.version_d", ".gnu.hash", ".hash":
		return true
	}
	return strings.HasPrefix(name, ".debug_") || strings.HasPrefix(name, ".zdebug_")
}

// huge are the values a size or count field is set to.
var huge = []uint64{0xffffffff, 0xfffffff0, 0x7fffffff, 0x80000000, 0xffffffffffffffff, 1 << 40, 1 << 62, 0x10000000}

// Mutant makes mutant number n of the seed: bytes flipped in one part,
// a size or count set huge, random words written into a part, or the
// file truncated.
func (s *Seed) Mutant(n uint64) Mutant {
	m := s.mutant(n)
	m.What = fmt.Sprintf("mutant %d of %s", n, m.What)
	return m
}

func (s *Seed) mutant(n uint64) Mutant {
	rng := rand.New(rand.NewPCG(n, 0x1c0017))
	data := bytes.Clone(s.Data)
	p := s.parts[rng.IntN(len(s.parts))]
	end := min(p.off+p.len, uint64(len(data)))
	if p.off >= end {
		p = s.parts[0]
		end = 64
	}
	switch k := rng.IntN(10); {
	case k < 4: // flip bytes
		nflips := 1 + rng.IntN(8)
		for i := 0; i < nflips; i++ {
			at := p.off + rng.Uint64N(end-p.off)
			data[at] ^= byte(1 + rng.IntN(255))
		}
		return Mutant{data, fmt.Sprintf("%s: %d bytes flipped in %s", s.Name, nflips, p.name)}
	case k < 7 && len(p.fields) > 0: // a size or count made huge
		f := p.fields[rng.IntN(len(p.fields))]
		v := huge[rng.IntN(len(huge))]
		if at := p.off + f.at; at+uint64(f.width) <= uint64(len(data)) {
			put(data[at:], f.width, v)
		}
		return Mutant{data, fmt.Sprintf("%s: %s set to %#x", s.Name, f.name, v)}
	case k < 9: // huge words at random places
		nwords := 1 + rng.IntN(4)
		for i := 0; i < nwords && end-p.off >= 4; i++ {
			at := p.off + rng.Uint64N(end-p.off-3)
			put(data[at:], 4, huge[rng.IntN(len(huge))])
		}
		return Mutant{data, fmt.Sprintf("%s: %d huge words written in %s", s.Name, nwords, p.name)}
	default: // truncated
		at := rng.Uint64N(uint64(len(data)))
		return Mutant{data[:at], fmt.Sprintf("%s: truncated to %d bytes", s.Name, at)}
	}
}

func put(b []byte, width int, v uint64) {
	le := binary.LittleEndian
	switch width {
	case 2:
		le.PutUint16(b, uint16(v))
	case 4:
		le.PutUint32(b, uint32(v))
	case 8:
		le.PutUint64(b, v)
	}
}
