package atomicfile

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// entries lists a directory's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestReplace: a write replaces the file whole, keeping its mode, and
// leaves nothing else in the directory.
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.json")
	if err := WriteFile(file, []byte("first\n")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(file, []byte("second\n")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(file)
	fi, _ := os.Stat(file)
	if string(b) != "second\n" || fi.Mode().Perm() != 0o600 {
		t.Errorf("file holds %q, mode %v; want \"second\\n\", 0600", b, fi.Mode().Perm())
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v", names)
	}
}

// TestFailedWriteKeepsFile: a format that fails half way, and a write
// the file size limit cuts short (EFBIG, RLIMIT_FSIZE with SIGXFSZ
// ignored, as a full disk's ENOSPC would), leave the previous file as it
// was and no temporary file behind.
func TestFailedWriteKeepsFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.json")
	good := strings.Repeat("good ", 100)
	if err := WriteFile(file, []byte(good)); err != nil {
		t.Fatal(err)
	}
	check := func(what string) {
		t.Helper()
		if b, _ := os.ReadFile(file); string(b) != good {
			t.Errorf("%s: the file holds %d bytes, not the previous %d", what, len(b), len(good))
		}
		if names := entries(t, dir); len(names) != 1 {
			t.Errorf("%s: directory holds %v", what, names)
		}
	}
	failing := errors.New("the format failed")
	err := Write(file, func(w io.Writer) error {
		io.WriteString(w, strings.Repeat("half ", 1<<16))
		return failing
	})
	if !errors.Is(err, failing) {
		t.Errorf("Write returned %v", err)
	}
	check("failing format")

	signal.Ignore(syscall.SIGXFSZ)
	defer signal.Reset(syscall.SIGXFSZ)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	lim := old
	lim.Cur = 4096
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	err = WriteFile(file, []byte(strings.Repeat("too big ", 1<<12)))
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old)
	if !errors.Is(err, syscall.EFBIG) || !strings.Contains(err.Error(), "write "+file+": file too large") {
		t.Errorf("Write returned %v, want EFBIG naming %s", err, file)
	}
	check("EFBIG")
}

// TestSpecialFiles: a symbolic link is followed (the file it names is
// replaced, the link kept); /dev/null is written in place, not replaced;
// a directory is refused.
func TestSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
	os.WriteFile(target, []byte("old"), 0o644)
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("the link's target holds %q", b)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	before, _ := os.Stat("/dev/null")
	if err := Check("/dev/null"); err != nil {
		t.Errorf("Check(/dev/null): %v", err)
	}
	if err := WriteFile("/dev/null", []byte("x")); err != nil {
		t.Errorf("WriteFile(/dev/null): %v", err)
	}
	if after, err := os.Stat("/dev/null"); err != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) {
		t.Errorf("/dev/null was replaced: %v", err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "missing", "x")} {
		if err := Check(p); err == nil {
			t.Errorf("Check(%s) passed", p)
		}
		if err := WriteFile(p, nil); err == nil {
			t.Errorf("WriteFile(%s) passed", p)
		}
	}
	if err := Check(dir); !errors.Is(err, syscall.EISDIR) {
		t.Errorf("Check(directory) = %v, want EISDIR", err)
	}
	if err := Check(filepath.Join(dir, "missing", "x")); !errors.Is(err, syscall.ENOENT) || !strings.Contains(err.Error(), "create a file in "+filepath.Join(dir, "missing")) {
		t.Errorf("Check(missing directory) = %v", err)
	}
	if names := entries(t, dir); len(names) != 2 {
		t.Errorf("Check left files behind: %v", names)
	}
}
