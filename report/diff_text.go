package report

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// DiffFormats are the formats a Report can be written in.
var DiffFormats = []string{"text", "markdown", "json", "html"}

// WriteDiff writes the Report in the named format, shaped by o.
func WriteDiff(w io.Writer, r *Report, format string, o DiffOptions) error {
	switch format {
	case "text":
		return DiffText(w, r)
	case "markdown", "md":
		return DiffMarkdown(w, r, o)
	case "json":
		return DiffJSON(w, r)
	case "html":
		return DiffHTML(w, r, HTMLOptions{MinShare: DefaultMinShare})
	}
	return fmt.Errorf("unknown format %q (want text, markdown, json or html)", format)
}

// DiffText writes the Report for a terminal, in benchstat's layout: a
// column per side and a delta column, counts as integers.
func DiffText(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "base: %s\n", sideText(r.Base))
	fmt.Fprintf(&b, "head: %s\n", sideText(r.Head))
	if len(r.Comparisons) > 1 {
		b.WriteString("\n")
		b.WriteString(AlignTable(suiteRows(r, false), 1, "  "))
	}
	for _, c := range r.Comparisons {
		b.WriteString("\n")
		if c.Name != "" {
			fmt.Fprintf(&b, "benchmark %s\n", c.Name)
		}
		textComparison(&b, c)
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	fmt.Fprintf(&b, "\nverdict: %s\n", r.Verdict.Line)
	_, err := io.WriteString(w, b.String())
	return err
}

func sideText(s Side) string {
	if s.Commit != "" {
		return fmt.Sprintf("%s (commit %s)", s.Label, s.Commit)
	}
	return s.Label
}

func textComparison(b *strings.Builder, c Comparison) {
	if c.Base == nil {
		fmt.Fprintf(b, "new benchmark: %s, sha256 %s, %s; nothing to compare it with\n", c.Head.Binary, short(c.Head.SHA256), c.Head.Exit)
		return
	}
	fmt.Fprintf(b, "binary: %s\n", binaryLine(c))
	for _, why := range c.Incomparable {
		fmt.Fprintf(b, "warning: cannot compare: %s\n", why)
	}
	b.WriteString("\n")
	rows := [][]string{{"", "base", "head", "delta", ""}}
	for _, t := range c.Totals {
		rows = append(rows, []string{t.Name, Group(t.Base), Group(t.Head), SignedGroup(t.Change()), Percent(t.Delta)})
	}
	b.WriteString(AlignTable(rows, 1, "  "))
	b.WriteString("\n")
	if len(c.Processes) > 0 {
		fmt.Fprintf(b, "processes: %s\n", processSummary(c.Processes))
		table, unchanged, left := processTable(c.Processes, false)
		b.WriteString(AlignTable(table, 1, "  "))
		if left > 0 {
			fmt.Fprintf(b, "%s more changed (see the JSON report)\n", plural(left, "process", "processes"))
		}
		if unchanged > 0 {
			fmt.Fprintf(b, "%s unchanged\n", plural(unchanged, "other process", "other processes"))
		}
		b.WriteString("\n")
	}
	if len(c.Parts) > 0 {
		table, unchanged := partTable(c.Parts)
		if len(table) > 1 {
			b.WriteString(AlignTable(table, 1, "  "))
		}
		if unchanged > 0 {
			fmt.Fprintf(b, "%s unchanged\n", plural(unchanged, "part", "parts"))
		}
		b.WriteString("\n")
	}
	var shown []FunctionRow
	unchanged := 0
	for _, f := range c.Functions {
		if f.Status == "unchanged" {
			unchanged++
		} else {
			shown = append(shown, f)
		}
	}
	if len(shown) > 0 {
		b.WriteString(AlignTable(functionTable(c, shown, false), 1, "  "))
	}
	if unchanged > 0 && len(shown) > 0 {
		fmt.Fprintf(b, "%s unchanged\n", plural(unchanged, "other function", "other functions"))
	} else if unchanged > 0 {
		fmt.Fprintf(b, "%s, all unchanged\n", plural(unchanged, "function", "functions"))
	}
	for _, rn := range c.Renames {
		fmt.Fprintf(b, "possible rename: %s -> %s (same cost: %s instructions)\n", rn.From, rn.To, Group(rn.Self))
	}
	if n := len(c.Ignored); n > 0 {
		var moved int64
		for _, f := range c.Ignored {
			moved += f.Self.Change()
		}
		fmt.Fprintf(b, "%s ignored by the gates (self change %s)\n", plural(n, "function", "functions"), SignedGroup(moved))
	}
	for _, n := range c.Notes {
		fmt.Fprintf(b, "note: %s\n", n)
	}
	if c.Name != "" {
		fmt.Fprintf(b, "verdict: %s\n", c.Verdict.Line)
	}
}

func binaryLine(c Comparison) string {
	if c.Identical {
		return fmt.Sprintf("%s, identical on both sides (sha256 %s)", c.Head.Binary, short(c.Head.SHA256))
	}
	return fmt.Sprintf("base %s (sha256 %s), head %s (sha256 %s)", c.Base.Binary, short(c.Base.SHA256), c.Head.Binary, short(c.Head.SHA256))
}

// functionTable is a header and a row per function: self counts, then
// inclusive and calls when either Profile has them.
func functionTable(c Comparison, fns []FunctionRow, md bool) [][]string {
	head := []string{"function", "base self", "head self", "delta", ""}
	if c.Inclusive {
		head = append(head, "base incl", "head incl", "delta", "")
	}
	if c.Calls {
		head = append(head, "base calls", "head calls", "delta")
	}
	rows := [][]string{head}
	for _, f := range fns {
		name := f.Name
		if f.Module != "" {
			name += " (" + f.Module + ")"
		}
		if md {
			name = mdCode(name)
		}
		switch f.Status {
		case "new", "vanished":
			name += " (" + f.Status + ")"
		}
		if f.ignored {
			name += " (ignored)"
		}
		if f.OverBy != "" {
			name += " (over budget: " + f.Budget + ")"
			if md {
				name = "**" + name + "**"
			}
		}
		row := []string{name, Group(f.Self.Base), Group(f.Self.Head), SignedGroup(f.Self.Change()), Percent(f.Self)}
		if c.Inclusive {
			row = append(row, Group(f.Inclusive.Base), Group(f.Inclusive.Head), SignedGroup(f.Inclusive.Change()), Percent(f.Inclusive))
		}
		if c.Calls {
			row = append(row, Group(f.Calls.Base), Group(f.Calls.Head), SignedGroup(f.Calls.Change()))
		}
		rows = append(rows, row)
	}
	return rows
}

// suiteRows is one row per benchmark: its total instructions and verdict.
func suiteRows(r *Report, md bool) [][]string {
	rows := [][]string{{"benchmark", "base", "head", "delta", "", "verdict"}}
	for _, c := range r.Comparisons {
		name := c.Name
		if md {
			name = mdCode(name)
		}
		if c.Base == nil {
			rows = append(rows, []string{name, "", "", "", "", kindWord(c.Verdict.Kind) + " (new benchmark)"})
			continue
		}
		t := c.Totals[0]
		rows = append(rows, []string{name, Group(t.Base), Group(t.Head), SignedGroup(t.Change()), Percent(t.Delta), kindWord(c.Verdict.Kind)})
	}
	return rows
}

// AlignTable pads columns: the first left columns to the left, the rest to
// the right; trailing blanks are trimmed.
func AlignTable(rows [][]string, left int, sep string) string {
	var width []int
	for _, r := range rows {
		for i, cell := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], len([]rune(cell)))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		var line strings.Builder
		for i, cell := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(cell)))
			if i > 0 {
				line.WriteString(sep)
			}
			if i < left {
				line.WriteString(cell + pad)
			} else {
				line.WriteString(pad + cell)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return b.String()
}

// SignedGroup writes a change with its sign and thousands separators:
// +1,234, -5, 0.
func SignedGroup(n int64) string {
	switch {
	case n > 0:
		return "+" + Group(uint64(n))
	case n < 0:
		return "-" + Group(uint64(-n))
	}
	return "0"
}

// Percent is the change relative to the base: "+1.25%", "-0.10%",
// "+<0.01%" for a change too small to show, "0%" for none, "new" when
// the base is zero, "-100%" when the head is.
func Percent(d Delta) string {
	switch {
	case d.Head == d.Base:
		return "0%"
	case d.Base == 0:
		return "new"
	}
	return percentText(100 * (float64(d.Head) - float64(d.Base)) / float64(d.Base))
}

// percentText writes a change of p percent as Percent does.
func percentText(p float64) string {
	sign := "+"
	if p < 0 {
		sign = "-"
	}
	a := math.Abs(p)
	switch {
	case a < 0.005:
		return sign + "<0.01%"
	case a >= 1000:
		return fmt.Sprintf("%s%.0f%%", sign, a)
	}
	return fmt.Sprintf("%s%.2f%%", sign, a)
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	if sha == "" {
		return "unknown"
	}
	return sha
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
