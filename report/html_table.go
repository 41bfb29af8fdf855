package report

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/icount-dev/icount/profile"
)

// tableJSON is the function table: a row per function, with names of
// modules and files given once. A run's row is [name, raw name ("" when
// the same), module, file (-1: none), line, self, inclusive, calls,
// blocks]; a comparison's adds [base self, base inclusive, base calls,
// status], its counts the head's.
type tableJSON struct {
	Modules   []string `json:"modules"`
	Files     []string `json:"files"`
	Rows      [][]any  `json:"rows"`
	Left      int      `json:"left"`      // functions left out of the table
	LeftSelf  uint64   `json:"left_self"` // their self instructions (the head's)
	Inclusive bool     `json:"inclusive"` // the counts have inclusive costs and calls (no --count-only)
	// Lines are, by row, the function's source lines with their self
	// counts: [file, line, self, base self (-1: none), inlined function].
	Lines map[string][][]any `json:"lines,omitempty"`
	// Sources are, by file, the text of the lines the page shows.
	Sources map[string]sourceJSON `json:"sources,omitempty"`
}

// sourceJSON is what the page has of one source file: some of its lines
// by number, or why none.
type sourceJSON struct {
	Lines map[string]string `json:"lines,omitempty"`
	Error string            `json:"error,omitempty"`
}

// tableRow is one function before it is written.
type tableRow struct {
	key                         string
	name, module, file          string
	line                        int
	self, incl, calls, blocks   uint64
	baseSelf, baseIncl, baseCal uint64
	status                      string
}

// buildTable builds the function table of head (against base): every
// function a frame of the tree names (fnKeys), and the others in the
// table's order (largest first, or largest change first) until the table
// has maxRows or its names maxNameBytes. It returns each listed function's row by key.
func buildTable(o HTMLOptions, c *Comparison, head, base *profile.Profile, fnKeys []string) (tableJSON, map[string]int) {
	rows := tableRows(c, head, base)
	need := map[string]bool{}
	for _, k := range fnKeys {
		if k != "" {
			need[k] = true
		}
	}
	t := tableJSON{Modules: []string{}, Files: []string{}, Rows: [][]any{},
		Inclusive: !head.Meta.CountOnly && (base == nil || !base.Meta.CountOnly)}
	modules, files := map[string]int{}, map[string]int{}
	intern := func(m map[string]int, list *[]string, s string) int {
		if s == "" {
			return -1
		}
		i, ok := m[s]
		if !ok {
			i = len(*list)
			m[s] = i
			*list = append(*list, s)
		}
		return i
	}
	rowOf := map[string]int{}
	others := maxRows - len(need) // rows for functions no frame names
	var names int
	for _, r := range rows {
		if !need[r.key] {
			if others <= 0 || names >= maxNameBytes {
				t.Left++
				t.LeftSelf += r.self
				continue
			}
			others--
		}
		name := cut(DisplayName(r.name), maxNameLen)
		raw := ""
		if name != r.name {
			raw = cut(r.name, maxNameLen)
		}
		names += len(name) + len(raw)
		row := []any{name, raw, intern(modules, &t.Modules, r.module), intern(files, &t.Files, r.file), r.line,
			r.self, r.incl, r.calls, r.blocks}
		if base != nil {
			row = append(row, r.baseSelf, r.baseIncl, r.baseCal, r.status)
		}
		rowOf[r.key] = len(t.Rows)
		t.Rows = append(t.Rows, row)
	}
	t.Lines, t.Sources = lineRows(o, head, base, rowOf, func(file string) int { return intern(files, &t.Files, file) })
	return t, rowOf
}

// tableRows are the rows of the table before its bounds: a run's
// functions by self cost; a comparison's as its report orders them
// (largest change first, the ignored ones last).
func tableRows(c *Comparison, head, base *profile.Profile) []tableRow {
	byKey := func(p *profile.Profile) map[string]profile.FunctionCount {
		m := map[string]profile.FunctionCount{}
		if p == nil {
			return m
		}
		for _, f := range p.Functions {
			k, _ := functionKey(p, f)
			m[k] = f
		}
		return m
	}
	var out []tableRow
	if base == nil || c == nil {
		for _, f := range head.Functions {
			k, _ := functionKey(head, f)
			out = append(out, tableRow{key: k, name: f.Name, module: f.Module, file: f.File, line: f.Line,
				self: f.Self, incl: f.Inclusive, calls: f.Calls, blocks: f.Blocks})
		}
		return out
	}
	hf, bf := byKey(head), byKey(base)
	for _, r := range append(slices.Clone(c.Functions), c.Ignored...) {
		k := r.Name
		if r.Module != "" {
			k = r.Module + "\x00" + r.Name
		}
		f, ok := hf[k]
		if !ok {
			f = bf[k]
		}
		status := r.Status
		if r.ignored {
			status += ", ignored"
		}
		if r.OverBy != "" {
			status += ", over budget"
		}
		out = append(out, tableRow{key: k, name: r.Name, module: f.Module, file: f.File, line: f.Line,
			self: r.Self.Head, incl: r.Inclusive.Head, calls: r.Calls.Head, blocks: hf[k].Blocks,
			baseSelf: r.Self.Base, baseIncl: r.Inclusive.Base, baseCal: r.Calls.Base, status: status})
	}
	return out
}

// lineKey is one source line of one function.
type lineKey struct {
	fn, file string
	line     int
}

// lineCounts sums a Profile's per-line counts by function, file and line
// (over its processes), with the function inlined there.
func lineCounts(p *profile.Profile) (map[lineKey]uint64, map[lineKey]string, map[string][]lineKey) {
	counts, inlined, byFn := map[lineKey]uint64{}, map[lineKey]string{}, map[string][]lineKey{}
	if p == nil {
		return counts, inlined, byFn
	}
	for _, l := range p.Lines {
		fn, _ := functionKey(p, profile.FunctionCount{Name: l.Function, Module: l.Module})
		k := lineKey{fn, l.File, l.Line}
		if _, ok := counts[k]; !ok {
			byFn[fn] = append(byFn[fn], k)
		}
		counts[k] += l.Self
		if l.Inlined != "" && inlined[k] == "" {
			inlined[k] = DisplayName(l.Inlined)
		}
	}
	return counts, inlined, byFn
}

// lineRows gives each listed function's source lines with their counts
// on both sides, in the table's order until maxLineRows, and the text of
// the lines shown and a few around them, read with o.Source, until
// maxSourceBytes.
func lineRows(o HTMLOptions, head, base *profile.Profile, rowOf map[string]int, fileIndex func(string) int) (map[string][][]any, map[string]sourceJSON) {
	hc, inl, byFn := lineCounts(head)
	bc, _, bByFn := lineCounts(base)
	if len(byFn) == 0 && len(bByFn) == 0 {
		return nil, nil
	}
	order := make([]string, 0, len(rowOf))
	for k := range rowOf {
		order = append(order, k)
	}
	slices.SortFunc(order, func(a, b string) int { return cmp.Compare(rowOf[a], rowOf[b]) })
	lines := map[string][][]any{}
	wanted := map[string]map[int]bool{} // file: lines to show
	n := 0
	for _, fn := range order {
		keys := append(slices.Clone(byFn[fn]), bByFn[fn]...)
		slices.SortFunc(keys, func(a, b lineKey) int {
			return cmp.Or(strings.Compare(a.file, b.file), cmp.Compare(a.line, b.line))
		})
		keys = slices.Compact(keys)
		if len(keys) == 0 {
			continue
		}
		if n += len(keys); n > maxLineRows {
			break
		}
		var rows [][]any
		for _, k := range keys {
			b := int64(-1)
			if base != nil {
				b = int64(bc[k])
			}
			rows = append(rows, []any{fileIndex(k.file), k.line, hc[k], b, inl[k]})
			if k.file != "" && k.line > 0 {
				if wanted[k.file] == nil {
					wanted[k.file] = map[int]bool{}
				}
				wanted[k.file][k.line] = true
			}
		}
		lines[strconv.Itoa(rowOf[fn])] = rows
	}
	return lines, readSources(o, wanted, fileIndex)
}

// readSources reads the lines wanted of each file, with sourceContext
// lines around each, until maxSourceBytes in all; a file that cannot be
// read says why.
func readSources(o HTMLOptions, wanted map[string]map[int]bool, fileIndex func(string) int) map[string]sourceJSON {
	if o.Source == nil || len(wanted) == 0 {
		return nil
	}
	paths := make([]string, 0, len(wanted))
	for f := range wanted {
		paths = append(paths, f)
	}
	slices.Sort(paths)
	out := map[string]sourceJSON{}
	budget := maxSourceBytes
	for _, path := range paths {
		key := strconv.Itoa(fileIndex(path))
		if budget <= 0 {
			out[key] = sourceJSON{Error: "not embedded: the page holds at most " + Group(maxSourceBytes) + " bytes of source"}
			continue
		}
		b, err := o.Source(path)
		if err != nil {
			msg := err.Error()
			if errors.Is(err, fs.ErrNotExist) {
				msg = "not found: " + msg
			}
			out[key] = sourceJSON{Error: msg}
			continue
		}
		text := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		s := sourceJSON{Lines: map[string]string{}}
		for l := range wanted[path] {
			for k := max(1, l-sourceContext); k <= min(len(text), l+sourceContext); k++ {
				key := strconv.Itoa(k)
				if _, ok := s.Lines[key]; ok {
					continue
				}
				line := cut(strings.TrimRight(text[k-1], "\r"), maxSourceLine)
				s.Lines[key] = line
				budget -= len(line) + len(key) + 6
			}
		}
		if len(wanted[path]) > 0 && lastLine(wanted[path]) > len(text) {
			s.Error = fmt.Sprintf("the file has %d lines, fewer than the counts name: it changed since the build", len(text))
		}
		out[key] = s
	}
	return out
}

func lastLine(lines map[int]bool) int {
	m := 0
	for l := range lines {
		m = max(m, l)
	}
	return m
}
