package main

import (
	"os"
	"path/filepath"
	"testing"
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
