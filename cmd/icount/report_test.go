package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportCommand: icount report writes the page and the speedscope
// file it is asked for, each whole, and refuses what it cannot do with
// status 2 before writing anything.
func TestReportCommand(t *testing.T) {
	prof := runProfile(t, t.TempDir(), nil, testProgram(t, "c/callgraph-musl"))
	dir := t.TempDir()
	page, ss := filepath.Join(dir, "p.html"), filepath.Join(dir, "p.speedscope.json")
	if status, _, stderr := icountIn(t, "", "report", "--html", page, "--speedscope", ss, prof); status != 0 {
		t.Fatalf("icount report: exit %d\n%s", status, stderr)
	}
	for file, start := range map[string]string{page: "<!DOCTYPE html>", ss: `{"$schema":"https://www.speedscope.app/file-format-schema.json"`} {
		b, err := os.ReadFile(file)
		if err != nil || !strings.HasPrefix(string(b), start) {
			t.Errorf("%s starts %q (%v), want %q", file, string(b[:min(len(b), 60)]), err, start)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", prof}, "say what to write"},
		{[]string{"report", "--html", filepath.Join(dir, "x.html"), "--min-share", "100", prof}, "--min-share 100"},
		{[]string{"report", "--html", filepath.Join(dir, "x.html"), "--min-share", "-1", prof}, "--min-share -1"},
		{[]string{"report", "--html", filepath.Join(dir, "x.html"), filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{"report", "--html", filepath.Join(dir, "no", "such", "dir", "x.html"), prof}, "x.html"},
		{[]string{"report", "--html", filepath.Join(dir, "x.html"), page}, "not an icount profile"},
		{[]string{"diff", "--format", "html", "--min-share", "200", prof, prof}, "--min-share 200"},
	} {
		status, stdout, stderr := icountIn(t, "", c.args...)
		if status != exitUsage || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("icount %s: exit %d, stderr %q; want %d and %q", strings.Join(c.args, " "), status, stderr, exitUsage, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.html")); err == nil {
		t.Errorf("a refused report wrote its page")
	}
}
