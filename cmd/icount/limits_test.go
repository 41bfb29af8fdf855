package main

import (
	"strconv"
	"strings"
	"testing"
)

// TestMaxInstructions stops programs after exactly N instructions, whether
// N ends a block or falls inside one, with and without the call tree.
func TestMaxInstructions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		prog string
		n    uint64
	}{
		{"amd64/loop", 1}, {"amd64/loop", 100}, {"amd64/loop", 1001}, {"amd64/loop", 3005},
		{"amd64/callgraph", 7}, {"amd64/callgraph", 49}, {"c/crunch-musl", 123457},
	} {
		for _, flags := range [][]string{nil, {"--count-only"}} {
			args := append([]string{"--max-instructions", strconv.FormatUint(c.n, 10)}, flags...)
			r := runIcount(t, nil, args, testProgram(t, c.prog))
			if r.profile == nil || r.profile.Totals.Instructions != c.n || r.status != exitInstructionLimit || r.profile.Exit.Complete {
				t.Errorf("%s %v: status %d, profile %+v\n%s", c.prog, args, r.status, r.profile, r.stderr)
				continue
			}
			if !strings.Contains(r.stderr, "stopped after exactly "+strconv.FormatUint(c.n, 10)+" instructions") {
				t.Errorf("%s %v: stderr %s", c.prog, args, r.stderr)
			}
		}
	}
	// A limit the program does not reach changes nothing.
	r := runIcount(t, nil, []string{"--max-instructions", "3006"}, testProgram(t, "amd64/loop"))
	if r.status != 20 || r.profile.Totals.Instructions != 3006 {
		t.Errorf("limit not reached: status %d, %d instructions", r.status, r.profile.Totals.Instructions)
	}
}

// TestParseSize: --max-memory's sizes, in binary units, and what it refuses.
func TestParseSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]uint64{"4096": 4096, "64M": 64 << 20, "64MiB": 64 << 20, "2g": 2 << 30, "1T": 1 << 40, "3KB": 3 << 10, "7b": 7} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "M", "-1M", "1.5G", "12X", "99999999999T"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
}
