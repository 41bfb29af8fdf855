package symbolize

import (
	"bytes"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

// debugPair is a test program split as distributions ship programs: the
// program stripped of every symbol and all DWARF, with a .gnu_debuglink
// to its debug file (objcopy --only-keep-debug), which has the rest.
type debugPair struct {
	orig, stripped, debug string
	buildID               string // "" if the program has none
}

// splitDebug splits the program at orig into dir, the debug file into a
// directory of its own (where the program does not find it), with the
// objcopy of its arch; it skips the test without one.
func splitDebug(t testing.TB, orig, dir string) debugPair {
	t.Helper()
	objcopy := "objcopy"
	if f, err := elf.Open(orig); err == nil {
		if f.Machine == elf.EM_AARCH64 {
			objcopy = "aarch64-linux-gnu-objcopy"
		}
		f.Close()
	}
	if _, err := exec.LookPath(objcopy); err != nil {
		t.Skipf("%s is not installed (binutils)", objcopy)
	}
	name := filepath.Base(orig)
	p := debugPair{orig: orig, stripped: filepath.Join(dir, name), debug: filepath.Join(dir, "kept", name+".debug")}
	if err := os.MkdirAll(filepath.Dir(p.debug), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--only-keep-debug", orig, p.debug},
		{"--strip-all", "--add-gnu-debuglink=" + p.debug, orig, p.stripped},
	} {
		if out, err := exec.Command(objcopy, args...).CombinedOutput(); err != nil {
			t.Fatalf("objcopy %v: %v\n%s", args, err, out)
		}
	}
	p.buildID = NewCache(DebugDirs{}, false).Open(orig).BuildID
	return p
}

// debugPairs splits the -g test programs that exist into dir (none if
// objcopy is missing).
func debugPairs(t testing.TB, dir string) []debugPair {
	if _, err := exec.LookPath("objcopy"); err != nil {
		return nil
	}
	var out []debugPair
	for _, p := range []string{"amd64/callgraph-g", "c/crunch-musl-g", "c/callgraph-musl-g"} {
		orig := filepath.Join("..", "testdata", "build", p)
		if _, err := os.Stat(orig); err == nil {
			out = append(out, splitDebug(t, orig, dir))
		}
	}
	return out
}

// placeDebugFile writes a copy of pair's stripped program into dir and
// data where it looks for its debug file: by build ID under root, or
// (for inputs of odd length, or a program without a build ID) by its
// .gnu_debuglink beside it. It returns the program's path.
func placeDebugFile(pair debugPair, data []byte, dir, root string) (string, error) {
	obj, err := os.ReadFile(pair.stripped)
	if err != nil {
		return "", err
	}
	prog := filepath.Join(dir, filepath.Base(pair.stripped))
	at := filepath.Join(dir, filepath.Base(pair.debug))
	if pair.buildID != "" && len(data)%2 == 0 {
		at = filepath.Join(root, ".build-id", pair.buildID[:2], pair.buildID[2:]+".debug")
	}
	for _, f := range []struct {
		path string
		data []byte
	}{{prog, obj}, {at, data}} {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			return "", err
		}
	}
	return prog, nil
}

// knowledge is everything the lookups of an object say about its
// functions: what TestDebugFile compares.
type knowledge struct {
	Functions []Function
	Entries   map[string]uint64
	Decls     map[uint64]Position
	Lines     map[uint64]Position
	Inlined   map[uint64][]InlinedCall
}

// know asks o, at bias, about every instruction address (every byte of
// its executable segments).
func know(t *testing.T, o *Object, bias uint64) knowledge {
	t.Helper()
	l := o.At(bias)
	k := knowledge{Entries: map[string]uint64{}, Decls: map[uint64]Position{}, Lines: map[uint64]Position{}, Inlined: map[uint64][]InlinedCall{}}
	segs, err := o.Code()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range segs {
		for a := bias + s.Addr; a < bias+s.Addr+uint64(len(s.Data)); a++ {
			if f, ok := l.Function(a); ok && f.Start == a {
				k.Functions = append(k.Functions, f)
				k.Entries[f.Name], _ = l.Entry(f.Name)
				k.Decls[a] = l.Declaration(a)
			}
			if pos, ok := l.Line(a); ok {
				k.Lines[a] = pos
			}
			if c := l.Inlined(a); c != nil {
				k.Inlined[a] = c
			}
		}
	}
	return k
}

// TestDebugFile checks that a stripped program with its separate debug
// file, found by .gnu_debuglink (beside it, in .debug, under a debug root)
// or by build ID (under a debug root, compressed or not), is known as the
// program was before it was split: the same functions, names, lines,
// declarations and inlined calls. A debug file whose CRC or build ID is
// not the program's is not used.
func TestDebugFile(t *testing.T) {
	pairs := debugPairs(t, t.TempDir())
	if len(pairs) < 2 {
		t.Skip("the -g test programs are not built (make testprogs), or objcopy is missing")
	}
	const bias = 0x10000
	for _, pair := range pairs {
		t.Run(filepath.Base(pair.orig), func(t *testing.T) {
			want := know(t, NewCache(DebugDirs{}, true).Open(pair.orig), bias)
			if len(want.Lines) == 0 || len(want.Functions) == 0 {
				t.Fatalf("%s: no lines or no functions", pair.orig)
			}
			stripped := know(t, NewCache(DebugDirs{}, true).Open(pair.stripped), bias)
			if len(stripped.Lines) != 0 || reflect.DeepEqual(stripped.Functions, want.Functions) {
				t.Fatalf("%s: the stripped program still has its lines or symbols", pair.stripped)
			}
			debug, err := os.ReadFile(pair.debug)
			if err != nil {
				t.Fatal(err)
			}
			type place struct {
				name string
				at   func(dir, root string) string // where the debug file goes
				ok   bool
			}
			base := filepath.Base(pair.debug)
			places := []place{
				{"beside it", func(dir, root string) string { return filepath.Join(dir, base) }, true},
				{"in .debug", func(dir, root string) string { return filepath.Join(dir, ".debug", base) }, true},
				{"under the root", func(dir, root string) string { return filepath.Join(root, dir, base) }, true},
				{"elsewhere", func(dir, root string) string { return filepath.Join(root, base) }, false},
			}
			if pair.buildID != "" {
				places = append(places, place{"by build ID", func(dir, root string) string {
					return filepath.Join(root, ".build-id", pair.buildID[:2], pair.buildID[2:]+".debug")
				}, true})
			}
			for _, p := range places {
				dir, root := t.TempDir(), t.TempDir()
				prog := filepath.Join(dir, filepath.Base(pair.stripped))
				copyFile(t, pair.stripped, prog)
				at := p.at(dir, root)
				writeFile(t, at, debug)
				o := NewCache(DebugDirs{Roots: []string{root}}, true).Open(prog)
				got := know(t, o, bias)
				if !p.ok {
					if o.DebugFile() != "" {
						t.Errorf("%s: debug file %s found", p.name, o.DebugFile())
					}
					continue
				}
				if o.DebugFile() != at {
					t.Errorf("%s: debug file %q, want %s", p.name, o.DebugFile(), at)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: with the debug file, the stripped program is known otherwise:\n%s", p.name, diffKnowledge(got, want))
				}
				if probs := o.Problems(); len(probs) > 0 {
					t.Errorf("%s: %v", p.name, probs)
				}
				// The same file changed by a byte is another build's.
				bad := bytes.Clone(debug)
				bad[len(bad)-1] ^= 1
				if p.name == "by build ID" {
					bad = otherBuildID(t, debug, pair.buildID)
				}
				writeFile(t, at, bad)
				o = NewCache(DebugDirs{Roots: []string{root}}, true).Open(prog)
				if o.DebugFile() != "" {
					t.Errorf("%s: a debug file of another build (%s) is used", p.name, o.DebugFile())
				}
				if got := know(t, o, bias); !reflect.DeepEqual(got, stripped) {
					t.Errorf("%s: without its debug file, the stripped program is known otherwise:\n%s", p.name, diffKnowledge(got, stripped))
				}
			}
		})
	}
}

// TestDebugFileWithoutLines: without lines, a debug file gives the
// stripped program its symbols but not its DWARF (a library's is
// megabytes, too dear for every run): the functions, names and entries of
// the program before it was split, and no declarations.
func TestDebugFileWithoutLines(t *testing.T) {
	orig := filepath.Join("..", "testdata", "build", "c", "callgraph-musl-g")
	if _, err := os.Stat(orig); err != nil {
		t.Skip("make testprogs")
	}
	pair := splitDebug(t, orig, t.TempDir())
	copyFile(t, pair.debug, filepath.Join(filepath.Dir(pair.stripped), filepath.Base(pair.debug)))
	want := know(t, NewCache(DebugDirs{}, false).Open(orig), 0)
	if len(want.Functions) == 0 || len(declared(want.Decls)) == 0 {
		t.Fatalf("%s: no functions or no declarations", orig)
	}
	o := NewCache(DebugDirs{}, false).Open(pair.stripped)
	got := know(t, o, 0)
	if o.DebugFile() == "" || !reflect.DeepEqual(got.Functions, want.Functions) || !reflect.DeepEqual(got.Entries, want.Entries) {
		t.Errorf("debug file %q:\n%s", o.DebugFile(), diffKnowledge(got, want))
	}
	if d := declared(got.Decls); len(d) > 0 {
		t.Errorf("declarations read from the debug file without lines: %v", d)
	}
}

// declared keeps the known declarations of decls.
func declared(decls map[uint64]Position) map[uint64]Position {
	out := map[uint64]Position{}
	for a, pos := range decls {
		if pos != (Position{}) {
			out[a] = pos
		}
	}
	return out
}

// TestCompressedDebugFile: a debug file whose DWARF is compressed (as
// Debian's are) gives the same lines.
func TestCompressedDebugFile(t *testing.T) {
	dir := t.TempDir()
	orig := filepath.Join("..", "testdata", "build", "amd64", "callgraph-g")
	if _, err := os.Stat(orig); err != nil {
		t.Skip("make testprogs")
	}
	pair := splitDebug(t, orig, dir)
	root := t.TempDir()
	at := filepath.Join(root, ".build-id", pair.buildID[:2], pair.buildID[2:]+".debug")
	if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("objcopy", "--compress-debug-sections=zlib", pair.debug, at).CombinedOutput(); err != nil {
		t.Fatalf("objcopy: %v\n%s", err, out)
	}
	want := know(t, NewCache(DebugDirs{}, true).Open(orig), 0)
	o := NewCache(DebugDirs{Roots: []string{root}}, true).Open(pair.stripped)
	if got := know(t, o, 0); o.DebugFile() != at || !reflect.DeepEqual(got, want) {
		t.Errorf("debug file %q:\n%s", o.DebugFile(), diffKnowledge(got, want))
	}
}

// TestDebugFileUnderSysroot: a guest's object under the sysroot (an
// arm64 program, as icount runs them, and an x86-64 one) finds its debug
// file under the sysroot's debug root, by build ID and by its path inside
// the sysroot, and is known with it as before it was split; a debug file
// of another arch at its build ID's path is not used.
func TestDebugFileUnderSysroot(t *testing.T) {
	for _, rel := range []string{"arm64/c/callgraph-glibc", "amd64/callgraph-g"} {
		t.Run(filepath.Dir(rel), func(t *testing.T) {
			orig := filepath.Join("..", "testdata", "build", rel)
			if _, err := os.Stat(orig); err != nil {
				t.Skip("make testprogs")
			}
			pair := splitDebug(t, orig, t.TempDir())
			debug, err := os.ReadFile(pair.debug)
			if err != nil {
				t.Fatal(err)
			}
			want := know(t, NewCache(DebugDirs{}, true).Open(orig), 0)
			for _, byID := range []bool{true, false} {
				sysroot, hostRoot := t.TempDir(), t.TempDir()
				prog := filepath.Join(sysroot, "usr", "lib", "prog")
				copyFile(t, pair.stripped, prog)
				dirs := DebugDirs{Roots: []string{hostRoot, filepath.Join(sysroot, "usr", "lib", "debug")}, Sysroot: sysroot}
				at := filepath.Join(sysroot, "usr", "lib", "debug", "usr", "lib", filepath.Base(pair.debug))
				if byID {
					at = filepath.Join(sysroot, "usr", "lib", "debug", ".build-id", pair.buildID[:2], pair.buildID[2:]+".debug")
				}
				writeFile(t, at, debug)
				o := NewCache(dirs, true).Open(prog)
				if o.DebugFile() != at {
					t.Errorf("by build ID %v: debug file %q, want %s", byID, o.DebugFile(), at)
				}
				if got := know(t, o, 0); !reflect.DeepEqual(got, want) {
					t.Errorf("by build ID %v: with its debug file, the stripped program is known otherwise:\n%s", byID, diffKnowledge(got, want))
				}
			}
		})
	}
	if got := SystemDebugDirs("/sr"); !reflect.DeepEqual(got, DebugDirs{Roots: []string{"/usr/lib/debug", "/sr/usr/lib/debug"}, Sysroot: "/sr"}) {
		t.Errorf("SystemDebugDirs: %+v", got)
	}
}

// TestDebugFileOfAnotherArch: a file at the program's build-ID path that
// is another arch's (with the program's build ID patched in) is not its
// debug file.
func TestDebugFileOfAnotherArch(t *testing.T) {
	arm := filepath.Join("..", "testdata", "build", "arm64", "c", "callgraph-glibc")
	x86 := filepath.Join("..", "testdata", "build", "c", "callgraph-glibc")
	for _, p := range []string{arm, x86} {
		if _, err := os.Stat(p); err != nil {
			t.Skip("make testprogs")
		}
	}
	armPair, x86Pair := splitDebug(t, arm, t.TempDir()), splitDebug(t, x86, t.TempDir())
	if len(armPair.buildID) != len(x86Pair.buildID) {
		t.Skip("the two programs' build IDs differ in length")
	}
	x86Debug, err := os.ReadFile(x86Pair.debug)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := hex.DecodeString(x86Pair.buildID)
	armID, _ := hex.DecodeString(armPair.buildID)
	i := bytes.Index(x86Debug, raw)
	if i < 0 {
		t.Fatal("no build ID in the x86-64 debug file")
	}
	copy(x86Debug[i:], armID)
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".build-id", armPair.buildID[:2], armPair.buildID[2:]+".debug"), x86Debug)
	if got := NewCache(DebugDirs{Roots: []string{root}}, false).Open(armPair.stripped).DebugFile(); got != "" {
		t.Errorf("an x86-64 debug file is used for an arm64 program: %s", got)
	}
}

// TestDebugFileByRealDirectory: an object named through a link to its
// directory (Debian's /lib to /usr/lib) finds the debug file its
// .gnu_debuglink names under a debug root by the directory's real path.
func TestDebugFileByRealDirectory(t *testing.T) {
	orig := filepath.Join("..", "testdata", "build", "c", "callgraph-musl-g")
	if _, err := os.Stat(orig); err != nil {
		t.Skip("make testprogs")
	}
	pair := splitDebug(t, orig, t.TempDir())
	top, root := t.TempDir(), t.TempDir()
	real := filepath.Join(top, "usr", "lib")
	copyFile(t, pair.stripped, filepath.Join(real, "prog"))
	if err := os.Symlink(filepath.Join("usr", "lib"), filepath.Join(top, "lib")); err != nil {
		t.Fatal(err)
	}
	at := filepath.Join(root, real, filepath.Base(pair.debug))
	copyFile(t, pair.debug, at)
	if got := NewCache(DebugDirs{Roots: []string{root}}, false).Open(filepath.Join(top, "lib", "prog")).DebugFile(); got != at {
		t.Errorf("debug file %q, want %s", got, at)
	}
}

// TestDebugLinkNames: a .gnu_debuglink naming a file elsewhere than a
// directory icount chooses is not followed.
func TestDebugLinkNames(t *testing.T) {
	for name, ok := range map[string]bool{"prog.debug": true, "../prog.debug": false, "/etc/passwd": false, "..": false, "": false} {
		sec := append([]byte(name), 0)
		for len(sec)%4 != 0 {
			sec = append(sec, 0)
		}
		sec = append(sec, 0x78, 0x56, 0x34, 0x12)
		got := readDebugLink(withSection(t, ".gnu_debuglink", sec))
		if want := (debugLink{name, 0x12345678}); ok && got != want || !ok && got != (debugLink{}) {
			t.Errorf("%q: %+v", name, got)
		}
	}
}

// withSection is the smallest ELF file with one section, name, holding
// data.
func withSection(t *testing.T, name string, data []byte) *elf.File {
	t.Helper()
	var b bytes.Buffer
	shstr := append([]byte("\x00"+name+"\x00.shstrtab\x00"), 0)
	hdr := make([]byte, 64)
	copy(hdr, "\x7fELF\x02\x01\x01")
	le := func(at int, v uint64, n int) {
		for i := 0; i < n; i++ {
			hdr[at+i] = byte(v >> (8 * i))
		}
	}
	dataOff := 64
	shstrOff := dataOff + len(data)
	shoff := shstrOff + len(shstr)
	le(0x10, uint64(elf.ET_EXEC), 2)
	le(0x12, uint64(elf.EM_X86_64), 2)
	le(0x14, 1, 4)
	le(0x28, uint64(shoff), 8)
	le(0x34, 64, 2)
	le(0x3a, 64, 2)
	le(0x3c, 3, 2)
	le(0x3e, 2, 2)
	b.Write(hdr)
	b.Write(data)
	b.Write(shstr)
	sh := func(nameOff int, typ elf.SectionType, off, size int) {
		s := make([]byte, 64)
		put := func(at int, v uint64, n int) {
			for i := 0; i < n; i++ {
				s[at+i] = byte(v >> (8 * i))
			}
		}
		put(0, uint64(nameOff), 4)
		put(4, uint64(typ), 4)
		put(24, uint64(off), 8)
		put(32, uint64(size), 8)
		b.Write(s)
	}
	sh(0, elf.SHT_NULL, 0, 0)
	sh(1, elf.SHT_PROGBITS, dataOff, len(data))
	sh(2+len(name), elf.SHT_STRTAB, shstrOff, len(shstr))
	f, err := elf.NewFile(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// otherBuildID returns debug with its build ID (id, in hex) changed.
func otherBuildID(t *testing.T, debug []byte, id string) []byte {
	t.Helper()
	raw, err := hex.DecodeString(id)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(debug, raw)
	if i < 0 {
		t.Fatalf("build ID %s not in the debug file", id)
	}
	out := bytes.Clone(debug)
	out[i] ^= 0xff
	return out
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, b)
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// diffKnowledge says where got and want differ, briefly.
func diffKnowledge(got, want knowledge) string {
	var b bytes.Buffer
	if !reflect.DeepEqual(got.Functions, want.Functions) {
		b.WriteString("functions differ: got " + short(got.Functions) + "\nwant " + short(want.Functions) + "\n")
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{{"entries", got.Entries, want.Entries}, {"declarations", got.Decls, want.Decls}, {"lines", len(got.Lines), len(want.Lines)}, {"inlined", got.Inlined, want.Inlined}} {
		if !reflect.DeepEqual(c.got, c.want) {
			b.WriteString(c.name + " differ: got " + short(c.got) + "\nwant " + short(c.want) + "\n")
		}
	}
	if b.Len() == 0 && !reflect.DeepEqual(got.Lines, want.Lines) {
		b.WriteString("lines differ\n")
	}
	return b.String()
}

func short(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 600 {
		s = s[:600] + "..."
	}
	return s
}

// TestSystemDebugFile: with Debian's libc6-dbg installed, the host's libc
// finds its debug file by build ID, and the local functions its own
// symbol table lacks are named, with their source.
func TestSystemDebugFile(t *testing.T) {
	const lib = "/lib/x86_64-linux-gnu/libc.so.6"
	o := NewCache(SystemDebugDirs(""), true).Open(lib)
	if o.BuildID == "" {
		t.Skipf("%s is not here, or has no build ID", lib)
	}
	want := filepath.Join("/usr/lib/debug/.build-id", o.BuildID[:2], o.BuildID[2:]+".debug")
	if _, err := os.Stat(want); err != nil {
		t.Skip("libc6-dbg is not installed")
	}
	if o.DebugFile() != want {
		t.Fatalf("debug file %q, want %s", o.DebugFile(), want)
	}
	const bias = 0x7f0000000000
	l := o.At(bias)
	entry, ok := l.Entry("msort_with_tmp.part.0")
	if !ok {
		t.Fatal("no msort_with_tmp.part.0")
	}
	fn, _ := l.Function(entry + 1)
	decl := l.Declaration(entry)
	line, _ := l.Line(entry + 1)
	if fn.Name != "msort_with_tmp.part.0" || fn.Start != entry || filepath.Base(decl.File) != "msort.c" || decl.Line == 0 || filepath.Base(line.File) != "msort.c" {
		t.Errorf("msort_with_tmp.part.0 at %#x: %+v, declared at %+v, first line %+v", entry, fn, decl, line)
	}
	if p := o.Problems(); len(p) > 0 {
		t.Errorf("problems: %v", p)
	}
}
