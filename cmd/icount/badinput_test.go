package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInput gives icount files it cannot run: each ends with one line
// naming the file and the problem, and a documented exit status.
func TestBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good, err := os.ReadFile(testProgram(t, "amd64/loop"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	patched := func(off int, b ...byte) []byte {
		c := append([]byte(nil), good...)
		copy(c[off:], b)
		return c
	}
	cases := []struct {
		name, path string
		status     int
		msg        string
	}{
		{"not ELF", write("text", []byte("just some text\n"), 0o755), exitCannotRun, "is not an ELF file"},
		{"empty", write("empty", nil, 0o755), exitCannotRun, "is empty"},
		{"truncated", write("truncated", good[:200], 0o755), exitCannotRun, "truncated ELF file"},
		{"32-bit", write("elf32", patched(4, 1), 0o755), exitCannotRun, "32-bit ELF"},
		{"big-endian", write("msb", patched(5, 2), 0o755), exitCannotRun, "big-endian"},
		{"foreign arch", write("riscv", patched(18, 0xf3, 0), 0o755), exitCannotRun, "EM_RISCV"},
		{"missing", filepath.Join(dir, "missing"), exitNotFound, "no such file"},
		{"directory", dir, exitCannotRun, "is a directory"},
		{"not executable", write("noexec", good, 0o644), exitCannotRun, "is not executable"},
		{"script", write("script", []byte("#!/bin/sh\necho hi\n"), 0o755), exitCannotRun, "is a script"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := runIcount(t, nil, nil, c.path)
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if r.status != c.status || len(lines) != 1 || !strings.Contains(lines[0], c.msg) ||
				!strings.HasPrefix(lines[0], "icount: "+c.path+": ") {
				t.Errorf("status %d, stderr %q; want status %d and one line naming %s with %q", r.status, r.stderr, c.status, c.path, c.msg)
			}
			if strings.Contains(r.stderr, "goroutine") || r.profile != nil {
				t.Errorf("panic or profile written: %s", r.stderr)
			}
		})
	}
}

// TestUnsupportedSyscall checks the message for a system call in a form
// icount does not emulate: its name, number, address, what of it is
// missing and the function.
func TestUnsupportedSyscall(t *testing.T) {
	t.Parallel()
	r := runIcount(t, nil, nil, testProgram(t, "amd64/unsupported"))
	want := "icount: system call openat2 (437) at pc 0x401022 uses openat2 of /proc/self/exe with resolve flags 4, whose lookup reaches /proc (icount gives it other host files, or answers it itself), which icount does not emulate (see 'icount syscalls'), in _start+0x22 (unsupported)"
	if r.status != exitUnsupported || !strings.Contains(r.stderr, want+"\n") {
		t.Errorf("status %d, stderr:\n%s\nwant status %d and %q", r.status, r.stderr, exitUnsupported, want)
	}
	if r.profile == nil || r.profile.Exit.Complete {
		t.Errorf("want a profile marked incomplete")
	}
}

// TestFaultMessage checks the message for a guest killed by a fault.
func TestFaultMessage(t *testing.T) {
	t.Parallel()
	r := runIcount(t, nil, nil, testProgram(t, "amd64/fault"))
	want := "icount: SIGSEGV: access to unmapped address 0x10 by `mov (%rdx),%rcx` at 0x40101a, in _start+0x1a (fault)\n"
	if r.status != 139 || !strings.HasSuffix(r.stderr, want) {
		t.Errorf("status %d, stderr:\n%s\nwant 139 and %q", r.status, r.stderr, want)
	}
}
