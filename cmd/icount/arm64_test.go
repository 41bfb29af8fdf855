package main

// Integration tests for arm64 guests: hand-written aarch64 programs with
// exact counts, glibc-static C programs and Debian's busybox-static built
// for arm64, run under icount on this amd64 host and compared with the
// same programs built for amd64, run natively.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestExactCountsARM64(t *testing.T) {
	t.Parallel()
	checkExactCounts(t, "arm64")
}

// TestARM64Profile checks the metadata and the guest's output of an arm64
// run.
func TestARM64Profile(t *testing.T) {
	t.Parallel()
	r := runIcount(t, nil, nil, testProgram(t, "arm64/write"))
	if r.stdout != "hello, icount\n" || r.status != 42 {
		t.Errorf("stdout %q, status %d", r.stdout, r.status)
	}
	if r.profile == nil {
		t.Fatalf("no profile; stderr:\n%s", r.stderr)
	}
	if m := r.profile.Meta; m.Arch != "aarch64" || m.CPUModel != "cortex-a72" {
		t.Errorf("arch %q, CPU model %q; want aarch64, cortex-a72", m.Arch, m.CPUModel)
	}
	if n := r.profile.Syscalls["write"]; n != 1 {
		t.Errorf("write made %d times, want 1 (syscalls %v)", n, r.profile.Syscalls)
	}
}

// TestARM64Startup checks what an arm64 program sees of its start-up: the
// arm64 auxiliary vector (AT_HWCAP with only what the emulated CPU runs,
// AT_HWCAP2, AT_PLATFORM), a 16-byte aligned initial stack pointer, TLS in
// TPIDR_EL0 and the fixed identity.
func TestARM64Startup(t *testing.T) {
	t.Parallel()
	r := runIcount(t, nil, nil, testProgram(t, "arm64/c/auxv-glibc"))
	want := "argc=1 sp%16=0\nhwcap=0x8fb hwcap2=0 platform=aarch64\npagesz=4096 random=yes tls=yes\npid=1000 uid=1000 gid=1000\n"
	if r.status != 0 || r.stdout != want {
		t.Errorf("status %d, stdout:\n%s\nwant:\n%s\nstderr:\n%s", r.status, r.stdout, want, r.stderr)
	}
}

// TestARM64Messages checks the one message that ends a run on an
// instruction the emulated CPU lacks, on a system call icount does not
// emulate, and on each kind of fault and CPU exception: each names the
// instruction or call, its address and its function.
func TestARM64Messages(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		prog   string
		status int
		want   string
	}{
		{"arm64/lse", 132, "icount: SIGILL: `ldaddal` (ARMv8.1 LSE atomics) (bytes 23 00 e2 f8) at 0x400158 is not supported by the emulated CPU; build for -march=armv8-a (the emulated CPU is a cortex-a72: ARMv8.0-A with crypto and CRC), in add_atomic (lse)\nicount:   called from _start+0xc (lse)\n"},
		{"arm64/unsupported", exitUnsupported, "icount: system call openat2 (437) at pc 0x40012c uses openat2 of /proc/self/exe with resolve flags 4, whose lookup reaches /proc (icount gives it other host files, or answers it itself), which icount does not emulate (see 'icount syscalls'), in _start+0x1c (unsupported)\n"},
		{"arm64/fault", 139, "icount: SIGSEGV: access to unmapped address 0x412000 by `ldr x3, [x1,#8]!` at 0x400164, in _start+0x20 (fault)\n"},
		{"arm64/brk", 133, "icount: SIGTRAP: breakpoint by `brk #0x3e8` at 0x400114, in _start+0x8 (brk)\n"},
		{"arm64/align", 135, "icount: SIGBUS: alignment fault by `ldxr x3, [x1]` at 0x40015c, in load+0x4 (align)\nicount:   called from _start+0xc (align)\n"},
		{"arm64/smc", 132, "icount: SIGILL: `smc #0x0` (bytes 03 00 00 d4) at 0x400114: a user program cannot call the hypervisor or secure monitor, in _start+0x8 (smc)\n"},
	} {
		r := runIcount(t, nil, []string{"-q"}, testProgram(t, c.prog))
		if r.status != c.status || r.stderr != c.want {
			t.Errorf("%s: status %d, stderr:\n%s\nwant %d and\n%s", c.prog, r.status, r.stderr, c.status, c.want)
		}
	}
}

// TestARM64CProgramsMatchAMD64 runs the glibc-static C programs built for
// arm64 under icount and the same programs built for amd64 natively, on the
// same stdin, arguments and input file, and compares their stdout, exit
// status and output file byte for byte.
func TestARM64CProgramsMatchAMD64(t *testing.T) {
	t.Parallel()
	for _, p := range cPrograms {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			native := testProgram(t, filepath.Join("c", p.name+"-glibc"))
			guest := testProgram(t, filepath.Join("arm64", "c", p.name+"-glibc"))
			r := matchNative(t, p, native, guest)
			if r.profile == nil || r.profile.Meta.Arch != "aarch64" || r.profile.Totals.Instructions == 0 {
				t.Errorf("profile %+v", r.profile)
			}
		})
	}
}

// busybox returns the path of Debian's busybox-static for arch, fetched by
// `make busybox` (make test does).
func busybox(t *testing.T, arch string) string {
	t.Helper()
	p := filepath.Join(repoRoot, ".deps", "busybox", arch, "busybox")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is missing: run `make busybox` (make test does)", p)
	}
	return p
}

// busyboxCases are the applets compared, with their arguments and stdin;
// "IN" stands for the input file, "GZ" for a gzip file of it.
var busyboxCases = []struct {
	args  []string
	stdin string
}{
	{[]string{"echo", "hello,", "arm64", "world"}, ""},
	{[]string{"cat", "IN"}, ""},
	{[]string{"sort"}, "IN"},
	{[]string{"sort", "-r", "-n", "IN"}, ""},
	{[]string{"wc", "IN"}, ""},
	{[]string{"sha256sum", "IN"}, ""},
	{[]string{"md5sum", "IN"}, ""},
	{[]string{"sha1sum"}, "IN"},
	{[]string{"gzip", "-c", "IN"}, ""},
	{[]string{"gzip", "-dc", "GZ"}, ""},
	{[]string{"expr", "7", "*", "6", "+", "100"}, ""},
	{[]string{"seq", "3", "7", "40"}, ""},
	{[]string{"tr", "a-z", "A-Z"}, "IN"},
	{[]string{"od", "-A", "x", "-t", "x1", "IN"}, ""},
	{[]string{"uniq", "-c"}, "IN"},
	{[]string{"head", "-n", "5", "IN"}, ""},
	{[]string{"tail", "-c", "100", "IN"}, ""},
	{[]string{"cut", "-c", "1-10", "IN"}, ""},
	{[]string{"base64", "IN"}, ""},
	{[]string{"printf", "%05d|%-6s|%x\\n", "42", "ab", "255"}, ""},
	{[]string{"awk", "{ n += length($0) } END { print NR, n }", "IN"}, ""},
	{[]string{"sed", "-n", "s/[aeiou]/#/gp", "IN"}, ""},
	{[]string{"grep", "-c", "the", "IN"}, ""},
	{[]string{"ls", "DIR"}, ""},
}

// TestARM64Busybox runs applets of Debian's busybox-static for arm64 under
// icount and of the amd64 busybox-static natively, on the same inputs, and
// wants byte-identical output and the same exit status from each.
func TestARM64Busybox(t *testing.T) {
	t.Parallel()
	native, guest := busybox(t, "amd64"), busybox(t, "arm64")
	dir := t.TempDir()
	in := filepath.Join(repoRoot, "testdata", "c", "textstat.c")
	gz := filepath.Join(dir, "in.gz")
	data, err := exec.Command(native, "gzip", "-c", in).Output()
	if err != nil || os.WriteFile(gz, data, 0o644) != nil {
		t.Fatalf("making the gzip input: %v", err)
	}
	compared := 0
	for _, c := range busyboxCases {
		args := make([]string, len(c.args))
		for i, a := range c.args {
			args[i] = map[string]string{"IN": in, "GZ": gz, "DIR": filepath.Join(repoRoot, "testdata", "arm64")}[a]
			if args[i] == "" {
				args[i] = a
			}
		}
		var stdin []byte
		if c.stdin == "IN" {
			if stdin, err = os.ReadFile(in); err != nil {
				t.Fatal(err)
			}
		}
		name := strings.Join(c.args, " ")
		t.Run(c.args[0], func(t *testing.T) {
			t.Parallel()
			wantOut, wantStatus := runNative(t, dir, stdin, native, args...)
			r := runIcount(t, stdin, nil, guest, args...)
			if r.status != wantStatus || r.stdout != wantOut {
				t.Errorf("busybox %s: status %d, want %d (amd64 native)\nstdout:\n%.400s\nwant:\n%.400s\nicount stderr:\n%s",
					name, r.status, wantStatus, r.stdout, wantOut, r.stderr)
			}
			if wantOut == "" {
				t.Errorf("busybox %s printed nothing natively: not a useful comparison", name)
			}
			if r.profile == nil || r.profile.Meta.Arch != "aarch64" {
				t.Errorf("busybox %s: no arm64 profile", name)
			}
		})
		compared++
	}
	if compared < 10 {
		t.Errorf("compared %d applets, want at least 10", compared)
	}
}

// TestARM64Determinism runs an arm64 program repeatedly and from a second
// path, and wants identical counts down to every hot block.
func TestARM64Determinism(t *testing.T) {
	t.Parallel()
	prog := busybox(t, "arm64")
	args := []string{"sha256sum", filepath.Join(repoRoot, "testdata", "c", "crunch.c")}
	data, err := os.ReadFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "somewhere", "else", "entirely")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(other, "busybox")
	if err := os.WriteFile(copyPath, data, 0o755); err != nil {
		t.Fatal(err)
	}
	var first result
	for i, p := range []string{prog, prog, prog, copyPath, copyPath} {
		r := runIcount(t, nil, nil, p, args...)
		if r.profile == nil || r.status != 0 {
			t.Fatalf("%s: status %d\n%s", p, r.status, r.stderr)
		}
		if i == 0 {
			first = r
			continue
		}
		if r.profile.Totals != first.profile.Totals || r.stdout != first.stdout {
			t.Errorf("run %d (%s): totals %+v, first %+v", i+1, p, r.profile.Totals, first.profile.Totals)
		}
		if fmt.Sprint(r.profile.HotBlocks) != fmt.Sprint(first.profile.HotBlocks) {
			t.Errorf("run %d (%s): hot blocks differ", i+1, p)
		}
	}
}

// TestSyscallsARM64 checks that the support matrix prints the arm64 table
// under either name of the arch.
func TestSyscallsARM64(t *testing.T) {
	t.Parallel()
	for _, arch := range []string{"arm64", "aarch64"} {
		out, err := exec.Command(icountBin, "syscalls", "--arch", arch).Output()
		if err != nil {
			t.Fatalf("--arch %s: %v", arch, err)
		}
		rows := map[string]string{} // number by name
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) >= 3 {
				rows[f[1]] = f[0]
			}
		}
		for name, nr := range map[string]string{"openat": "56", "read": "63", "exit_group": "94", "mmap": "222", "clone": "220"} {
			if rows[name] != nr {
				t.Errorf("--arch %s: %s is numbered %q, want %s, in\n%s", arch, name, rows[name], nr, out)
			}
		}
		if strings.Contains(string(out), " open ") || strings.Contains(string(out), "arch_prctl") {
			t.Errorf("--arch %s lists x86-64 calls", arch)
		}
	}
	err := exec.Command(icountBin, "syscalls", "--arch", "mips").Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitUsage {
		t.Errorf("--arch mips: %v, want exit status %d", err, exitUsage)
	}
}
