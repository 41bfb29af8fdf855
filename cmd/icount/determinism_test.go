package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// TestDeterminism runs the same program twice, and a copy of it from a
// longer path, and wants identical counts, down to every hot block.
func TestDeterminism(t *testing.T) {
	t.Parallel()
	prog := testProgram(t, "c/textstat-glibc")
	stdin, err := os.ReadFile(filepath.Join(repoRoot, "testdata", "c", "textstat.c"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	far := filepath.Join(t.TempDir(), "a", "much", "longer", "path", "than", "before")
	if err := os.MkdirAll(far, 0o755); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(far, filepath.Base(prog))
	if err := os.WriteFile(copyPath, data, 0o755); err != nil {
		t.Fatal(err)
	}
	var runs []result
	for _, p := range []string{prog, prog, copyPath} {
		r := runIcount(t, stdin, nil, p)
		if r.profile == nil || r.status != 0 {
			t.Fatalf("%s: status %d\n%s", p, r.status, r.stderr)
		}
		runs = append(runs, r)
	}
	first := runs[0].profile
	for i, r := range runs[1:] {
		p := r.profile
		if p.Totals != first.Totals || r.stdout != runs[0].stdout {
			t.Errorf("run %d: totals %+v, first %+v", i+2, p.Totals, first.Totals)
		}
		for j := range first.HotBlocks {
			if p.HotBlocks[j] != first.HotBlocks[j] {
				t.Errorf("run %d: hot block %d differs: %+v vs %+v", i+2, j, p.HotBlocks[j], first.HotBlocks[j])
			}
		}
	}
}

// TestProfileDeterministic runs a pipeline of dynamically linked programs
// twice with per-line costs: the two Profiles are equal in everything but
// their metadata (the run's times), entry for entry and in the same order,
// so that a diff of two Profiles of one run shows nothing. Functions of
// one name in several modules (the PLT stubs of every library) tie on
// their costs: their order must not follow a map's.
func TestProfileDeterministic(t *testing.T) {
	t.Parallel()
	var profiles [2]profile.Profile
	for i := range profiles {
		r := runIcount(t, nil, []string{"--fixed-clock", "--lines"}, "/bin/sh", "-c", "ls / | wc -l")
		if r.profile == nil || r.status != 0 {
			t.Fatalf("status %d\n%s", r.status, r.stderr)
		}
		profiles[i] = *r.profile
		profiles[i].Meta = profile.Meta{}
	}
	if !reflect.DeepEqual(profiles[0], profiles[1]) {
		a, _ := json.MarshalIndent(profiles[0], "", " ")
		b, _ := json.MarshalIndent(profiles[1], "", " ")
		t.Errorf("two runs' Profiles differ:\n%s", clip(firstDiff(string(a), string(b))))
	}
}
