package main

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icount-dev/icount/internal/browser"
	"github.com/icount-dev/icount/report"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// commentWidth is the width in pixels of a pull-request comment's body on
// GitHub's page at a 1280-pixel window (a conversation column less its
// avatar and margins).
const commentWidth = 760

// renderComment renders markdown as GitHub does a comment (GitHub
// Flavored Markdown: tables, strikethrough, autolinks; raw HTML kept, as
// GitHub keeps <details>) into a page of commentWidth pixels, opens it in
// headless Chromium and checks that it holds tables tables, none wider
// than the comment, and a link to the full report.
func renderComment(t *testing.T, name, md string, tables int) {
	t.Helper()
	var body bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := gm.Convert([]byte(md), &body); err != nil {
		t.Fatalf("%s: rendering the markdown: %v", name, err)
	}
	page := fmt.Sprintf(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>%s</title><style>
body { margin: 16px; font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
#comment { width: %dpx; border: 1px solid #d0d7de; border-radius: 6px; padding: 16px; overflow-x: auto; }
table { border-collapse: collapse; display: block; max-width: 100%%; overflow: auto; }
th, td { border: 1px solid #d0d7de; padding: 6px 13px; }
code { font-size: 85%%; background: #eff1f3; padding: .2em .4em; border-radius: 6px; }
</style></head><body><div id="comment">%s</div>
<script>document.documentElement.dataset.ready = 'true'</script></body></html>`, html.EscapeString(name), commentWidth, body.String())
	file := filepath.Join(t.TempDir(), "comment.html")
	write(t, file, page)
	p := openPage(t, browser.ForTest(t), file)
	screenshot(t, p, "comment-"+strings.ReplaceAll(name, " ", "-"))
	got := eval[int](t, p, `document.querySelectorAll('#comment table').length`)
	if got != tables {
		t.Errorf("%s: the rendered comment has %d tables, want %d", name, got, tables)
	}
	wide := eval[[]string](t, p, `[...document.querySelectorAll('#comment table')].filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.rows[0].innerText + ': ' + e.scrollWidth + ' px')`)
	if len(wide) > 0 {
		t.Errorf("%s: tables wider than a comment of %d px scroll sideways: %v", name, commentWidth, wide)
	}
	if eval[int](t, p, `document.querySelectorAll('#comment a[href^="https://"]').length`) < 1 {
		t.Errorf("%s: the rendered comment has no link to the full report", name)
	}
}

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
// and the JSON report at once. Each comment is rendered as GitHub renders
// markdown and opened in headless Chromium: its tables do not scroll
// sideways in a comment's width.
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
		_, _, stderr := icountIn(t, dir, "diff", "--report-dir", out, "--full-report", "the artifact icount-report of https://github.com/o/r/actions/runs/1", c.base, c.head)
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
		tables := 2 // the totals, the functions
		if c.base == ".icount/base" {
			// the benchmarks, the functions
			if !strings.Contains(md, "| benchmark | base | head | delta |  | verdict |\n") {
				t.Errorf("%s: no table of the benchmarks:\n%s", c.name, md)
			}
		}
		t.Run(c.name+" rendered", func(t *testing.T) { renderComment(t, c.name, md, tables) })
	}
}
