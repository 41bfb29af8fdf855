package main

// The file calls that pass through to the host's files: truncate,
// fallocate, the syncs, readahead, preadv and pwritev and their v2 forms,
// splice and tee, the xattr setters, x86-64's old getdents and
// memfd_create with its seals (issue 15).

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestFileops2Trusted gives a file a trusted. attribute, which only root
// can, and runs fileops2's "trusted" part there natively (it drops to uid
// 1000) and under icount run by root: both show the unprivileged view, in
// which trusted. attributes are neither read nor listed nor changed.
func TestFileops2Trusted(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("only root can give a file a trusted. attribute")
	}
	bin := testProgram(t, "c/fileops2-glibc")
	prepare := func() string {
		dir := t.TempDir()
		f := filepath.Join(dir, "f")
		if err := os.WriteFile(f, []byte("f\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, x := range [][2]string{{"trusted.icount", "1"}, {"user.a", "2"}} {
			if err := unix.Setxattr(f, x[0], []byte(x[1]), 0); err != nil {
				t.Skipf("setting %s: %v", x[0], err)
			}
		}
		return dir
	}
	want, err := exec.Command(bin, prepare(), "trusted").Output()
	if err != nil || !strings.Contains(string(want), "getxattr trusted.icount: ENODATA\n") {
		t.Fatalf("natively: %v, output:\n%s", err, want)
	}
	r := runIcount(t, nil, nil, bin, prepare(), "trusted")
	if r.status != 0 || r.stdout != string(want) {
		t.Fatalf("under icount: exit %d, output:\n%s\nwant:\n%s\nstderr:\n%s", r.status, r.stdout, want, r.stderr)
	}
}
