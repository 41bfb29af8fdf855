package report

import (
	"fmt"
	"io"
	"strings"
)

// changedShown bounds the changed functions listed before the collapsed
// full list in markdown.
const changedShown = 15

var verdictMark = map[string]string{
	VerdictRegression: "❌", VerdictNone: "⚠️", VerdictChanged: "🔺",
	VerdictImproved: "✅", VerdictUnchanged: "✅",
}

// DiffMarkdown writes the Report as a pull-request comment: a verdict
// line first, then the table, then the full per-function list in a
// collapsed section.
func DiffMarkdown(w io.Writer, r *Report) error {
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
			mdComparison(&b, c, false)
			b.WriteString("\n</details>\n")
		}
	} else {
		for _, c := range r.Comparisons {
			b.WriteString("\n")
			mdComparison(&b, c, true)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdComparison(b *strings.Builder, c Comparison, collapse bool) {
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
		shown := changed[:min(len(changed), changedShown)]
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

func mdSide(s Side) string {
	if s.Commit != "" {
		return fmt.Sprintf("%s (`%s`)", mdCode(s.Label), s.Commit)
	}
	return mdCode(s.Label)
}

func gateText(g GateSummary) string {
	var parts []string
	if g.FailAbove != "" {
		parts = append(parts, "total at most "+g.FailAbove)
	}
	if n := len(g.Budgets); n > 0 {
		parts = append(parts, plural(n, "function budget", "function budgets"))
	}
	if n := len(g.Ignore); n > 0 {
		parts = append(parts, plural(n, "ignore pattern", "ignore patterns"))
	}
	return strings.Join(parts, ", ")
}

// mdTable writes a GitHub table; the first left columns align left.
func mdTable(rows [][]string, left int) string {
	var b strings.Builder
	for i, r := range rows {
		b.WriteString("|")
		for _, cell := range r {
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
		if i == 0 {
			b.WriteString("|")
			for j := range r {
				if j < left {
					b.WriteString(":--|")
				} else {
					b.WriteString("--:|")
				}
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// mdCode sets a name in code, safe inside a table cell.
func mdCode(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n", " ")
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

// mdText escapes what markdown would read as markup in running text.
func mdText(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;", "|", `\|`, "[", `\[`, "]", `\]`, "\n", " ")
	return r.Replace(s)
}

// htmlText escapes for a <summary> line.
func htmlText(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\n", " ")
	return r.Replace(s)
}
