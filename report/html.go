package report

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/icount-dev/icount/profile"
)

// The page's own script, style and template, written for icount (no
// framework), embedded whole in every page.
//
//go:embed htmlpage
var htmlAssets embed.FS

// scriptFiles are the page's scripts, concatenated in this order into one
// script: each defines functions the later ones use.
var scriptFiles = []string{"util.js", "header.js", "flame.js", "table.js", "source.js", "charts.js", "main.js"}

// DefaultMinShare is the share of a run's instructions below which a frame
// is merged with its small siblings into one "other" frame: 0.01 %.
const DefaultMinShare = 0.0001

// What a page embeds at most, so that a Profile of hundreds of thousands
// of functions gives a page of a few megabytes that draws in a moment.
const (
	maxFrames       = 30000   // frames of the calling-context tree, per view
	maxRows         = 20000   // functions in the table, per view
	maxNameBytes    = 3 << 20 // the table's names, per view
	maxLineRows     = 100000  // per-line counts, per view
	maxSourceBytes  = 2 << 20 // source text, per view
	maxVanished     = 200     // vanished frames listed
	maxNameLen      = 1000    // a name's characters
	maxSourceLine   = 300     // a source line's characters
	sourceContext   = 2       // lines shown around a counted line
	maxHeaderArgLen = 2000    // the command line's characters in the header
	maxPartRows     = 1000    // a run's parts listed in the header
)

// HTMLOptions say how much a page embeds and where its sources come from.
type HTMLOptions struct {
	// MinShare is the share of the run's instructions (0.0001 is 0.01 %)
	// below which a frame of the calling-context tree is merged with its
	// siblings below it into one "other" frame per parent; 0 keeps every
	// frame (up to the page's bound on frames). The page says so.
	MinShare float64
	// Source reads a source file the Profile's per-line counts name (for
	// runs saved with --lines); nil embeds no source text.
	Source func(path string) ([]byte, error)
}

// pageData is everything the page shows, as its script reads it.
type pageData struct {
	Kind  string     `json:"kind"` // "run" or "diff"
	Title string     `json:"title"`
	Diff  *diffHead  `json:"diff,omitempty"`
	Views []pageView `json:"views"`
}

// WriteHTML writes one run's page: a self-contained HTML file (script,
// style and data inside; no network, no server) with the run's header,
// its calling-context tree as an icicle graph, the function table with
// per-line counts and sources where the Profile has them, the instruction
// mix and the split by object.
func WriteHTML(w io.Writer, p *profile.Profile, o HTMLOptions) error {
	v := newView(o, "", nil, p, nil)
	d := pageData{Kind: "run", Title: "icount: " + oneLine(strings.Join(p.Meta.Args, " ")), Views: []pageView{v}}
	return writePage(w, &d)
}

// DiffHTML writes a comparison's page: the verdict and the gates, and for
// each benchmark the head's tree coloured by each frame's change against
// the base, the frames that vanished, and the function table with both
// sides' counts.
func DiffHTML(w io.Writer, r *Report, o HTMLOptions) error {
	d := pageData{Kind: "diff", Title: fmt.Sprintf("icount diff: %s vs %s", r.Base.Label, r.Head.Label), Diff: newDiffHead(r)}
	for i, c := range r.Comparisons {
		var pr Pair
		if i < len(r.pairs) {
			pr = r.pairs[i]
		}
		if pr.Head == nil {
			return fmt.Errorf("the report of %q holds no Profiles to draw", c.Name)
		}
		d.Views = append(d.Views, newView(o, c.Name, &c, pr.Head, pr.Base))
	}
	return writePage(w, &d)
}

// pageTemplate is the page: the data as JSON in a script element of its
// own, read by the page's script; a content security policy that lets the
// page load nothing from anywhere.
var pageTemplate = template.Must(template.ParseFS(htmlAssets, "htmlpage/page.html"))

func writePage(w io.Writer, d *pageData) error {
	data, err := json.Marshal(d) // escapes <, > and &: safe inside a script element
	if err != nil {
		return fmt.Errorf("encoding the page's data: %w", err)
	}
	css, err := htmlAssets.ReadFile("htmlpage/style.css")
	if err != nil {
		return err
	}
	var script bytes.Buffer
	script.WriteString("(function () {\n'use strict';\n")
	for _, f := range scriptFiles {
		b, err := htmlAssets.ReadFile("htmlpage/" + f)
		if err != nil {
			return err
		}
		script.Write(b)
	}
	script.WriteString("})();\n")
	return pageTemplate.Execute(w, struct {
		Title  string
		Style  template.CSS
		Data   template.JS
		Script template.JS
	}{d.Title, template.CSS(css), template.JS(data), template.JS(script.String())})
}

// cut shortens s to n characters, saying so.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
