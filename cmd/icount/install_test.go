package main

// The ways icount is installed (issue 19): go install through pkg-config,
// the release archive of make dist, and make demo's output.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// makeIn runs make in the repository with args and returns its output.
func makeIn(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("make", append([]string{"--no-print-directory", "-C", repoRoot}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// withPkgConfig is the environment with pkg-config looking in .deps
// first, as the Makefile has it.
func withPkgConfig() []string {
	path := filepath.Join(repoRoot, ".deps", "pkgconfig")
	if old := os.Getenv("PKG_CONFIG_PATH"); old != "" {
		path += ":" + old
	}
	return append(os.Environ(), "PKG_CONFIG_PATH="+path)
}

// TestGoInstall: go install builds icount through pkg-config (here the
// unicorn.pc make deps writes into .deps); without Unicorn the build
// stops at pkg-config's line saying it was not found, with Unicorn 2.0 at
// icount's saying it needs 2.1.
func TestGoInstall(t *testing.T) {
	gobin := t.TempDir()
	cmd := exec.Command("go", "install", "./cmd/icount")
	cmd.Dir, cmd.Env = repoRoot, append(withPkgConfig(), "GOBIN="+gobin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install ./cmd/icount: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(gobin, "icount"), "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nunicorn 2.") {
		t.Errorf("the installed icount's version: %v\n%s", err, out)
	}

	// A machine without Unicorn: pkg-config finds none. (CGO_CFLAGS of
	// its own makes emu's build miss Go's cache, which would not run
	// pkg-config again.)
	empty := t.TempDir()
	cmd = exec.Command("go", "build", "-o", os.DevNull, "./emu")
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "PKG_CONFIG_PATH=", "PKG_CONFIG_LIBDIR="+empty,
		fmt.Sprintf("CGO_CFLAGS=-g -O2 -DICOUNT_TEST_NONCE=%d", os.Getpid()))
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "\nPackage unicorn was not found in the pkg-config search path.\n") {
		t.Errorf("a build without Unicorn: %v\n%s", err, out)
	}

	// A machine with Unicorn 2.0 (Debian bookworm's): its headers say so,
	// and hotpath.h refuses it.
	old := filepath.Join(empty, "include", "unicorn")
	os.MkdirAll(old, 0o755)
	headers, _ := filepath.Glob(filepath.Join(repoRoot, ".deps", "unicorn", "include", "unicorn", "*.h"))
	for _, h := range headers {
		b, _ := os.ReadFile(h)
		b = bytes.Replace(b, []byte("#define UC_API_MINOR 1\n"), []byte("#define UC_API_MINOR 0\n"), 1)
		write(t, filepath.Join(old, filepath.Base(h)), string(b))
	}
	write(t, filepath.Join(empty, "unicorn.pc"), "Name: unicorn\nDescription: Unicorn 2.0\nVersion: 2.0.1\nLibs: -lunicorn\nCflags: -I"+filepath.Join(empty, "include")+"\n")
	cmd = exec.Command("go", "build", "-o", os.DevNull, "./emu")
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "PKG_CONFIG_PATH=", "PKG_CONFIG_LIBDIR="+empty,
		fmt.Sprintf("CGO_CFLAGS=-g -O2 -DICOUNT_TEST_NONCE=%d", os.Getpid()+1))
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "icount needs Unicorn 2.1 or newer") {
		t.Errorf("a build with Unicorn 2.0: %v\n%s", err, out)
	}
}

// TestDist: make dist writes the release archive; its icount is static
// (file says so, ldd finds nothing to load), has the SHA-256 the archive
// gives, and counts a static and a dynamic program as bin/icount does,
// run with an empty environment from a directory outside the checkout.
// Before it, a static icount is built against a copy of Unicorn that is
// then deleted, as another checkout sharing Go's build cache would: the
// release build must not link with that copy's path.
func TestDist(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the static icount")
	}
	other := t.TempDir()
	if out, err := exec.Command("cp", "-rL", filepath.Join(repoRoot, ".deps", "unicorn"), filepath.Join(repoRoot, ".deps", "pkgconfig"), other).CombinedOutput(); err != nil {
		t.Fatalf("copying Unicorn: %v\n%s", err, out)
	}
	if out, err := makeIn(t, "static", "PKG_CONFIG_PATH="+filepath.Join(other, "pkgconfig"), "STATIC="+filepath.Join(other, "icount-static")); err != nil {
		t.Fatalf("make static with Unicorn elsewhere: %v\n%s", err, out)
	}
	if err := os.RemoveAll(other); err != nil {
		t.Fatal(err)
	}
	dist := t.TempDir()
	if out, err := makeIn(t, "dist", "DIST="+dist); err != nil {
		t.Fatalf("make dist: %v\n%s", err, out)
	}
	archives, _ := filepath.Glob(filepath.Join(dist, "icount-*-linux-amd64.tar.gz"))
	if len(archives) != 1 {
		t.Fatalf("make dist wrote %q", archives)
	}
	name := strings.TrimSuffix(filepath.Base(archives[0]), ".tar.gz")
	run := func(dir, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run(dist, "sha256sum", "--check", name+".tar.gz.sha256")
	out := t.TempDir() // outside the checkout
	run(out, "tar", "-xzf", archives[0])
	top := filepath.Join(out, name)
	run(top, "sha256sum", "--check", "SHA256SUMS")
	for _, f := range []string{"icount", "README.md", "licenses/unicorn.txt", "licenses/glibc.txt", "licenses/go.txt", "licenses/github.com_spf13_cobra.txt"} {
		if _, err := os.Stat(filepath.Join(top, f)); err != nil {
			t.Errorf("the archive has no %s", f)
		}
	}
	icount := filepath.Join(top, "icount")
	if f := run(out, "file", "-b", icount); !strings.Contains(f, "statically linked") {
		t.Errorf("file: %s", f)
	}
	if o, err := exec.Command("ldd", icount).CombinedOutput(); err == nil || !strings.Contains(string(o), "not a dynamic executable") {
		t.Errorf("ldd: %v\n%s", err, o)
	}

	for _, prog := range []string{testProgram(t, "c/crunch-musl"), testProgram(t, "dynamic/crunch")} {
		counts := map[string]uint64{}
		for _, bin := range []string{icount, icountBin} {
			profile := filepath.Join(out, "p.json")
			cmd := exec.Command("env", "-i", bin, "run", "-q", "--fixed-clock", "--json", profile, prog)
			cmd.Dir = out
			if o, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("env -i %s run %s: %v\n%s", bin, prog, err, o)
			}
			var p struct{ Totals struct{ Instructions uint64 } }
			b, _ := os.ReadFile(profile)
			if err := json.Unmarshal(b, &p); err != nil || p.Totals.Instructions == 0 {
				t.Fatalf("%s: %v", profile, err)
			}
			counts[bin] = p.Totals.Instructions
		}
		if counts[icount] != counts[icountBin] {
			t.Errorf("%s: the archive's icount counts %d, the test's %d", prog, counts[icount], counts[icountBin])
		}
	}
}

// TestMakeDemo: make demo shows what the user should read: one line while
// it builds, then the demo's command, the program's output and icount's
// summary; none of the build's commands.
func TestMakeDemo(t *testing.T) {
	out, err := makeIn(t, "demo")
	if err != nil {
		t.Fatalf("make demo: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "building icount and testdata/build/c/crunch-musl") || lines[1] != "" ||
		lines[2] != "$ bin/icount run testdata/build/c/crunch-musl < /dev/null" {
		t.Errorf("make demo begins:\n%s", strings.Join(lines[:min(len(lines), 3)], "\n"))
	}
	for _, l := range lines {
		for _, noise := range []string{"go build", "gcc ", "musl-gcc", "scripts/deps.sh", "make[", "Entering directory"} {
			if strings.Contains(l, noise) {
				t.Errorf("make demo shows the build: %q", l)
			}
		}
	}
	if !strings.Contains(out, "\nicount: ") || !strings.Contains(out, " instructions (x86_64, exit 0)\n") || len(lines) > 40 {
		t.Errorf("make demo, %d lines:\n%s", len(lines), out)
	}
}

// TestMakeInstall: make install puts icount in $(DESTDIR)$(PREFIX)/bin.
func TestMakeInstall(t *testing.T) {
	dest := t.TempDir()
	if out, err := makeIn(t, "install", "DESTDIR="+dest, "PREFIX=/opt/icount"); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	bin := filepath.Join(dest, "opt", "icount", "bin", "icount")
	if out, err := exec.Command(bin, "version").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "icount ") {
		t.Errorf("%s version: %v\n%s", bin, err, out)
	}
}
