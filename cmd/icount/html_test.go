package main

// Tests of the HTML pages (icount report --html, diff and ab --format
// html) in a real browser: headless Chromium driven over the DevTools
// protocol (internal/browser). Each page must load without an error in
// its console, hold the frames its Profile has (every path of the
// calling-context tree, with its counts, or the "other" frames that stand
// for those below --min-share), draw the ones wide enough to see, zoom on
// a click, highlight what a search matches, sort its table, and, for a
// comparison, colour exactly the frames whose counts changed.
//
// ICOUNT_SCREENSHOTS=DIR keeps a screenshot of each page in DIR.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/icount-dev/icount/internal/browser"
	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/report"
)

// pageReady is true once a page has drawn itself.
const pageReady = `document.documentElement.dataset.ready === 'true'`

// Size of the window the pages are opened in.
const pageWidth, pageHeight = 1400, 1000

// openPage opens a page and fails the test on any error in its console,
// now or when the test ends.
func openPage(t *testing.T, b *browser.Browser, file string) *browser.Page {
	t.Helper()
	p, took, err := b.Open(file, pageWidth, pageHeight, pageReady, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	st, _ := os.Stat(file)
	t.Logf("%s: %d bytes, drawn in %v", filepath.Base(file), st.Size(), took.Round(time.Millisecond))
	check := func() {
		if errs := p.Errors(); len(errs) > 0 {
			t.Errorf("%s: the page's console has errors:\n%s", file, strings.Join(errs, "\n"))
		}
	}
	check()
	t.Cleanup(check)
	return p
}

// screenshot keeps a picture of the page when ICOUNT_SCREENSHOTS says where.
func screenshot(t *testing.T, p *browser.Page, name string) {
	t.Helper()
	dir := os.Getenv("ICOUNT_SCREENSHOTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := p.Screenshot(filepath.Join(dir, name+".png")); err != nil {
		t.Errorf("screenshot of %s: %v", name, err)
	}
}

// eval runs a script in the page, failing the test if it throws.
func eval[T any](t *testing.T, p *browser.Page, expr string) T {
	t.Helper()
	v, err := browser.Eval[T](p, expr)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// pageDoc is the data a page embeds, as far as the tests read it.
type pageDoc struct {
	Kind  string     `json:"kind"`
	Views []pageView `json:"views"`
}

type pageView struct {
	Name  string `json:"name"`
	Bound struct {
		Least  uint64 `json:"least"`
		Frames int    `json:"frames"`
		Kept   int    `json:"kept"`
		Others int    `json:"others"`
		Merged int    `json:"merged"`
	} `json:"bound"`
	Tree struct {
		Parent   []int             `json:"parent"`
		Fn       []int             `json:"fn"`
		Labels   map[string]string `json:"labels"`
		Merged   map[string]int    `json:"merged"`
		Self     []uint64          `json:"self"`
		BaseSelf []int64           `json:"base_self"`
		BaseIncl []int64           `json:"base_incl"`
	} `json:"tree"`
	Roots []struct {
		Label   string `json:"label"`
		Node    int    `json:"node"`
		Process *int   `json:"process"`
	} `json:"roots"`
	Table struct {
		Rows  [][]any                   `json:"rows"`
		Lines map[string][][]any        `json:"lines"`
		Files []string                  `json:"files"`
		Srcs  map[string]map[string]any `json:"sources"`
	} `json:"table"`
}

// readPage reads the data a page embeds.
func readPage(t *testing.T, file string) pageDoc {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const open = `<script type="application/json" id="icount-data">`
	s := string(b)
	i := strings.Index(s, open)
	j := strings.Index(s[i+len(open):], "</script>")
	if i < 0 || j < 0 {
		t.Fatalf("%s: no data in the page", file)
	}
	var d pageDoc
	if err := json.Unmarshal([]byte(s[i+len(open):i+len(open)+j]), &d); err != nil {
		t.Fatalf("%s: the page's data: %v", file, err)
	}
	for _, bad := range []string{"http://", "https://"} {
		if k := strings.Index(strings.ReplaceAll(s, report.SpeedscopeSchema, ""), bad); k >= 0 {
			t.Errorf("%s: the page names an address (%q): it must load nothing", file, s[k:min(len(s), k+60)])
		}
	}
	return d
}

// name is what the page calls frame i.
func (v *pageView) name(i int) string {
	if f := v.Tree.Fn[i]; f >= 0 {
		return v.Table.Rows[f][0].(string)
	}
	if n, ok := v.Tree.Merged[strconv.Itoa(i)]; ok {
		return fmt.Sprintf("other (%s frames)", report.Group(uint64(n)))
	}
	return v.Tree.Labels[strconv.Itoa(i)]
}

// incl is each frame's inclusive count, as the page sums it.
func (v *pageView) incl() []uint64 {
	incl := slices.Clone(v.Tree.Self)
	for i := len(incl) - 1; i > 0; i-- {
		incl[v.Tree.Parent[i]] += incl[i]
	}
	return incl
}

// path names frame i from the root's child down: its process ("process
// K", its entry in the Profile's) and its functions; "" for the root.
func (v *pageView) path(i int) string {
	var parts []string
	for ; i > 0; i = v.Tree.Parent[i] {
		name := v.name(i)
		for _, r := range v.Roots {
			if r.Node == i && r.Process != nil {
				name = fmt.Sprintf("process %d", *r.Process)
			}
		}
		parts = append(parts, name)
	}
	slices.Reverse(parts)
	return strings.Join(parts, "\x00")
}

// within says whether frame i is frame a or below it.
func (v *pageView) within(i, a int) bool {
	for ; i >= 0; i = v.Tree.Parent[i] {
		if i == a {
			return true
		}
	}
	return false
}

// pathCount is a path's counts in a Profile's calling-context tree.
type pathCount struct{ self, incl uint64 }

// profilePaths gives every path of a Profile's calling-context tree (as
// pageView.path names it) its counts, the nodes of one path summed.
func profilePaths(p *profile.Profile) map[string]pathCount {
	out := map[string]pathCount{}
	path := make([]string, len(p.CallTree))
	multi := len(p.Processes) > 1
	for i, n := range p.CallTree {
		name := report.DisplayName(n.Function)
		switch {
		case n.Parent >= 0:
			path[i] = path[n.Parent] + "\x00" + name
		case multi:
			path[i] = fmt.Sprintf("process %d\x00%s", n.Process, name)
		default:
			path[i] = name
		}
		c := out[path[i]]
		c.self += n.Self
		c.incl += n.Self
		out[path[i]] = c
		for j := n.Parent; j >= 0; j = p.CallTree[j].Parent {
			c := out[path[j]]
			c.incl += n.Self
			out[path[j]] = c
		}
	}
	if multi {
		for i := range p.Processes {
			var incl uint64
			for _, n := range p.CallTree {
				if n.Parent < 0 && n.Process == i {
					incl += n.Inclusive
				}
			}
			out[fmt.Sprintf("process %d", i)] = pathCount{incl: incl}
		}
	}
	return out
}

// checkFrames checks that the page's tree is the Profile's: every frame
// the page keeps is a path of the Profile with its counts, its root holds
// every instruction, and the frames it merged into "other" frames are
// all the others.
func checkFrames(t *testing.T, v *pageView, p *profile.Profile) {
	t.Helper()
	want := profilePaths(p)
	incl := v.incl()
	if incl[0] != p.Totals.Instructions {
		t.Errorf("the root holds %d instructions, the run %d", incl[0], p.Totals.Instructions)
	}
	kept := 0
	for i := 1; i < len(v.Tree.Parent); i++ {
		if _, other := v.Tree.Merged[strconv.Itoa(i)]; other {
			continue
		}
		kept++
		c, ok := want[v.path(i)]
		switch {
		case !ok:
			t.Errorf("frame %d %q: no such path in the Profile", i, strings.ReplaceAll(v.path(i), "\x00", " > "))
		case c.self != v.Tree.Self[i] || c.incl != incl[i]:
			t.Errorf("frame %d %q: self %d, inclusive %d; the Profile's %d, %d", i, strings.ReplaceAll(v.path(i), "\x00", " > "),
				v.Tree.Self[i], incl[i], c.self, c.incl)
		}
	}
	if kept+v.Bound.Merged != len(want) {
		t.Errorf("the page keeps %d frames and merged %d; the Profile's tree has %d paths", kept, v.Bound.Merged, len(want))
	}
	if v.Bound.Frames != len(want)+1 {
		t.Errorf("the page says the tree has %d frames; the Profile's has %d paths and the root", v.Bound.Frames, len(want))
	}
}

// drawnFrame is one frame the page drew.
type drawnFrame struct {
	N      int     `json:"n"`
	Name   string  `json:"name"`
	Left   float64 `json:"left"`
	Width  float64 `json:"width"`
	Anc    bool    `json:"anc"`
	Match  bool    `json:"match"`
	Change string  `json:"change"`
	Own    bool    `json:"own"` // marked as changed in its own code
}

// drawn lists the frames drawn, and the graph's width.
func drawn(t *testing.T, p *browser.Page) ([]drawnFrame, float64) {
	t.Helper()
	type out struct {
		W      float64      `json:"w"`
		Frames []drawnFrame `json:"frames"`
	}
	o := eval[out](t, p, `(() => {
		const box = document.getElementById('flame-graph');
		return {w: Math.max(200, box.clientWidth), frames: [...box.querySelectorAll('.fr')].map(e => ({
			n: +e.dataset.n, name: e.textContent, left: parseFloat(e.style.left), width: parseFloat(e.style.width),
			anc: e.classList.contains('anc'), match: e.classList.contains('match'), change: e.dataset.change || '',
			own: e.classList.contains('selfchg')}))};
	})()`)
	return o.Frames, o.W
}

// checkDrawn checks that the page drew, below frame zoom, every frame at
// least half a pixel wide and none narrower, each with its name, and its
// ancestors above it.
func checkDrawn(t *testing.T, p *browser.Page, v *pageView, zoom int) {
	t.Helper()
	frames, w := drawn(t, p)
	incl := v.incl()
	zv := float64(incl[zoom])
	got := map[int]bool{}
	for _, f := range frames {
		if want := v.name(f.N); f.Width >= 16 && f.Name != want || f.Width < 16 && f.Name != "" {
			t.Errorf("frame %d (%.2f pixels) is drawn as %q, its name is %q (shown from 16 pixels)", f.N, f.Width, f.Name, want)
		}
		switch {
		case f.Anc:
			if f.N == zoom || !v.within(zoom, f.N) {
				t.Errorf("frame %d %q is drawn as an ancestor of %d", f.N, f.Name, zoom)
			}
		case !v.within(f.N, zoom):
			t.Errorf("frame %d %q is drawn, outside the zoomed frame %d", f.N, f.Name, zoom)
		default:
			got[f.N] = true
			if want := float64(incl[f.N]) / zv * w; f.Width < want-0.01 || f.Width > want+0.01 {
				t.Errorf("frame %d %q is %.2f pixels wide, want %.2f", f.N, f.Name, f.Width, want)
			}
		}
	}
	if !got[zoom] {
		t.Errorf("the zoomed frame %d is not drawn", zoom)
	}
	for i := range v.Tree.Parent {
		if !v.within(i, zoom) {
			continue
		}
		wide := true
		for a := i; a != zoom; a = v.Tree.Parent[a] {
			wide = wide && float64(incl[a])/zv*w >= 0.5
		}
		if width := float64(incl[i]) / zv * w; wide && width >= 0.5001 && !got[i] {
			t.Errorf("frame %d %q (%.2f pixels) is not drawn", i, v.name(i), width)
		} else if !wide && got[i] {
			t.Errorf("frame %d %q is drawn, narrower than half a pixel", i, v.name(i))
		}
	}
}

// runProfile runs icount with --json and returns the Profile's path.
func runProfile(t *testing.T, dir string, flags []string, prog string, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "profile.json")
	argv := append(append([]string{"run", "-q", "--json", out}, flags...), prog)
	status, _, stderr := icountIn(t, dir, append(argv, args...)...)
	if status != 0 {
		t.Fatalf("icount %s: exit %d\n%s", strings.Join(argv, " "), status, stderr)
	}
	return out
}

// writePage writes a run's page with icount report.
func writePage(t *testing.T, prof string, flags ...string) string {
	t.Helper()
	page := filepath.Join(t.TempDir(), "page.html")
	argv := append([]string{"report", "--html", page}, flags...)
	if status, _, stderr := icountIn(t, "", append(argv, prof)...); status != 0 {
		t.Fatalf("icount report: exit %d\n%s", status, stderr)
	}
	return page
}

// TestHTMLRunPages writes the page of a C program (saved with --lines, every
// frame kept), a dynamically linked Python, a multi-threaded program, a
// shell pipeline of several processes and a --count-only run, and uses each
// in the browser.
func TestHTMLRunPages(t *testing.T) {
	b := browser.ForTest(t)
	cases := []struct {
		name      string
		flags     []string // icount run's
		prog      string
		args      []string
		pageFlags []string // icount report's
		sourceFn  string   // a function whose source the page must show,
		source    string   // with this text
	}{
		{name: "c", flags: []string{"--lines", "--mix"}, prog: testProgram(t, "c/callgraph-musl-g"),
			pageFlags: []string{"--min-share", "0"}, sourceFn: "leaf", source: "2654435761u"},
		{name: "python", prog: "/usr/bin/python3", args: []string{"-c", "print(sum(i * i for i in range(2000)))"}},
		{name: "threads", flags: []string{"--mix"}, prog: testProgram(t, "c/pthreads-glibc")},
		{name: "pipeline", flags: []string{"--env", procPath}, prog: "/bin/sh", args: []string{"-c", "seq 1 2000 | sort -rn | head -3"}},
		{name: "count-only", flags: []string{"--count-only"}, prog: testProgram(t, "c/callgraph-musl")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			profPath := runProfile(t, t.TempDir(), c.flags, c.prog, c.args...)
			prof, err := profile.Read(profPath)
			if err != nil {
				t.Fatal(err)
			}
			file := writePage(t, profPath, c.pageFlags...)
			doc := readPage(t, file)
			v := &doc.Views[0]
			p := openPage(t, b, file)
			screenshot(t, p, "run-"+c.name)
			if prof.Meta.CountOnly {
				if txt := eval[string](t, p, `document.getElementById('flame').textContent`); !strings.Contains(txt, "--count-only") {
					t.Errorf("the page of a --count-only run does not say it has no tree: %q", txt)
				}
				checkTable(t, p, v)
				return
			}
			checkFrames(t, v, prof)
			if c.pageFlags != nil && v.Bound.Merged != 0 {
				t.Errorf("--min-share 0 merged %d frames", v.Bound.Merged)
			}
			if n := eval[string](t, p, `document.getElementById('flame-graph').dataset.frames`); n != strconv.Itoa(len(v.Tree.Parent)) {
				t.Errorf("the graph holds %s frames, the page's data %d", n, len(v.Tree.Parent))
			}
			checkDrawn(t, p, v, 0)
			checkZoom(t, p, v)
			checkSearch(t, p, v)
			checkTable(t, p, v)
			if len(prof.Processes) > 1 {
				checkRoots(t, p, v, prof)
			}
			if len(prof.Threads) > 1 {
				if txt := eval[string](t, p, `document.getElementById('runhead').textContent`); !strings.Contains(txt, fmt.Sprintf("%d threads", len(prof.Threads))) {
					t.Errorf("the header does not give the run's %d threads", len(prof.Threads))
				}
			}
			if c.source != "" {
				checkSource(t, p, v, c.sourceFn, c.source)
			}
			if mix := eval[int](t, p, `document.querySelectorAll('#mix tr').length`); prof.Mix != nil && mix != 8 {
				t.Errorf("the mix chart has %d rows, want 8", mix)
			}
			if objs := eval[int](t, p, `document.querySelectorAll('#objects tr').length`); objs != len(report.Objects(prof)) {
				t.Errorf("the objects chart has %d rows, the Profile %d objects", objs, len(report.Objects(prof)))
			}
			checkSelfDiff(t, b, profPath, c.name)
		})
	}
}

// checkSelfDiff writes the diff page of a run against itself: it loads
// without an error, its tree is the run's, and no frame is coloured.
func checkSelfDiff(t *testing.T, b *browser.Browser, prof, name string) {
	t.Helper()
	page := filepath.Join(t.TempDir(), "self.html")
	status, _, stderr := icountIn(t, "", "diff", "--format", "html", "--allow-no-verdict", "-o", page, prof, prof)
	if status != 0 {
		t.Fatalf("icount diff --format html of a run with itself: exit %d\n%s", status, stderr)
	}
	doc := readPage(t, page)
	v := &doc.Views[0]
	p := openPage(t, b, page)
	screenshot(t, p, "self-diff-"+name)
	frames, _ := drawn(t, p)
	for _, f := range frames {
		if f.Change != "same" || f.Own {
			t.Errorf("frame %d %q of a run against itself is drawn %q (own code changed: %v)", f.N, v.name(f.N), f.Change, f.Own)
		}
	}
	for i := range v.Tree.Parent {
		if v.Tree.BaseIncl[i] != int64(v.incl()[i]) {
			t.Errorf("frame %d %q: base inclusive %d, head %d", i, v.name(i), v.Tree.BaseIncl[i], v.incl()[i])
			break
		}
	}
}

// checkZoom clicks a frame and checks that the graph zooms on it.
func checkZoom(t *testing.T, p *browser.Page, v *pageView) {
	t.Helper()
	frames, w := drawn(t, p)
	incl := v.incl()
	z := -1
	for _, f := range frames {
		kids := 0
		for i, par := range v.Tree.Parent {
			if par == f.N && v.Tree.Fn[i] >= 0 {
				kids++
			}
		}
		if f.N > 0 && kids > 0 && f.Width > 30 && f.Width < 0.9*w && (z < 0 || incl[f.N] > incl[z]) {
			z = f.N
		}
	}
	for _, f := range frames { // a tree of one chain: the deepest frame with children
		if z < 0 || f.Width > 30 && v.Tree.Parent[f.N] == z && slices.Contains(v.Tree.Parent, f.N) {
			z = f.N
		}
	}
	if z < 0 {
		t.Fatal("no frame to zoom on")
	}
	if err := p.Click(fmt.Sprintf(`#flame-graph .fr[data-n="%d"]`, z)); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(fmt.Sprintf(`document.getElementById('flame-graph').dataset.zoom === '%d'`, z), 10*time.Second); err != nil {
		t.Fatalf("a click on frame %d %q did not zoom on it: %v", z, v.name(z), err)
	}
	checkDrawn(t, p, v, z)
	after, _ := drawn(t, p)
	for _, f := range after {
		if f.N == z && (f.Left != 0 || f.Width < w-0.01) {
			t.Errorf("the zoomed frame is at %.2f, %.2f pixels wide; want 0 and %.0f", f.Left, f.Width, w)
		}
	}
	if crumbs := eval[string](t, p, `document.getElementById('crumbs').textContent`); !strings.HasSuffix(crumbs, v.name(z)) {
		t.Errorf("the path above the graph is %q, want it to end with %q", crumbs, v.name(z))
	}
	if err := p.Hover(fmt.Sprintf(`#flame-graph .fr[data-n="%d"]`, z)); err != nil {
		t.Fatal(err)
	}
	tip := eval[string](t, p, `(() => { const t = document.getElementById('tip'); return t.hidden ? '' : t.textContent; })()`)
	if !strings.Contains(tip, v.name(z)) || !strings.Contains(tip, "inclusive"+report.Group(incl[z])) {
		t.Errorf("the tooltip of frame %d says %q; want its name and inclusive count %s", z, tip, report.Group(incl[z]))
	}
	screenshot(t, p, strings.ReplaceAll(t.Name(), "/", "-")+"-zoomed")
	if err := p.Click("#reset"); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(`document.getElementById('flame-graph').dataset.zoom === '0'`, 10*time.Second); err != nil {
		t.Fatalf("reset zoom did not zoom out: %v", err)
	}
}

// checkSearch searches for a function many frames hold and checks the
// frames marked.
func checkSearch(t *testing.T, p *browser.Page, v *pageView) {
	t.Helper()
	ident := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{3,}$`)
	count := map[string]int{}
	for i := range v.Tree.Parent {
		if n := v.name(i); v.Tree.Fn[i] >= 0 && ident.MatchString(n) {
			count[n]++
		}
	}
	term := ""
	for n, c := range count {
		if term == "" || c > count[term] || c == count[term] && n < term {
			term = n
		}
	}
	if term == "" {
		t.Fatal("no function name to search for")
	}
	matches := func(name string) bool { return strings.Contains(strings.ToLower(name), strings.ToLower(term)) }
	want := 0
	for i := range v.Tree.Parent {
		if matches(v.name(i)) {
			want++
		}
	}
	if err := p.Type("#search", term); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(fmt.Sprintf(`document.getElementById('search-status').dataset.frames === '%d'`, want), 10*time.Second); err != nil {
		got := eval[string](t, p, `document.getElementById('search-status').textContent`)
		t.Fatalf("searching %q: the page says %q, want %d frames", term, got, want)
	}
	frames, _ := drawn(t, p)
	marked := 0
	for _, f := range frames {
		if f.Match != matches(v.name(f.N)) {
			t.Errorf("searching %q: frame %d %q marked %v", term, f.N, v.name(f.N), f.Match)
		}
		if f.Match {
			marked++
		}
	}
	if marked == 0 {
		t.Errorf("searching %q marked no frame drawn", term)
	}
	screenshot(t, p, strings.ReplaceAll(t.Name(), "/", "-")+"-search")
	eval[bool](t, p, `(() => { const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input')); return true; })()`)
}

// checkTable sorts the function table by its columns and filters it.
func checkTable(t *testing.T, p *browser.Page, v *pageView) {
	t.Helper()
	column := func(col string) []float64 {
		return eval[[]float64](t, p, fmt.Sprintf(`(() => {
			const i = [...document.querySelectorAll('#fn-table th')].findIndex(th => th.dataset.col === '%s');
			return [...document.querySelectorAll('#fn-rows tr')].map(tr => parseFloat(tr.children[i].dataset.v));
		})()`, col))
	}
	for _, s := range []struct {
		col, order string
	}{{"self", "desc"}, {"self", "asc"}, {"blocks", "desc"}, {"blocks", "asc"}} {
		if err := p.Click(fmt.Sprintf(`#fn-table th[data-col="%s"]`, s.col)); err != nil {
			t.Fatal(err)
		}
		if err := p.Wait(fmt.Sprintf(`document.querySelector('#fn-table th[data-col="%s"]').dataset.sort === '%s'`, s.col, s.order), 10*time.Second); err != nil {
			t.Fatalf("a click on %s did not sort it %s: %v", s.col, s.order, err)
		}
		vals := column(s.col)
		if len(vals) != min(200, len(v.Table.Rows)) {
			t.Errorf("the table shows %d rows, want %d", len(vals), min(200, len(v.Table.Rows)))
		}
		sorted := slices.IsSorted(vals)
		if s.order == "desc" {
			sorted = slices.IsSortedFunc(vals, func(a, b float64) int { return cmp.Compare(b, a) })
		}
		if !sorted {
			t.Errorf("sorted by %s %s, the column reads %v", s.col, s.order, vals[:min(10, len(vals))])
		}
	}
	shown := eval[int](t, p, `document.querySelectorAll('#fn-rows tr').length`)
	if err := p.Type("#filter", "main"); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(`[...document.querySelectorAll('#fn-rows tr')].every(tr => tr.textContent.toLowerCase().includes('main'))`, 10*time.Second); err != nil {
		t.Fatalf("filtering by \"main\": %v", err)
	}
	rows := eval[[]string](t, p, `[...document.querySelectorAll('#fn-rows tr')].map(tr => tr.textContent)`)
	if len(rows) == 0 || len(rows) == len(v.Table.Rows) {
		t.Errorf("filtering by \"main\" left %d of %d rows", len(rows), len(v.Table.Rows))
	}
	for _, r := range rows {
		if !strings.Contains(strings.ToLower(r), "main") {
			t.Errorf("filtering by \"main\" left the row %q", r)
		}
	}
	// The filter emptied shows the rows shown before again (and leaves the rows
	// whose file is not under a directory named main for the checks
	// after it: the test once passed in /work/main only).
	eval[bool](t, p, `(() => { const f = document.getElementById('filter'); f.value = ''; f.dispatchEvent(new Event('input')); return true; })()`)
	if err := p.Wait(fmt.Sprintf(`document.querySelectorAll('#fn-rows tr').length === %d`, shown), 10*time.Second); err != nil {
		t.Fatalf("emptying the filter: %v", err)
	}
}

// checkRoots chooses each process as the graph's root.
func checkRoots(t *testing.T, p *browser.Page, v *pageView, prof *profile.Profile) {
	t.Helper()
	if len(v.Roots) != len(prof.Processes)+1 {
		t.Fatalf("the page offers %d roots, want the whole run and %d processes", len(v.Roots), len(prof.Processes))
	}
	for _, r := range v.Roots[1:] {
		if v.incl()[r.Node]*2000 < v.incl()[0] {
			continue // too small to draw anything under it but itself
		}
		eval[bool](t, p, fmt.Sprintf(`(() => { const s = document.getElementById('root'); s.value = '%d'; s.dispatchEvent(new Event('change')); return true; })()`, r.Node))
		if err := p.Wait(fmt.Sprintf(`document.getElementById('flame-graph').dataset.zoom === '%d'`, r.Node), 10*time.Second); err != nil {
			t.Fatalf("root %q: %v", r.Label, err)
		}
		checkDrawn(t, p, v, r.Node)
	}
}

// checkSource clicks the table's row of function fn and checks that the
// page shows its source lines with their counts, text among them.
func checkSource(t *testing.T, p *browser.Page, v *pageView, fn, text string) {
	t.Helper()
	row := slices.IndexFunc(v.Table.Rows, func(r []any) bool { return r[0] == fn })
	if row < 0 || v.Table.Lines[strconv.Itoa(row)] == nil {
		t.Fatalf("the page has no per-line counts of %s", fn)
	}
	if err := p.Click(fmt.Sprintf(`#fn-rows tr[data-row="%d"]`, row)); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(`!document.getElementById('source').hidden`, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	src := eval[string](t, p, `document.getElementById('source').textContent`)
	if !strings.Contains(src, "Source of "+fn) {
		t.Errorf("the source shown is not %s's: %q", fn, src)
	}
	for _, l := range v.Table.Lines[strconv.Itoa(row)] {
		if n := uint64(l[2].(float64)); !strings.Contains(src, report.Group(n)) {
			t.Errorf("the source of %s does not show the count %s of line %v", fn, report.Group(n), l[1])
		}
	}
	if !strings.Contains(src, text) {
		t.Errorf("the source of %s shown does not hold %q: %q", fn, text, src)
	}
}

// buildBench builds benchC with WORK iterations as DIR/bench, with DWARF.
func buildBench(t *testing.T, work string) string {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "bench.c"), strings.Replace(benchC, "#define WORK 1000", "#define WORK "+work, 1))
	cmd := exec.Command("sh", "-c", staticCC(t)+" -g -o bench bench.c")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building bench.c: %v\n%s", err, out)
	}
	return dir
}

// TestHTMLDiff compares a benchmark with one whose work function runs ten
// more iterations (30 instructions more in work alone) with icount diff
// --format html, and checks the differential graph: each frame holds the
// base's counts of its path, and exactly the frames whose counts changed
// are coloured: work's frames and their callers by inclusive change,
// work's alone by self change.
func TestHTMLDiff(t *testing.T) {
	b := browser.ForTest(t)
	base := runProfile(t, buildBench(t, "1000"), []string{"--lines"}, "./bench")
	head := runProfile(t, buildBench(t, "1010"), []string{"--lines"}, "./bench")
	bp, err := profile.Read(base)
	if err != nil {
		t.Fatal(err)
	}
	hp, err := profile.Read(head)
	if err != nil {
		t.Fatal(err)
	}
	// The premise: the change adds work in one function.
	selfOf := func(p *profile.Profile) map[string]uint64 {
		m := map[string]uint64{}
		for _, f := range p.Functions {
			m[f.Name] += f.Self
		}
		return m
	}
	bs, hs := selfOf(bp), selfOf(hp)
	var changed []string
	for name := range hs {
		if hs[name] != bs[name] {
			changed = append(changed, name)
		}
	}
	if !slices.Equal(changed, []string{"work"}) || hs["work"]-bs["work"] != 30 {
		t.Fatalf("functions whose self count changed: %v (work %d -> %d); want work alone, by 30", changed, bs["work"], hs["work"])
	}

	page := filepath.Join(t.TempDir(), "diff.html")
	status, _, stderr := icountIn(t, "", "diff", "--format", "html", "--min-share", "0", "--fail-above", "0", "-o", page, base, head)
	if status != exitRegression {
		t.Fatalf("icount diff --fail-above 0: exit %d, want %d\n%s", status, exitRegression, stderr)
	}
	doc := readPage(t, page)
	v := &doc.Views[0]
	checkFrames(t, v, hp)
	want := profilePaths(bp)
	for i := 1; i < len(v.Tree.Parent); i++ {
		c, ok := want[v.path(i)]
		wantSelf, wantIncl := int64(c.self), int64(c.incl)
		if !ok {
			wantSelf, wantIncl = -1, -1
		}
		if v.Tree.BaseSelf[i] != wantSelf || v.Tree.BaseIncl[i] != wantIncl {
			t.Errorf("frame %d %q: base self %d, inclusive %d; the base Profile's %d, %d", i, v.name(i),
				v.Tree.BaseSelf[i], v.Tree.BaseIncl[i], wantSelf, wantIncl)
		}
	}
	p := openPage(t, b, page)
	screenshot(t, p, "diff")
	if kind := eval[string](t, p, `document.getElementById('verdict').dataset.kind`); kind != "regression" {
		t.Errorf("the verdict is %q, want regression", kind)
	}
	if gates := eval[string](t, p, `document.getElementById('gates').textContent`); !strings.Contains(gates, "total instructions at most") {
		t.Errorf("the gates say %q", gates)
	}
	counts := map[string][2]profile.FunctionCount{}
	for side, p := range []*profile.Profile{bp, hp} {
		for _, f := range p.Functions {
			c := counts[f.Name]
			c[side] = profile.FunctionCount{Self: f.Self, Inclusive: f.Inclusive, Calls: f.Calls}
			counts[f.Name] = c
		}
	}
	moved := 0
	for _, c := range counts {
		if c[0] != c[1] {
			moved++
		}
	}
	if txt := eval[string](t, p, `document.getElementById('changed').textContent`); !strings.HasPrefix(txt, fmt.Sprintf("%d of %d functions changed", moved, len(counts))) {
		t.Errorf("the header says %q, want %d of %d functions changed (work, and its callers' inclusive counts)", txt, moved, len(counts))
	}
	if txt := eval[string](t, p, `document.getElementById('vanished').textContent`); !strings.Contains(txt, "No frame of the base vanished") {
		t.Errorf("the vanished frames: %q", txt)
	}
	checkColours(t, p, v, "work")
	checkSource(t, p, v, "work", "__asm__ volatile")
	checkDrawn(t, p, v, 0)
	checkZoom(t, p, v)
	checkSearch(t, p, v)
}

// TestHTMLAB runs icount ab --format html on a repository whose last
// commit adds ten iterations to the benchmark's work function, and checks
// that the page colours exactly work's frames and their callers.
func TestHTMLAB(t *testing.T) {
	b := browser.ForTest(t)
	dir := gitRepo(t)
	commitEdit(t, dir, "#define WORK 1000", "#define WORK 1010", "ten more iterations")
	page := filepath.Join(t.TempDir(), "ab.html")
	if status, _, stderr := icountIn(t, dir, "ab", "--base", "HEAD~1", "--bin", "bench", "--format", "html", "-o", page); status != 0 {
		t.Fatalf("icount ab --format html: exit %d\n%s", status, stderr)
	}
	doc := readPage(t, page)
	p := openPage(t, b, page)
	screenshot(t, p, "ab")
	if kind := eval[string](t, p, `document.getElementById('verdict').dataset.kind`); kind != "changed" {
		t.Errorf("the verdict is %q, want changed", kind)
	}
	checkColours(t, p, &doc.Views[0], "work")
}

// checkColours checks the differential colouring of the drawn frames: by
// inclusive change, exactly the frames of fn and of its callers (the frames
// whose inclusive counts differ from the base's) are coloured, as growth;
// by self change, exactly fn's.
func checkColours(t *testing.T, p *browser.Page, v *pageView, fn string) {
	t.Helper()
	incl := v.incl()
	holds := func(i int) bool { // frame i is fn's or holds one of fn's
		for j := range v.Tree.Parent {
			if v.name(j) == fn && v.within(j, i) {
				return true
			}
		}
		return false
	}
	for _, mode := range []string{"incl", "self"} {
		eval[bool](t, p, fmt.Sprintf(`(() => { const s = document.getElementById('colour'); s.value = '%s'; s.dispatchEvent(new Event('change')); return true; })()`, mode))
		frames, _ := drawn(t, p)
		coloured := 0
		for _, f := range frames {
			head, base := int64(incl[f.N]), v.Tree.BaseIncl[f.N]
			want := holds(f.N)
			if mode == "self" {
				head, base = int64(v.Tree.Self[f.N]), v.Tree.BaseSelf[f.N]
				want = v.name(f.N) == fn
			}
			if (head != base) != want {
				t.Errorf("%s: frame %d %q: base %d, head %d; want it changed: %v", mode, f.N, v.name(f.N), base, head, want)
			}
			switch {
			case want && f.Change != "grow":
				t.Errorf("colour by %s: frame %d %q (%d -> %d) is drawn %q, want grow", mode, f.N, v.name(f.N), base, head, f.Change)
			case !want && f.Change != "same":
				t.Errorf("colour by %s: frame %d %q (%d -> %d) is drawn %q, want same", mode, f.N, v.name(f.N), base, head, f.Change)
			}
			if want {
				coloured++
			}
			if own := v.name(f.N) == fn; f.Own != own {
				t.Errorf("colour by %s: frame %d %q marked as changed in its own code: %v, want %v", mode, f.N, v.name(f.N), f.Own, own)
			}
		}
		if coloured == 0 {
			t.Errorf("colour by %s: no frame drawn is coloured", mode)
		}
	}
}
