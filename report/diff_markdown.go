package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// MarkdownLimit bounds the markdown DiffMarkdown writes, in bytes (and so
// in characters): GitHub refuses a comment of more than 65,536
// characters, and a pull request's comment must fit whatever the Profiles
// hold.
const MarkdownLimit = 60_000

// DefaultTop is how many changed functions the markdown lists unless told.
const DefaultTop = 20

// Bounds of the markdown's parts, each cut short or counted when longer.
const (
	mdLineMax    = 600 // bytes of a verdict line, a note or a reason for no verdict
	mdNotesMax   = 8   // notes (and reasons for no verdict) listed
	mdNameMax    = 100 // bytes of a function's, benchmark's or side's name
	mdRenamesMax = 5   // possible renames named
	mdNamesMax   = 10  // unchanged benchmarks named
	mdBenchMax   = 50  // benchmarks listed in a suite's table
	// mdReserve is the room kept for the last line, which says what the
	// limit left out; mdMoreLine the room a table keeps for the line
	// after it that counts its rows left out.
	mdReserve  = 600
	mdMoreLine = 600
)

// DiffOptions shape a written Report.
type DiffOptions struct {
	// Top bounds the changed functions the markdown lists (DefaultTop
	// when 0).
	Top int
	// Full writes the whole Report in markdown, unbounded, for a file
	// (DiffMarkdownFull).
	Full bool
	// FullReport says where the full report is (a URL, a file name): the
	// markdown names it where it leaves something out.
	FullReport string
}

// DiffMarkdown writes the Report as a pull-request comment, under
// MarkdownLimit bytes whatever the Profiles hold: the verdict, the sides
// and gates, the totals, then the changed functions only, largest change
// first, at most o.Top of them in one compact table (self and inclusive
// deltas; calls where they changed), and a line saying how many more
// changed and where the full report is. A suite has a row per benchmark
// that did not stay unchanged and one table of the changed functions of
// all of them.
func DiffMarkdown(w io.Writer, r *Report, o DiffOptions) error {
	if o.Full {
		return DiffMarkdownFull(w, r)
	}
	if o.Top <= 0 {
		o.Top = DefaultTop
	}
	m := &mdWriter{limit: MarkdownLimit - mdReserve}
	m.line(fmt.Sprintf("%s **icount**: %s", verdictMark[r.Verdict.Kind], mdText(clip(r.Verdict.Line, mdLineMax))))
	m.line("")
	side := func(s Side) string {
		return mdSide(Side{Label: clip(s.Label, 2*mdNameMax), Commit: clip(s.Commit, mdNameMax)})
	}
	sides := fmt.Sprintf("Base %s, head %s.", side(r.Base), side(r.Head))
	if g := gateText(r.Gates); g != "" {
		sides += fmt.Sprintf(" Gates: %s.", mdText(g))
	} else {
		sides += " No gate is set."
	}
	m.line(sides)
	m.notes("Note: ", r.Notes)
	if len(r.Comparisons) == 1 {
		m.comparison(r.Comparisons[0], o)
	} else {
		m.suite(r, o)
	}
	return m.finish(w, o)
}

// mdWriter writes markdown lines while they fit under a limit, and
// counts those left out.
type mdWriter struct {
	b       strings.Builder
	limit   int
	dropped int // lines left out for room
}

// fits reports whether n more bytes fit.
func (m *mdWriter) fits(n int) bool { return m.b.Len()+n <= m.limit }

// line writes s and a newline when they fit, and counts it otherwise.
func (m *mdWriter) line(s string) {
	if !m.fits(len(s) + 1) {
		m.dropped++
		return
	}
	m.b.WriteString(s)
	m.b.WriteString("\n")
}

// notes writes up to mdNotesMax of notes, each under prefix and cut at
// mdLineMax, and counts the rest.
func (m *mdWriter) notes(prefix string, notes []string) {
	for i, n := range notes {
		if i == mdNotesMax {
			m.line(fmt.Sprintf("%s%d more in the full report.", prefix, len(notes)-i))
			return
		}
		m.line(prefix + mdText(clip(n, mdLineMax)) + ".")
	}
}

// table writes a table's header and as many of its rows as fit with
// keep bytes to spare (for the line that counts the rows left out); it
// returns how many rows it wrote.
func (m *mdWriter) table(rows [][]string, left, keep int) int {
	if len(rows) < 2 {
		return 0
	}
	m.limit -= keep
	defer func() { m.limit += keep }()
	head := mdTable(rows[:1], left)
	first := mdRow(rows[1])
	if !m.fits(len(head) + len(first) + 1) {
		m.dropped += len(rows) - 1
		return 0
	}
	m.b.WriteString("\n" + head + first)
	n := 1
	for _, r := range rows[2:] {
		s := mdRow(r)
		if !m.fits(len(s)) {
			break
		}
		m.b.WriteString(s)
		n++
	}
	return n
}

// finish writes what the limit left out, if anything, and the markdown.
func (m *mdWriter) finish(w io.Writer, o DiffOptions) error {
	if m.dropped > 0 {
		m.limit = MarkdownLimit
		m.line(fmt.Sprintf("\n%s left out to keep this under %s characters: %s.",
			plural(m.dropped, "line", "lines"), Group(MarkdownLimit), fullReport(o)))
	}
	_, err := io.WriteString(w, m.b.String())
	return err
}

// fullReport says where the full report is, each web address in it a
// link (escaping would break it).
func fullReport(o DiffOptions) string {
	if o.FullReport != "" {
		words := strings.Fields(clip(o.FullReport, 2*mdNameMax))
		for i, w := range words {
			if isWebAddress(w) {
				words[i] = "<" + w + ">"
			} else {
				words[i] = mdText(w)
			}
		}
		return "the full report is at " + strings.Join(words, " ")
	}
	return "the full report has them (--format json, or --format markdown --full)"
}

// isWebAddress says whether w is an http(s) address that markdown can
// take between angle brackets as it is.
func isWebAddress(w string) bool {
	if !strings.HasPrefix(w, "https://") && !strings.HasPrefix(w, "http://") {
		return false
	}
	return !strings.ContainsAny(w, "<>\"\\`") && strings.IndexFunc(w, func(r rune) bool { return r < 0x21 || r == 0x7f }) < 0
}

// comparison writes one benchmark's part: its binaries, why it has no
// verdict, its totals and processes, its changed functions.
func (m *mdWriter) comparison(c Comparison, o DiffOptions) {
	if c.Base == nil {
		m.line("")
		m.line(fmt.Sprintf("New benchmark: %s, sha256 `%s`, %s; nothing to compare it with.", mdCode(clip(c.Head.Binary, 2*mdNameMax)), short(c.Head.SHA256), c.Head.Exit))
		return
	}
	m.line(fmt.Sprintf("Binary: %s.", mdText(clip(binaryLine(c), 3*mdNameMax))))
	if len(c.Incomparable) > 0 {
		m.line("")
		m.notes("> ⚠️ cannot compare: ", c.Incomparable)
	}
	rows := [][]string{{"", "base", "head", "delta", ""}}
	for _, t := range c.Totals {
		rows = append(rows, []string{t.Name, Group(t.Base), Group(t.Head), SignedGroup(t.Change()), Percent(t.Delta)})
	}
	m.table(rows, 1, 0)
	if len(c.Processes) > 0 {
		m.line("")
		m.line(fmt.Sprintf("Processes: %s.", mdText(processSummary(c.Processes))))
		table, unchanged, left := processTable(c.Processes, true)
		m.table(table, 1, mdMoreLine)
		if left > 0 {
			m.line(fmt.Sprintf("\n%s changed: %s.", more(left, "process", "processes"), fullReport(o)))
		}
		if unchanged > 0 {
			m.line(fmt.Sprintf("\n%s unchanged.", plural(unchanged, "other process", "other processes")))
		}
	}
	if len(c.Parts) > 0 {
		table, unchanged := partTable(c.Parts)
		if len(table) > 1 {
			m.line("")
			for _, row := range table[1:] {
				row[0] = mdText(row[0])
			}
			m.table(table, 1, 0)
		}
		if unchanged > 0 {
			m.line(fmt.Sprintf("\n%s unchanged.", plural(unchanged, "part", "parts")))
		}
	}
	changed, unchanged := changedRows([]Comparison{c})
	m.functions(changed, unchanged, c.Inclusive, false, o)
	m.renames([]Comparison{c})
	if n := len(c.Ignored); n > 0 {
		m.line(fmt.Sprintf("%s ignored by the gates.", plural(n, "function", "functions")))
	}
	m.notes("Note: ", c.Notes)
}

// suite writes a suite's part: a row for each benchmark that did not stay
// unchanged, the others named, why some have no verdict, and one table of
// the changed functions of all.
func (m *mdWriter) suite(r *Report, o DiffOptions) {
	rows := [][]string{{"benchmark", "base", "head", "delta", "", "verdict"}}
	var same []string
	var why []string
	inclusive := false
	for _, c := range r.Comparisons {
		name := mdCode(clip(c.Name, mdNameMax))
		inclusive = inclusive || c.Inclusive
		for _, reason := range c.Incomparable {
			why = append(why, c.Name+": "+reason)
		}
		switch {
		case c.Verdict.Kind == VerdictUnchanged:
			same = append(same, name)

		case c.Base == nil:
			rows = append(rows, []string{name, "", "", "", "", kindWord(c.Verdict.Kind) + " (new benchmark)"})
		default:
			t := c.Totals[0]
			rows = append(rows, []string{name, Group(t.Base), Group(t.Head), SignedGroup(t.Change()), Percent(t.Delta), kindWord(c.Verdict.Kind)})
		}
	}
	shown := m.table(rows[:min(len(rows), mdBenchMax+1)], 1, mdMoreLine)
	if left := len(rows) - 1 - shown; left > 0 {
		m.line(fmt.Sprintf("\n%s changed: %s.", more(left, "benchmark", "benchmarks"), fullReport(o)))
	}
	if len(same) > 0 {
		m.line("")
		list := strings.Join(same[:min(len(same), mdNamesMax)], ", ")
		if len(same) > mdNamesMax {
			list += fmt.Sprintf(" and %d more", len(same)-mdNamesMax)
		}
		m.line(fmt.Sprintf("Unchanged: %s.", list))
	}
	if len(why) > 0 {
		m.line("")
		m.notes("> ⚠️ cannot compare ", why)
	}
	changed, unchanged := changedRows(r.Comparisons)
	m.functions(changed, unchanged, inclusive, true, o)
	m.renames(r.Comparisons)
	var notes []string
	for _, c := range r.Comparisons {
		for _, n := range c.Notes {
			notes = append(notes, c.Name+": "+n)
		}
	}
	m.notes("Note: ", notes)
}

// benchRow is a changed function of a benchmark.
type benchRow struct {
	bench string
	FunctionRow
}

// changedRows gathers the changed functions of the comparisons that have
// a base, largest change first, and counts the unchanged ones.
func changedRows(cs []Comparison) (changed []benchRow, unchanged int) {
	for _, c := range cs {
		if c.Base == nil {
			continue
		}
		for _, f := range c.Functions {
			if f.Status == "unchanged" {
				unchanged++
			} else {
				changed = append(changed, benchRow{c.Name, f})
			}
		}
	}
	slices.SortStableFunc(changed, func(a, b benchRow) int { return compareRows(a.FunctionRow, b.FunctionRow) })
	return changed, unchanged
}

// functions writes the table of the first o.Top changed functions (a
// benchmark column for a suite), and how many more changed.
func (m *mdWriter) functions(changed []benchRow, unchanged int, inclusive, suite bool, o DiffOptions) {
	if len(changed) == 0 {
		m.line("")
		m.line(fmt.Sprintf("No function changed (%s).", plural(unchanged, "function", "functions")))
		return
	}
	top := changed[:min(len(changed), o.Top)]
	calls := false
	for _, f := range top {
		calls = calls || f.Calls.Abs() != 0
	}
	head := []string{"function", "Δ self"}
	if suite {
		head = slices.Insert(head, 0, "benchmark")
	}
	if inclusive {
		head = append(head, "Δ inclusive")
	}
	if calls {
		head = append(head, "calls")
	}
	rows := [][]string{head}
	for _, f := range top {
		row := []string{functionCell(f.FunctionRow), deltaCell(f.Self)}
		if suite {
			row = slices.Insert(row, 0, mdCode(clip(f.bench, mdNameMax)))
		}
		if inclusive {
			row = append(row, deltaCell(f.Inclusive))
		}
		if calls {
			cell := ""
			if f.Calls.Abs() != 0 {
				cell = Group(f.Calls.Base) + " → " + Group(f.Calls.Head)
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	left := 1
	if suite {
		left = 2
	}
	shown := m.table(rows, left, mdMoreLine)
	m.line("")
	if left := len(changed) - shown; left > 0 {
		m.line(fmt.Sprintf("%s changed, %s unchanged: %s.", more(left, "function", "functions"), Group(uint64(unchanged)), fullReport(o)))
	} else {
		m.line(fmt.Sprintf("%s changed, %s unchanged.", plural(len(changed), "function", "functions"), Group(uint64(unchanged))))
	}
}

// functionCell names a changed function: in code, cut at mdNameMax, its
// module, whether it is new or vanished, and its budget when over it.
func functionCell(f FunctionRow) string {
	name := f.Name
	if f.Module != "" {
		name += " (" + f.Module + ")"
	}
	cell := mdCode(clip(name, mdNameMax))
	switch f.Status {
	case "new", "vanished":
		cell += " (" + f.Status + ")"
	}
	if f.OverBy != "" {
		cell = "**" + cell + " (over budget: " + mdText(clip(f.Budget, mdNameMax)) + ")**"
	}
	return cell
}

// deltaCell is a change with its percentage: "+1,234 (+2.50%)", "0".
func deltaCell(d Delta) string {
	if d.Abs() == 0 {
		return "0"
	}
	return SignedGroup(d.Change()) + " (" + Percent(d) + ")"
}

// renames names the first mdRenamesMax possible renames.
func (m *mdWriter) renames(cs []Comparison) {
	n := 0
	for _, c := range cs {
		for _, rn := range c.Renames {
			if n == mdRenamesMax {
				m.line("More possible renames are in the full report.")
				return
			}
			in := ""
			if c.Name != "" {
				in = " in " + mdCode(clip(c.Name, mdNameMax))
			}
			m.line(fmt.Sprintf("Possible rename%s: %s → %s (same cost: %s instructions).", in, mdCode(clip(rn.From, mdNameMax)), mdCode(clip(rn.To, mdNameMax)), Group(rn.Self)))
			n++
		}
	}
}

// more counts what was left out: "1 more function", "3 more functions".
func more(n int, one, many string) string {
	if n == 1 {
		return "1 more " + one
	}
	return Group(uint64(n)) + " more " + many
}

// clip cuts s to at most max bytes on a character boundary, marking the
// cut with an ellipsis.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

var verdictMark = map[string]string{
	VerdictRegression: "❌", VerdictNone: "⚠️", VerdictChanged: "🔺",
	VerdictImproved: "✅", VerdictUnchanged: "✅",
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
		b.WriteString(mdRow(r))
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

// mdRow writes one row of a table.
func mdRow(cells []string) string {
	var b strings.Builder
	b.WriteString("|")
	for _, cell := range cells {
		b.WriteString(" " + cell + " |")
	}
	b.WriteString("\n")
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
