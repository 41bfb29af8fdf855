package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChecksBeforeRun: an output icount could not write, a missing or
// malformed baseline or gate file, and a flag no run could meet each
// fail with status 2 and one line naming the problem before the guest
// runs: the guest (busybox touch) never makes its file.
func TestChecksBeforeRun(t *testing.T) {
	t.Parallel()
	bb := busybox(t, "amd64")
	dir := t.TempDir()
	write(t, filepath.Join(dir, "bad.toml"), "fail_above = [\n")
	write(t, filepath.Join(dir, "icount.toml"), "fail_above = \"1%\"\n")
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	// A place no one may create files in, even root: sysfs.
	unwritable := "/sys/kernel/icount-test.json"
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		unwritable = filepath.Join(ro, "p.json")
	}
	for _, c := range []struct {
		name  string
		setup func(dir string) // in a fresh copy of dir
		flags []string
		want  string
	}{
		{"json in a missing directory", nil, []string{"--json", "/nonexistent/x.json"},
			"--json /nonexistent/x.json: cannot write it: create a file in /nonexistent: no such file or directory"},
		{"json in a read-only directory", nil, []string{"--json", unwritable}, "--json " + unwritable + ": cannot write it: create a file in "},
		{"json is a directory", nil, []string{"--json", "sub"}, "--json sub: cannot write it: write sub: is a directory"},
		{"json under a file", nil, []string{"--json", "bad.toml/p.json"}, "--json bad.toml/p.json: cannot write it: stat bad.toml/p.json: not a directory"},
		{"pprof", nil, []string{"--pprof", "/nonexistent/p.pb.gz"}, "--pprof /nonexistent/p.pb.gz: cannot write it"},
		{"callgrind", nil, []string{"--callgrind", "/nonexistent/cg.out"}, "--callgrind /nonexistent/cg.out: cannot write it"},
		{"bench-out", nil, []string{"--bench", "B", "--bench-out", "/nonexistent/b.txt"}, "--bench-out /nonexistent/b.txt: cannot write it"},
		{"two outputs, one file", nil, []string{"--json", "p.json", "--pprof", "./p.json"}, "--pprof ./p.json: --json names the same file"},
		{"save where .icount is a file", func(d string) { write(t, filepath.Join(d, ".icount"), "") }, []string{"--save", "main"},
			"--save main: .icount is not a directory (--save keeps Profiles in .icount/)"},
		{"missing baseline", nil, []string{"--baseline", "main"}, `no baseline "main": .icount/main.json does not exist (keep one with --save main)`},
		{"malformed baseline", func(d string) {
			os.Mkdir(filepath.Join(d, ".icount"), 0o755)
			write(t, filepath.Join(d, ".icount", "main.json"), "{}")
		}, []string{"--baseline", "main"},
			`--baseline main: .icount/main.json: not an icount profile: it has no schema`},
		{"bad config", nil, []string{"--config", "bad.toml"}, "bad.toml"},
		{"missing config", nil, []string{"--config", "none.toml"}, "open none.toml: no such file or directory"},
		{"negative timeout", nil, []string{"--timeout", "-1s"}, "--timeout -1s: want a positive duration (0 for none)"},
		{"quantum zero", nil, []string{"--quantum", "0"}, "--quantum 0: the smallest is"},
		{"negative quantum", nil, []string{"--quantum", "-1"}, `invalid argument "-1" for "--quantum" flag`},
		{"negative max-memory", nil, []string{"--max-memory", "-1G"}, `invalid argument "-1G" for "--max-memory" flag: want a positive number of bytes`},
		{"negative top", nil, []string{"--top", "-1"}, "--top -1: want 0 or more functions"},
		{"a clock that would overflow", nil, []string{"--clock-step", "3000h"},
			"--clock-start 0, --clock-step 3000h0m0s: the clock would pass the largest time 64-bit nanoseconds hold (2262-04-11) within 1048576 reads"},
		{"a clock table that would overflow", func(d string) { write(t, filepath.Join(d, "t.txt"), "9223372036854775000\n9223372036854775001\n") },
			[]string{"--clock-table", "t.txt", "--clock-step", "1s"}, "--clock-table t.txt: the clock would pass the largest time"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d := t.TempDir()
			for _, f := range []string{"bad.toml", "icount.toml"} {
				b, _ := os.ReadFile(filepath.Join(dir, f))
				write(t, filepath.Join(d, f), string(b))
			}
			os.Mkdir(filepath.Join(d, "sub"), 0o755)
			if c.setup != nil {
				c.setup(d)
			}
			args := append(append([]string{"run"}, c.flags...), bb, "touch", "ran")
			status, stdout, stderr := icountIn(t, d, args...)
			if status != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "icount: "+c.want) {
				t.Errorf("status %d, stdout %q, stderr %q; want 2 and one line starting %q", status, stdout, stderr, "icount: "+c.want)
			}
			if _, err := os.Stat(filepath.Join(d, "ran")); err == nil {
				t.Errorf("the guest ran")
			}
		})
	}
	// The same flags that pass: the guest runs and makes its file.
	status, _, stderr := icountIn(t, dir, "run", "-q", "--json", "p.json", "--max-memory", "64M", bb, "touch", "ran")
	if _, err := os.Stat(filepath.Join(dir, "ran")); status != 0 || err != nil {
		t.Errorf("a good run: status %d, %v\n%s", status, err, stderr)
	}
}
