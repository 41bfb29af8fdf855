package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// TestCallgrindParts: of a run of two programs, --callgrind FILE holds
// both parts, and FILE.1 and FILE.2 each one alone.
func TestCallgrindParts(t *testing.T) {
	fns := func(name string, n uint64) []profile.FunctionCount {
		return []profile.FunctionCount{{Name: name, Module: name, Self: n}}
	}
	p := &profile.Profile{Schema: profile.Schema, Meta: profile.Meta{
		Settings: profile.Settings{IcountVersion: "t", Args: []string{"sh", "-c", "true"}},
		Inputs:   profile.Inputs{Stdio: []string{"pipe", "pipe", "pipe"}},
		Record:   profile.Record{}},
		Totals: profile.Totals{Instructions: 30}, Functions: append(fns("sh", 20), fns("true", 10)...),
		Processes: []profile.Process{
			{PID: 1000, Parent: -1, Argv: []string{"sh", "-c", "true"}, Totals: profile.Totals{Instructions: 20}, Functions: fns("sh", 20)},
			{PID: 1000, Parent: 0, Exec: true, Argv: []string{"true"}, Totals: profile.Totals{Instructions: 10}, Functions: fns("true", 10)},
		}}
	file := filepath.Join(t.TempDir(), "cg.out")
	if err := (&outputFlags{callgrind: file}).write(p); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{
		file:        {"part: 1\n", "summary: 20\n", "totals: 20\n", "part: 2\n", "summary: 10\n", "totals: 10\n"},
		file + ".1": {"pid: 1000\ncmd: sh -c true\npart: 1\n", "summary: 20\n", "totals: 20\n"},
		file + ".2": {"pid: 1000\ncmd: true\npart: 2\n", "summary: 10\n", "totals: 10\n"},
	} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s lacks %q:\n%s", name, w, b)
			}
		}
		if name != file && strings.Count(string(b), "part: ") != 1 {
			t.Errorf("%s has more than one part:\n%s", name, b)
		}
	}
}
