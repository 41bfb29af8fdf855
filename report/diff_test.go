package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icount-dev/icount/count"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/diff")

// profile builds a Profile of the binary "bench" with the given functions
// (name, self) and a total that is their sum.
func profile(sha string, fns ...count.FunctionCount) *count.Profile {
	p := &count.Profile{
		Schema: count.Schema,
		Meta: count.Meta{IcountVersion: "1.0", UnicornVersion: "2.1.1", Arch: "x86_64", CPUModel: "qemu64",
			Binary: count.Binary{Path: "build/bench", Size: 4096, SHA256: sha},
			Args:   []string{"bench", "-n", "3"}, Env: []string{}, Clock: count.Clock{Mode: "host"}},
		Syscalls:  map[string]uint64{"write": 1, "exit_group": 1},
		Functions: fns,
		Exit:      count.Exit{Status: 0, Complete: true},
	}
	for _, f := range fns {
		p.Totals.Instructions += f.Self
	}
	p.Totals.Blocks = p.Totals.Instructions / 4
	p.Totals.DistinctBlocks = uint64(10 * len(fns))
	p.Totals.Syscalls = 2
	return p
}

func fn(name string, self uint64) count.FunctionCount {
	return count.FunctionCount{Name: name, Module: "bench", Self: self}
}

const shaA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
const shaB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

func mustLimit(t *testing.T, s string) *Limit {
	t.Helper()
	l, err := ParseLimit(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// scenarios are the reports the golden files hold.
func scenarios(t *testing.T) map[string]*Report {
	base := Side{Label: "HEAD~1", Commit: "1111111111ab"}
	head := Side{Label: "HEAD", Commit: "2222222222cd"}

	// A regression: one function grew over its budget and past the total
	// limit, one was renamed, one improved, the rest did not move.
	b := profile(shaA, fn("main", 6_089_550), fn("merge_sort", 711_238), fn("push", 75_076),
		fn("old_name", 16_193), fn("__memcpy_fwd", 71_412), fn("_start", 20))
	h := profile(shaB, fn("main", 6_089_750), fn("merge_sort", 711_000), fn("push", 75_076),
		fn("new_name", 16_193), fn("__memcpy_fwd", 71_512), fn("_start", 20))
	gates := &Gates{FailAbove: mustLimit(t, "0.0001%"), Ignore: []string{"__memcpy*"},
		Budgets: map[string]Budget{"main": {Self: mustLimit(t, "+100")}, "push": {Self: mustLimit(t, "+1%")}}}
	regression := Compare(base, head, []Pair{{Base: b, Head: h}}, gates)

	// The same binary on both sides.
	same := profile(shaA, fn("main", 1000), fn("helper", 234))
	unchanged := Compare(base, head, []Pair{{Base: same, Head: same}}, nil)

	// An improvement, with inclusive counts and calls (attribution).
	bi := profile(shaA, count.FunctionCount{Name: "main", Self: 500, Inclusive: 10_500, Calls: 1},
		count.FunctionCount{Name: "work", Self: 10_000, Inclusive: 10_000, Calls: 100})
	hi := profile(shaB, count.FunctionCount{Name: "main", Self: 500, Inclusive: 9_500, Calls: 1},
		count.FunctionCount{Name: "work", Self: 9_000, Inclusive: 9_000, Calls: 90})
	improved := Compare(Side{Label: "base.json"}, Side{Label: "head.json"}, []Pair{{Base: bi, Head: hi}}, nil)

	// Not comparable: other arguments, and the head read the host clock.
	hn := profile(shaB, fn("main", 1000), fn("helper", 300))
	hn.Meta.Args = []string{"bench", "-n", "4"}
	hn.Meta.Clock.Reads = 3
	incomparable := Compare(base, head, []Pair{{Base: same, Head: hn}}, gates)

	// A suite: one regressed, one unchanged, one new.
	suite := Compare(base, head, []Pair{
		{Name: "crunch", Base: b, Head: h},
		{Name: "empty", Base: same, Head: same},
		{Name: "fresh", Head: same},
	}, gates)

	return map[string]*Report{"regression": regression, "unchanged": unchanged, "improved": improved,
		"incomparable": incomparable, "suite": suite}
}

func TestDiffGolden(t *testing.T) {
	for name, r := range scenarios(t) {
		for _, f := range []struct{ format, ext string }{{"text", "txt"}, {"markdown", "md"}, {"json", "json"}} {
			var b bytes.Buffer
			if err := WriteDiff(&b, r, f.format); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "diff", name+"."+f.ext)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./report -update to create it)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("%s differs from the golden file; got:\n%s", golden, b.String())
			}
		}
	}
}

func TestDiffVerdicts(t *testing.T) {
	s := scenarios(t)
	for name, want := range map[string]string{"regression": VerdictRegression, "unchanged": VerdictUnchanged,
		"improved": VerdictImproved, "incomparable": VerdictNone, "suite": VerdictRegression} {
		if got := s[name].Verdict.Kind; got != want {
			t.Errorf("%s: verdict %q, want %q (%s)", name, got, want, s[name].Verdict.Line)
		}
	}
	r := s["regression"].Comparisons[0]
	if len(r.Failures) != 2 || !strings.Contains(r.Failures[0], "total instructions +62 (+<0.01%) is above the limit +0.0001%") || !strings.HasPrefix(r.Failures[1], "main: self +200") {
		t.Errorf("failures: %q", r.Failures)
	}
	if len(r.Renames) != 1 || r.Renames[0] != (Rename{From: "old_name", To: "new_name", Self: 16_193}) {
		t.Errorf("renames: %+v", r.Renames)
	}
	if len(r.Ignored) != 1 || r.Ignored[0].Name != "__memcpy_fwd" {
		t.Errorf("ignored: %+v", r.Ignored)
	}
	// Largest absolute change first: the renamed pair (16,193 each), then
	// merge_sort -238, main +200; unchanged functions last, largest first.
	var order []string
	for _, f := range r.Functions {
		order = append(order, f.Name+":"+f.Status)
	}
	if got := strings.Join(order, " "); got != "new_name:new old_name:vanished merge_sort:changed main:changed push:unchanged _start:unchanged" {
		t.Errorf("order: %s", got)
	}
	if !strings.Contains(s["unchanged"].Verdict.Line, "binaries are identical") {
		t.Errorf("unchanged verdict: %s", s["unchanged"].Verdict.Line)
	}
}

// TestDiffNoGateNoFailure: growth with no gate set is reported, not failed;
// an improvement never fails, even at fail_above 0.
func TestDiffNoGateNoFailure(t *testing.T) {
	b, h := profile(shaA, fn("main", 100)), profile(shaB, fn("main", 101))
	if v := Compare(Side{}, Side{}, []Pair{{Base: b, Head: h}}, nil).Verdict; v.Kind != VerdictChanged || !strings.Contains(v.Line, "no gate") {
		t.Errorf("no gates: %+v", v)
	}
	zero := &Gates{FailAbove: mustLimit(t, "0"), Budgets: map[string]Budget{"main": {Self: mustLimit(t, "0")}}}
	if v := Compare(Side{}, Side{}, []Pair{{Base: h, Head: b}}, zero).Verdict; v.Kind != VerdictImproved {
		t.Errorf("improvement at limit 0: %+v", v)
	}
	if v := Compare(Side{}, Side{}, []Pair{{Base: b, Head: h}}, zero).Verdict; v.Kind != VerdictRegression {
		t.Errorf("one instruction more at limit 0: %+v", v)
	}
}

// TestComparability: each setting that differs is named, and nothing
// else is.
func TestComparability(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(p *count.Profile)
		want   string
	}{
		{"args", func(p *count.Profile) { p.Meta.Args = []string{"bench", "-n", "4"} }, `arguments differ: base ["bench","-n","3"], head ["bench","-n","4"]`},
		{"env", func(p *count.Profile) { p.Meta.Env = []string{"A=1"} }, "environments differ"},
		{"arch", func(p *count.Profile) { p.Meta.Arch = "aarch64" }, `guest architectures differ: base "x86_64", head "aarch64"`},
		{"version", func(p *count.Profile) { p.Meta.IcountVersion = "1.1" }, "icount versions differ"},
		{"unicorn", func(p *count.Profile) { p.Meta.UnicornVersion = "2.1.2" }, "Unicorn versions differ"},
		{"seed", func(p *count.Profile) { p.Meta.Seed = 7 }, "seeds differ: base 0, head 7"},
		{"quantum", func(p *count.Profile) { p.Meta.Quantum = 5000 }, "quanta (--quantum) differ: base (none), head 5000"},
		{"clock mode", func(p *count.Profile) { p.Meta.Clock.Mode = "fixed" }, `clock modes differ: base "host", head "fixed"`},
		{"not pinned", func(p *count.Profile) { p.Meta.Clock.Reads = 2 }, "the head run is not pinned: it read the host clock 2 times"},
		{"partial", func(p *count.Profile) { p.Exit.Complete = false }, "the head run was stopped early"},
		{"exit", func(p *count.Profile) { p.Exit.Status = 1 }, "the runs ended differently: base exit 0, head exit 1"},
		{"tmp", func(p *count.Profile) { p.Meta.Tmp = "/tmp/icount-tmp-1" }, "the guests' /tmp differ: base the host's (--host-tmp), head the run's own"},
	} {
		b, h := profile(shaA, fn("main", 1)), profile(shaB, fn("main", 1))
		c.change(h)
		why := Comparability(b, h)
		if len(why) != 1 || !strings.Contains(why[0], c.want) {
			t.Errorf("%s: got %q, want one reason with %q", c.name, why, c.want)
		}
		if r := Compare(Side{}, Side{}, []Pair{{Base: b, Head: h}}, nil); r.Verdict.Kind != VerdictNone {
			t.Errorf("%s: verdict %+v, want none", c.name, r.Verdict)
		}
	}
	// Outcomes may differ: the binary, the files opened, how often a
	// pinned clock was read, the name of each run's own /tmp.
	b, h := profile(shaA, fn("main", 1)), profile(shaB, fn("main", 1))
	h.Meta.Binary.Path, h.Meta.FilesOpened = "/elsewhere/bench", []string{"in.txt"}
	b.Meta.Tmp, h.Meta.Tmp = "/tmp/icount-tmp-1", "/tmp/icount-tmp-2"
	b.Meta.Clock.Mode, h.Meta.Clock.Mode, h.Meta.Clock.Reads = "fixed", "fixed", 9
	if why := Comparability(b, h); len(why) != 0 {
		t.Errorf("outcomes counted as settings: %q", why)
	}
}

// TestClockTableDiffers: clock settings are compared generically, a table
// by its digest whatever its path.
func TestClockTableDiffers(t *testing.T) {
	b := map[string]any{"mode": "fixed", "table": "a/t.txt", "table_sha256": "11", "reads": 3.0}
	h := map[string]any{"mode": "fixed", "table": "b/t.txt", "table_sha256": "11", "reads": 5.0}
	if why := clockDiffs(b, h, "clock"); len(why) != 0 {
		t.Errorf("same table in two places: %q", why)
	}
	h["table_sha256"] = "22"
	if why := clockDiffs(b, h, "clock"); len(why) != 1 || !strings.Contains(why[0], "clock.table_sha256 differ") {
		t.Errorf("other table: %q", why)
	}
	nb := map[string]any{"table": map[string]any{"path": "x", "sha256": "1"}, "step": 1.0}
	nh := map[string]any{"table": map[string]any{"path": "y", "sha256": "1"}, "step": 2.0}
	if why := clockDiffs(nb, nh, "clock"); len(why) != 1 || !strings.Contains(why[0], "clock.step differ: base 1, head 2") {
		t.Errorf("nested table, other step: %q", why)
	}
}

// TestDiffJSONRoundTrip: the JSON form carries every delta with its change.
func TestDiffJSONRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := DiffJSON(&b, scenarios(t)["regression"]); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Verdict    Verdict `json:"verdict"`
		Benchmarks []struct {
			Functions []struct {
				Name string `json:"name"`
				Self struct {
					Change int64 `json:"change"`
				} `json:"self"`
			} `json:"functions"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Verdict.Kind != VerdictRegression || back.Benchmarks[0].Functions[3].Name != "main" || back.Benchmarks[0].Functions[3].Self.Change != 200 {
		t.Errorf("decoded %+v", back)
	}
}

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		d    Delta
		want string
	}{
		{Delta{100, 100}, "0%"}, {Delta{0, 5}, "new"}, {Delta{5, 0}, "-100.00%"}, {Delta{100, 101}, "+1.00%"},
		{Delta{1_000_000, 1_000_001}, "+<0.01%"}, {Delta{1_000_001, 1_000_000}, "-<0.01%"}, {Delta{10, 1000}, "+9900%"},
		{Delta{10_000, 10_001}, "+0.01%"},
	} {
		if got := Percent(c.d); got != c.want {
			t.Errorf("Percent(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
