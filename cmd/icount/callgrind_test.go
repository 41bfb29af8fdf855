package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var irefs = regexp.MustCompile(`I\s+refs:\s+([\d,]+)`)

// TestMatchesCallgrind compares icount's total for musl-static programs,
// which do not read the clock, with valgrind's callgrind on the same binary,
// arguments, stdin and empty environment, and the same argv[0]. They agree
// within 0.01 %. The remainder, a few dozen instructions, is start-up and
// exit code whose path depends on what the two give the guest:
//   - callgrind does not count the last block, which ends in exit_group and
//     never returns (musl's _Exit: 3 instructions more under icount);
//   - valgrind's auxiliary vector is longer (AT_SYSINFO_EHDR, AT_MINSIGSTKSZ
//     and more), so musl's __init_libc loops over it more times;
//   - valgrind's initial brk is not page aligned, so musl's malloc runs its
//     alignment code in __malloc_alloc_meta.
func TestMatchesCallgrind(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Fatal("valgrind is not installed: run `make deps`")
	}
	stdinPath := filepath.Join(repoRoot, "testdata", "c", "textstat.c")
	stdin, err := os.ReadFile(stdinPath)
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(repoRoot, "testdata", "c", "crunch.c")
	for _, name := range []string{"textstat-musl", "crunch-musl"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			prog := testProgram(t, filepath.Join("c", name))
			dir := t.TempDir()
			cmd := exec.Command("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", prog, in, filepath.Join(dir, "vg.out"))
			cmd.Env = []string{}
			cmd.Stdin = strings.NewReader(string(stdin))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("valgrind: %v\n%s", err, out)
			}
			m := irefs.FindSubmatch(out)
			if m == nil {
				t.Fatalf("no I refs in valgrind's output:\n%s", out)
			}
			cg, _ := strconv.ParseUint(strings.ReplaceAll(string(m[1]), ",", ""), 10, 64)
			r := runIcount(t, stdin, []string{"--argv0", prog}, prog, in, filepath.Join(dir, "ic.out"))
			if r.profile == nil || r.status != 0 {
				t.Fatalf("icount: status %d\n%s", r.status, r.stderr)
			}
			ic := r.profile.Totals.Instructions
			diff := float64(ic) - float64(cg)
			t.Logf("icount %d, callgrind %d, difference %+.0f (%.4f %%)", ic, cg, diff, 100*diff/float64(cg))
			if d := diff / float64(cg); d > 1e-4 || d < -1e-4 {
				t.Errorf("icount %d and callgrind %d differ by more than 0.01 %%", ic, cg)
			}
		})
	}
}
