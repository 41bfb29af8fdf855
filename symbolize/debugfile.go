package symbolize

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Separate debug files, found as gdb and valgrind find them: by the
// object's build ID, ROOT/.build-id/xx/rest.debug under each debug root,
// then by the name and CRC-32 its .gnu_debuglink section gives, in the
// object's directory, its .debug subdirectory, and the object's directory
// under each debug root. A file found by build ID must carry that build
// ID; one found by .gnu_debuglink must have that CRC-32 and, when both
// have build IDs, the object's. The debug file's sections have the
// object's addresses.

// DebugDirs says where separate debug files are looked for.
type DebugDirs struct {
	// Roots are the global debug directories, as gdb's
	// debug-file-directory: each holds .build-id/xx/rest.debug, and the
	// files .gnu_debuglink names under the object's own directory.
	Roots []string
	// Sysroot is the directory a guest of another arch finds its files
	// under (--sysroot), "" for none: an object under it is also looked
	// for by its path inside it.
	Sysroot string
}

// systemDebugRoot is where Debian installs debug files (libc6-dbg, the
// -dbgsym packages).
const systemDebugRoot = "/usr/lib/debug"

// SystemDebugDirs are where the system keeps debug files: /usr/lib/debug
// on the host and, for a guest with a sysroot, under the sysroot.
func SystemDebugDirs(sysroot string) DebugDirs {
	d := DebugDirs{Roots: []string{systemDebugRoot}, Sysroot: sysroot}
	if sysroot != "" {
		d.Roots = append(d.Roots, filepath.Join(sysroot, systemDebugRoot))
	}
	return d
}

// debugLink is what an object's .gnu_debuglink says: the name of its
// debug file and the CRC-32 of the file's contents.
type debugLink struct {
	name string
	crc  uint32
}

// maxDebugLink bounds the .gnu_debuglink section icount reads: a file
// name, its NUL, padding and the CRC.
const maxDebugLink = 4096

// readDebugLink reads f's .gnu_debuglink; none if it has none, or one
// naming a file in another directory.
func readDebugLink(f *elf.File) debugLink {
	s := f.Section(".gnu_debuglink")
	if s == nil || s.Type == elf.SHT_NOBITS || s.Size > maxDebugLink {
		return debugLink{}
	}
	b, err := s.Data()
	if err != nil {
		return debugLink{}
	}
	end := bytes.IndexByte(b, 0)
	at := (end + 4) &^ 3 // the CRC, 4-aligned after the NUL
	if end <= 0 || at+4 > len(b) {
		return debugLink{}
	}
	name := string(b[:end])
	if strings.ContainsRune(name, '/') || name == "." || name == ".." {
		return debugLink{}
	}
	return debugLink{name, f.ByteOrder.Uint32(b[at:])}
}

// BuildID returns the GNU build ID of an ELF file in hex, "" if it has
// none.
func BuildID(f *elf.File) string {
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		return ""
	}
	b, err := s.Data()
	if err != nil || len(b) < 16 {
		return ""
	}
	namesz := binary.LittleEndian.Uint32(b[0:])
	descsz := binary.LittleEndian.Uint32(b[4:])
	off := 12 + (uint64(namesz)+3)&^3
	if off+uint64(descsz) > uint64(len(b)) {
		return ""
	}
	return hex.EncodeToString(b[off : off+uint64(descsz)])
}

// find returns the separate debug file of o, "" if there is none.
func (d DebugDirs) find(o *Object) string {
	if o.Machine == 0 {
		return ""
	}
	if id := o.BuildID; len(id) > 2 {
		for _, root := range d.Roots {
			p := filepath.Join(root, ".build-id", id[:2], id[2:]+".debug")
			if debugFileOf(o, p, false) {
				return p
			}
		}
	}
	if o.link.name == "" {
		return ""
	}
	abs, err := filepath.Abs(o.Path)
	if err != nil {
		return ""
	}
	dir := filepath.Dir(abs)
	dirs := []string{dir, filepath.Join(dir, ".debug")}
	// Under a root, the directory as the object was named and as it is
	// (Debian's /lib is /usr/lib), each also inside the sysroot.
	named := []string{dir}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		named = append(named, real)
	}
	for _, root := range d.Roots {
		for _, n := range named {
			dirs = append(dirs, filepath.Join(root, n))
			if d.Sysroot != "" && strings.HasPrefix(n, d.Sysroot+"/") {
				dirs = append(dirs, filepath.Join(root, strings.TrimPrefix(n, d.Sysroot)))
			}
		}
	}
	for _, dir := range dirs {
		if p := filepath.Join(dir, o.link.name); debugFileOf(o, p, true) {
			return p
		}
	}
	return ""
}

// debugFileOf reports whether the file at p is a debug file of o: an ELF
// file of o's machine and class, not o itself, with o's build ID or, when
// byLink, the CRC-32 o's .gnu_debuglink gives (and o's build ID if both
// have one).
func debugFileOf(o *Object, p string, byLink bool) bool {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	if self, err := os.Stat(o.Path); err == nil && os.SameFile(st, self) {
		return false
	}
	file, err := os.Open(p)
	if err != nil {
		return false
	}
	defer file.Close()
	f, err := newELF(file)
	if err != nil || f.Machine != o.Machine || f.Class != o.class {
		return false
	}
	id := BuildID(f)
	if !byLink {
		return id == o.BuildID
	}
	if id != "" && o.BuildID != "" && id != o.BuildID {
		return false
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		return false
	}
	crc := crc32.NewIEEE()
	if _, err := io.Copy(crc, file); err != nil {
		return false
	}
	return crc.Sum32() == o.link.crc
}
