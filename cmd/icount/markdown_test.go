package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icount-dev/icount/report"
)

// mdFunctionTable checks that markdown holds one table of functions of at
// most rows rows, none wider than a screen, and returns its rows.
func mdFunctionTable(t *testing.T, name, md string, rows int) []string {
	t.Helper()
	var table []string
	tables := 0
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| function |") || strings.HasPrefix(l, "| benchmark | function |") {
			tables++
		}
		if tables > 0 && strings.HasPrefix(l, "| `") && len(table) >= 0 {
			table = append(table, l)
		}
		if n := len([]rune(l)); n > 300 && strings.HasPrefix(l, "|") {
			t.Errorf("%s: a table row of %d characters: %s", name, n, l)
		}
	}
	if tables != 1 || len(table) == 0 || len(table) > rows {
		t.Errorf("%s: %d function tables, %d rows; want one of at most %d rows:\n%s", name, tables, len(table), rows, md)
	}
	return table
}

// TestMarkdownFitsAComment: the two cases, a Python program's
// diff and a two-benchmark suite, whose complete markdown listing
// (--full) passes GitHub's 65,536 characters, give a comment under
// 60,000 characters with one table of the 20 largest changes and a line
// counting the rest; --report-dir writes the comment, the full markdown
// and the JSON report at once.
func TestMarkdownFitsAComment(t *testing.T) {
	const python = "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("%s is missing: install python3 (make deps does)", python)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "suite.toml"), `
[[bench]]
name = "sum"
binary = "/usr/bin/python3"
args = ["sum.py"]

[[bench]]
name = "sort"
binary = "/usr/bin/python3"
args = ["sort.py"]
`)
	for _, side := range []struct{ name, sum, sort string }{
		{"base", "print(sum(i * i for i in range(20000)))", "print(sorted(str(i) for i in range(3000))[:3])"},
		{"head", "import json\nprint(json.dumps(sum(i * i for i in range(20000))))", "import re\nprint(sorted(re.sub('1', 'x', str(i)) for i in range(3000))[:3])"},
	} {
		write(t, filepath.Join(dir, "sum.py"), side.sum+"\n")
		write(t, filepath.Join(dir, "sort.py"), side.sort+"\n")
		if status, _, stderr := icountIn(t, dir, "run", "-q", "--suite", "suite.toml", "--save", side.name); status != 0 {
			t.Fatalf("the %s suite: status %d\n%s", side.name, status, stderr)
		}
	}
	for _, c := range []struct {
		name, base, head string
	}{
		{"a Python program", ".icount/base/sum.json", ".icount/head/sum.json"},
		{"a two-benchmark suite", ".icount/base", ".icount/head"},
	} {
		out := t.TempDir()
		_, _, stderr := icountIn(t, dir, "diff", "--report-dir", out, "--full-report", "the artifact", c.base, c.head)
		read := func(name string) string {
			b, err := os.ReadFile(filepath.Join(out, name))
			if err != nil {
				t.Fatalf("%s: --report-dir: %v\n%s", c.name, err, stderr)
			}
			return string(b)
		}
		md, full := read("report.md"), read("report-full.md")
		if !strings.HasPrefix(read("report.json"), "{\n  \"schema\": \"icount-diff/") {
			t.Errorf("%s: report.json is not the JSON report", c.name)
		}
		t.Logf("%s: %d characters, %d with --full", c.name, len([]rune(md)), len([]rune(full)))
		if len(full) <= report.MarkdownLimit {
			t.Errorf("%s: --full gives %d bytes: not the case of the issue, where the complete listing passed the limit", c.name, len(full))
		}
		if len(md) >= report.MarkdownLimit || md == "" {
			t.Errorf("%s: %d bytes of markdown, want under %d\n%s", c.name, len(md), report.MarkdownLimit, stderr)
		}
		mdFunctionTable(t, c.name, md, report.DefaultTop)
		if !strings.Contains(md, " more functions changed, ") || !strings.Contains(md, "the full report is at the artifact") {
			t.Errorf("%s: no line counting the functions left out and naming the full report:\n%s", c.name, md)
		}
		if c.base == ".icount/base" && !strings.Contains(md, "| benchmark | base | head | delta |  | verdict |\n") {
			t.Errorf("%s: no table of the benchmarks:\n%s", c.name, md)
		}
	}
}
