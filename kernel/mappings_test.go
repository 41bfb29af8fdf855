package kernel

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/loader"
	"golang.org/x/sys/unix"
)

// TestProvenance follows what a dynamic linker and a program do to their
// mappings: the log names each range made executable, with its file and
// offset, and ExecMappingAt finds what holds an address now.
func TestProvenance(t *testing.T) {
	p := &Image{prov: &provenance{}}
	v := p.prov
	const rx, r, rw = emu.ProtRead | emu.ProtExec, emu.ProtRead, emu.ProtRead | emu.ProtWrite
	at := func(addr uint64) (ExecMapping, bool) {
		i, ok := p.ExecMappingAt(addr)
		if !ok {
			return ExecMapping{}, false
		}
		return p.ExecMappings()[i], true
	}
	want := func(addr uint64, path string, offset uint64) {
		t.Helper()
		m, ok := at(addr)
		if !ok || m.Path != path || m.Offset+(addr-m.Start) != offset {
			t.Errorf("%#x: %+v, %v; want %s at file offset %#x", addr, m, ok, path, offset)
		}
	}
	notExec := func(addr uint64, what string) {
		t.Helper()
		if _, ok := at(addr); ok {
			t.Errorf("%s at %#x is executable", what, addr)
		}
	}
	// ld.so maps all of libc read-only, then its code over it.
	v.mapped(0x10000, 0x40000, r, "/lib/libc.so.6", 0)
	notExec(0x20000, "read-only memory")
	v.mapped(0x12000, 0x30000, rx, "/lib/libc.so.6", 0x2000)
	want(0x12000, "/lib/libc.so.6", 0x2000)
	want(0x2ffff, "/lib/libc.so.6", 0x1ffff)
	// RELRO: the data is made read-only; the code stays as it was.
	v.protected(0x30000, 0x32000, r)
	want(0x20000, "/lib/libc.so.6", 0x10000)
	// A piece unmapped, another file mapped over part of it.
	v.cut(0x14000, 0x16000)
	notExec(0x15000, "unmapped memory")
	v.mapped(0x18000, 0x19000, rx, "/tmp/code2", 0)
	want(0x18000, "/tmp/code2", 0)
	want(0x19000, "/lib/libc.so.6", 0x9000)
	// Read-only file memory made executable starts a new log entry at its
	// offset; memory no mapping recorded (the heap) becomes anonymous code.
	v.protected(0x38000, 0x39000, rx)
	want(0x38000, "/lib/libc.so.6", 0x28000)
	v.protected(0x80000, 0x81000, rw|emu.ProtExec)
	want(0x80000, "", 0)
	// mremap moves what a range holds.
	v.moved(0x38000, 0x1000, 0x90000)
	want(0x90000, "/lib/libc.so.6", 0x28000)
	notExec(0x38000, "memory moved away")
	if n := len(p.ExecMappings()); n != 5 {
		t.Errorf("%d executable mappings logged, want 5: %+v", n, p.ExecMappings())
	}
}

// TestLoadedSegments checks the executable's segments as the loader maps
// them: a page shared by a read-only and an executable segment is
// executable, from the executable segment's file range.
func TestLoadedSegments(t *testing.T) {
	p := &Image{prov: &provenance{}}
	exe := &loader.Executable{Path: "/bin/prog", Segs: []loader.Segment{
		{Vaddr: 0x400000, Memsz: 0x800, Offset: 0, Filesz: 0x800, Prot: emu.ProtRead},
		{Vaddr: 0x400800, Memsz: 0x1000, Offset: 0x800, Filesz: 0x1000, Prot: emu.ProtRead | emu.ProtExec},
		{Vaddr: 0x402000, Memsz: 0x3000, Offset: 0x2000, Filesz: 0x100, Prot: emu.ProtRead | emu.ProtWrite},
	}}
	loaded(p.prov, exe, 0)
	log := p.ExecMappings()
	if len(log) != 1 || log[0] != (ExecMapping{Start: 0x400800, End: 0x401800, Path: "/bin/prog", Offset: 0x800}) {
		t.Fatalf("log %+v", log)
	}
	for _, addr := range []uint64{0x400000, 0x400800, 0x401fff} {
		if i, ok := p.ExecMappingAt(addr); !ok || i != 0 {
			t.Errorf("%#x: %d, %v", addr, i, ok)
		}
	}
	if _, ok := p.ExecMappingAt(0x402000); ok {
		t.Error("the data segment is executable")
	}
}

// TestGuestPaths checks how guest paths reach host files: the executable's
// aliases, /icount/exe/ as its directory ($ORIGIN), /icount as that
// directory's parent (an interpreter's prefix), and the sysroot first
// for absolute paths, the host for what it lacks.
func TestGuestPaths(t *testing.T) {
	dir, sysroot := t.TempDir(), t.TempDir()
	exe := filepath.Join(dir, "prog")
	for _, f := range []string{exe, filepath.Join(sysroot, "lib", "libonly.so"), filepath.Join(sysroot, dir, "prog")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := &Process{k: &Kernel{opts: Options{Sysroot: sysroot}}, exe: &loader.Executable{Path: exe}}
	for guest, host := range map[string]string{
		"/proc/self/exe":          exe,
		"/icount/exe/prog":        exe,
		"/icount/exe":             dir,
		"/icount/exe/lib/libx.so": filepath.Join(dir, "lib", "libx.so"),
		"/icount/exe/../share/a":  filepath.Join(dir, "..", "share", "a"),
		"/icount":                 filepath.Dir(dir),
		"/icount/lib/python3/a":   filepath.Join(filepath.Dir(dir), "lib", "python3", "a"),
		"/etc/some/absent/file":   "/etc/some/absent/file",
		"relative/path":           "relative/path",
		"/lib/libonly.so":         filepath.Join(sysroot, "lib", "libonly.so"),
		exe:                       filepath.Join(sysroot, dir, "prog"), // the sysroot's first, as qemu-aarch64 -L
	} {
		got, err := p.resolve(guest, func(h string) error { return unix.Access(h, unix.F_OK) })
		if got != filepath.Clean(host) && got != host {
			t.Errorf("%s: %s (%v), want %s", guest, got, err, host)
		}
	}
	p.k.opts.Sysroot = ""
	if got, err := p.resolve("/lib/libonly.so", func(h string) error { return unix.Access(h, unix.F_OK) }); err == nil || got != "/lib/libonly.so" {
		t.Errorf("without a sysroot: %s, %v", got, err)
	}
}
