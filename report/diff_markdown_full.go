package report

import (
	"fmt"
	"io"
	"strings"
)

// fullChangedShown bounds the changed functions listed before the
// collapsed list of every function in the full markdown.
const fullChangedShown = 15

// DiffMarkdownFull writes the whole Report in markdown, for a file rather
// than a comment (its size grows with the Profiles): a verdict line first,
// then each comparison's totals, its changed functions and every function
// in a collapsed section.
func DiffMarkdownFull(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s **icount**: %s\n\n", verdictMark[r.Verdict.Kind], mdText(r.Verdict.Line))
	fmt.Fprintf(&b, "Base %s, head %s.\n", mdSide(r.Base), mdSide(r.Head))
	if g := gateText(r.Gates); g != "" {
		fmt.Fprintf(&b, "Gates: %s.\n", mdText(g))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "Note: %s.\n", mdText(n))
	}
	if len(r.Comparisons) > 1 {
		b.WriteString("\n")
		b.WriteString(mdTable(suiteRows(r, true), 1))
		for _, c := range r.Comparisons {
			fmt.Fprintf(&b, "\n<details><summary>%s %s: %s</summary>\n\n", verdictMark[c.Verdict.Kind], htmlText(c.Name), htmlText(c.Verdict.Line))
			mdFullComparison(&b, c, false)
			b.WriteString("\n</details>\n")
		}
	} else {
		for _, c := range r.Comparisons {
			b.WriteString("\n")
			mdFullComparison(&b, c, true)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdFullComparison(b *strings.Builder, c Comparison, collapse bool) {
	if c.Base == nil {
		fmt.Fprintf(b, "New benchmark: `%s`, sha256 `%s`, %s; nothing to compare it with.\n", c.Head.Binary, short(c.Head.SHA256), c.Head.Exit)
		return
	}
	fmt.Fprintf(b, "Binary: %s.\n", mdText(binaryLine(c)))
	for _, why := range c.Incomparable {
		fmt.Fprintf(b, "\n> ⚠️ cannot compare: %s\n", mdText(why))
	}
	b.WriteString("\n")
	rows := [][]string{{"", "base", "head", "delta", ""}}
	for _, t := range c.Totals {
		rows = append(rows, []string{t.Name, Group(t.Base), Group(t.Head), SignedGroup(t.Change()), Percent(t.Delta)})
	}
	b.WriteString(mdTable(rows, 1))
	if len(c.Processes) > 0 {
		fmt.Fprintf(b, "\nProcesses: %s.\n\n", mdText(processSummary(c.Processes)))
		table, unchanged, left := processTable(c.Processes, true)
		b.WriteString(mdTable(table, 1))
		if left > 0 {
			fmt.Fprintf(b, "\n%s more changed: see the JSON report.\n", plural(left, "process", "processes"))
		}
		if unchanged > 0 {
			fmt.Fprintf(b, "\n%s unchanged.\n", plural(unchanged, "other process", "other processes"))
		}
	}
	var changed []FunctionRow
	for _, f := range c.Functions {
		if f.Status != "unchanged" {
			changed = append(changed, f)
		}
	}
	if len(changed) > 0 {
		b.WriteString("\n")
		shown := changed[:min(len(changed), fullChangedShown)]
		b.WriteString(mdTable(functionTable(c, shown, true), 1))
		if n := len(changed) - len(shown); n > 0 {
			fmt.Fprintf(b, "\n%s more changed: see the full list.\n", plural(n, "function", "functions"))
		}
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "%s of %d changed.\n", plural(len(changed), "function", "functions"), len(c.Functions))
	for _, rn := range c.Renames {
		fmt.Fprintf(b, "Possible rename: %s → %s (same cost: %s instructions).\n", mdCode(rn.From), mdCode(rn.To), Group(rn.Self))
	}
	if n := len(c.Ignored); n > 0 {
		fmt.Fprintf(b, "%s ignored by the gates.\n", plural(n, "function", "functions"))
	}
	for _, n := range c.Notes {
		fmt.Fprintf(b, "Note: %s.\n", mdText(n))
	}
	if len(c.Functions)+len(c.Ignored) == 0 {
		return
	}
	if collapse {
		fmt.Fprintf(b, "\n<details><summary>All %d functions</summary>\n\n", len(c.Functions)+len(c.Ignored))
	} else {
		fmt.Fprintf(b, "\nAll %d functions:\n\n", len(c.Functions)+len(c.Ignored))
	}
	b.WriteString(mdTable(functionTable(c, append(append([]FunctionRow{}, c.Functions...), c.Ignored...), true), 1))
	if collapse {
		b.WriteString("\n</details>\n")
	}
}
