package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/diff")

// profile builds a Profile of the binary "bench" with the given functions
// (name, self) and a total that is their sum.
func newProfile(sha string, fns ...profile.FunctionCount) *profile.Profile {
	p := &profile.Profile{
		Schema: profile.Schema,
		Meta: profile.Meta{
			Settings: profile.Settings{IcountVersion: "1.0", UnicornVersion: "2.1.1", Arch: "x86_64", CPUModel: "qemu64", Args: []string{"bench", "-n", "3"}, Env: []string{}, Clock: profile.Clock{Mode: "host"}},
			Inputs: profile.Inputs{Cwd: "/w/base", Stdio: []string{"pipe", "pipe", "pipe"}, Files: []profile.InputFile{
				{Path: "/w/base/bench.py", Size: 3, SHA256: "ab34"}, {Path: "/etc/bench.conf", Size: 10, SHA256: "ab12"}}},
			Record: profile.Record{Binary: profile.Binary{Path: "build/bench", Size: 4096, SHA256: sha}}},
		Syscalls:  map[string]uint64{"write": 1, "exit_group": 1},
		Functions: fns,
		Exit:      profile.Exit{Status: 0, Complete: true},
	}
	for _, f := range fns {
		p.Totals.Instructions += f.Self
	}
	p.Totals.Blocks = p.Totals.Instructions / 4
	p.Totals.DistinctBlocks = uint64(10 * len(fns))
	p.Totals.Syscalls = 2
	return oneProcess(p)
}

func fn(name string, self uint64) profile.FunctionCount {
	return profile.FunctionCount{Name: name, Module: "bench", Self: self}
}

// sized gives f a size in bytes.
func sized(f profile.FunctionCount, size uint64) profile.FunctionCount {
	f.Size = size
	return f
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
	b := newProfile(shaA, fn("main", 6_089_550), fn("merge_sort", 711_238), fn("push", 75_076),
		sized(fn("old_name", 16_193), 120), fn("__memcpy_fwd", 71_412), fn("_start", 20))
	h := newProfile(shaB, fn("main", 6_089_750), fn("merge_sort", 711_000), fn("push", 75_076),
		sized(fn("new_name", 16_193), 124), fn("__memcpy_fwd", 71_512), fn("_start", 20))
	gates := &Gates{FailAbove: mustLimit(t, "0.0001%"), Ignore: []string{"__memcpy*"},
		Budgets: map[string]Budget{"main": {Self: mustLimit(t, "+100")}, "push": {Self: mustLimit(t, "+1%")}}}
	regression := Compare(base, head, []Pair{{Base: b, Head: h}}, gates)

	// The same binary on both sides.
	same := newProfile(shaA, fn("main", 1000), fn("helper", 234))
	unchanged := Compare(base, head, []Pair{{Base: same, Head: same}}, nil)

	// An improvement, with inclusive counts and calls (attribution).
	bi := newProfile(shaA, profile.FunctionCount{Name: "main", Self: 500, Inclusive: 10_500, Calls: 1},
		profile.FunctionCount{Name: "work", Self: 10_000, Inclusive: 10_000, Calls: 100})
	hi := newProfile(shaB, profile.FunctionCount{Name: "main", Self: 500, Inclusive: 9_500, Calls: 1},
		profile.FunctionCount{Name: "work", Self: 9_000, Inclusive: 9_000, Calls: 90})
	improved := Compare(Side{Label: "base.json"}, Side{Label: "head.json"}, []Pair{{Base: bi, Head: hi}}, nil)

	// Not comparable: other arguments, and the head read the host clock.
	hn := newProfile(shaB, fn("main", 1000), fn("helper", 300))
	hn.Meta.Args = []string{"bench", "-n", "4"}
	hn.Meta.ClockUse.Reads = 3
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

// goldenFormats are the forms of a Report the golden files hold: the
// markdown both bounded (a comment) and full (a file).
var goldenFormats = []struct {
	format, ext string
	opts        DiffOptions
}{{"text", "txt", DiffOptions{}}, {"markdown", "md", DiffOptions{}}, {"markdown", "full.md", DiffOptions{Full: true}}, {"json", "json", DiffOptions{}}}

func TestDiffGolden(t *testing.T) {
	for name, r := range scenarios(t) {
		for _, f := range goldenFormats {
			var b bytes.Buffer
			if err := WriteDiff(&b, r, f.format, f.opts); err != nil {
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
	b, h := newProfile(shaA, fn("main", 100)), newProfile(shaB, fn("main", 101))
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

// TestComparability: each setting or input that differs is named, and
// nothing else is.
func TestComparability(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(p *profile.Profile)
		want   string
	}{
		{"args", func(p *profile.Profile) { p.Meta.Args = []string{"bench", "-n", "4"} }, `arguments differ: base ["bench","-n","3"], head ["bench","-n","4"]`},
		{"env", func(p *profile.Profile) { p.Meta.Env = []string{"A=1"} }, "environments (--env) differ"},
		{"arch", func(p *profile.Profile) { p.Meta.Arch = "aarch64" }, `guest architectures differ: base "x86_64", head "aarch64"`},
		{"version", func(p *profile.Profile) { p.Meta.IcountVersion = "1.1" }, `icount versions differ: base "1.0", head "1.1"`},
		{"unicorn", func(p *profile.Profile) { p.Meta.UnicornVersion = "2.1.2" }, "Unicorn versions differ"},
		{"cpu model", func(p *profile.Profile) { p.Meta.CPUModel = "max" }, "CPU models differ"},
		{"seed", func(p *profile.Profile) { p.Meta.Seed = 7 }, "seeds (--seed) differ: base 0, head 7"},
		{"cpus", func(p *profile.Profile) { p.Meta.CPUs = 4 }, "CPU counts (--cpus) differ: base 0, head 4"},
		{"quantum", func(p *profile.Profile) { p.Meta.Quantum = 5000 }, "quanta (--quantum) differ: base 0, head 5000"},
		{"sysroot", func(p *profile.Profile) { p.Meta.Sysroot = "/usr/aarch64-linux-gnu" }, `sysroots (--sysroot) differ: base (none), head "/usr/aarch64-linux-gnu"`},
		{"tmp", func(p *profile.Profile) { p.Meta.HostTmp = true }, "guests' /tmp (--host-tmp) differ: base false, head true"},
		{"clock mode", func(p *profile.Profile) { p.Meta.Clock.Mode = "fixed" }, `clock modes differ: base "host", head "fixed"`},
		{"clock step", func(p *profile.Profile) { p.Meta.Clock.StepNs = 5 }, "clock steps (--clock-step) differ: base 0, head 5"},
		{"clock table", func(p *profile.Profile) { p.Meta.Clock.TableSHA256 = "22" }, `clock tables (by SHA-256) differ: base (none), head "22"`},
		{"counter", func(p *profile.Profile) { p.Meta.Clock.CounterHz = 1e9 }, "counter frequencies differ"},
		{"collect", func(p *profile.Profile) { p.Region = &profile.Region{Functions: []string{"work"}} }, `the regions collected (--collect) differ: base (none), head ["work"]`},
		{"not pinned", func(p *profile.Profile) { p.Meta.ClockUse.Reads = 2 }, "the head run is not pinned: it read the host clock 2 times"},
		{"partial", func(p *profile.Profile) { p.Exit.Complete, p.Exit.Reason = false, profile.StopTimeout }, "the head run was stopped early (timeout)"},
		{"exit", func(p *profile.Profile) { p.Exit.Status = 1 }, "the runs ended differently: base exit 0, head exit 1"},
		{"stdout", func(p *profile.Profile) { p.Meta.Stdio = []string{"pipe", "terminal", "pipe"} }, "stdout differs: base a pipe, head a terminal"},
		{"cwd read", func(p *profile.Profile) { p.Meta.Cwd, p.Meta.CwdRead = "/w/head", true }, "the working directories differ and the program read its own (getcwd): base /w/base, head /w/head"},
		{"input", func(p *profile.Profile) { p.Meta.Files[1].SHA256 = "ef56" }, "input file the program read changed: /etc/bench.conf (base 10 bytes, SHA-256 ab12; head 10 bytes, ef56)"},
	} {
		b, h := newProfile(shaA, fn("main", 1)), newProfile(shaB, fn("main", 1))
		c.change(h)
		why, notes := Comparability(b, h, nil)
		if len(why) != 1 || !strings.Contains(why[0], c.want) || len(notes) != 0 {
			t.Errorf("%s: got %q (notes %q), want one reason with %q", c.name, why, notes, c.want)
		}
		if r := Compare(Side{}, Side{}, []Pair{{Base: b, Head: h}}, nil); r.Verdict.Kind != VerdictNone {
			t.Errorf("%s: verdict %+v, want none", c.name, r.Verdict)
		}
	}
	// Facts may differ: the binary, the files only one side opened, how
	// often a pinned clock was read, the name of each run's own /tmp and
	// of its clock table, the working directory when the program did not
	// read it.
	b, h := newProfile(shaA, fn("main", 1)), newProfile(shaB, fn("main", 1))
	h.Meta.Binary.Path = "/elsewhere/bench"
	h.Meta.Files = append(h.Meta.Files, profile.InputFile{Path: "/etc/other", Size: 1, SHA256: "99"})
	b.Meta.Tmp, h.Meta.Tmp = "/tmp/icount-tmp-1", "/tmp/icount-tmp-2"
	b.Meta.Clock.Mode, h.Meta.Clock.Mode, h.Meta.ClockUse.Reads = "fixed", "fixed", 9
	b.Meta.Clock.Table, h.Meta.Clock.Table = "a/t.txt", "b/t.txt"
	h.Meta.Cwd = "/w/head"
	if why, notes := Comparability(b, h, nil); len(why) != 0 || len(notes) != 0 {
		t.Errorf("facts counted as settings: %q, notes %q", why, notes)
	}
	// A file under the code compared (the working directory both ran in,
	// or ab's tree) that changed is code: a note, and a verdict.
	b, h = newProfile(shaA, fn("main", 1)), newProfile(shaA, fn("main", 2))
	h.Meta.Files[0].SHA256 = "cd34"
	r := Compare(Side{}, Side{}, []Pair{{Base: b, Head: h}}, nil)
	if c := r.Comparisons[0]; r.Verdict.Kind != VerdictChanged || len(c.Notes) != 1 || c.Notes[0] != "1 file of the code compared changed: /w/base/bench.py" {
		t.Errorf("code changed: %+v, notes %q", r.Verdict, c.Notes)
	}
	b.Meta.Cwd, h.Meta.Cwd = "/w/b", "/w/h"
	b.Meta.Files[0].Path, h.Meta.Files[0].Path = "/tree/bench.py", "/tree/bench.py"
	tree := Side{Tree: "/tree"}
	if r := Compare(tree, tree, []Pair{{Base: b, Head: h}}, nil); r.Verdict.Kind != VerdictChanged {
		t.Errorf("code in ab's tree changed: %+v", r.Verdict)
	}
	// Identical binaries and inputs whose counts differ: icount's fault.
	b, h = newProfile(shaA, fn("main", 1)), newProfile(shaA, fn("main", 2))
	if r := Compare(Side{}, Side{}, []Pair{{Base: b, Head: h}}, nil); r.Verdict.Kind != VerdictNone ||
		!strings.Contains(r.Verdict.Line, "the runs were not deterministic, an icount bug") {
		t.Errorf("nondeterminism: %+v", r.Verdict)
	}
}

// TestSettingsAllCompared: every field of the settings is compared (or
// named as not compared), so that a setting added later is too.
func TestSettingsAllCompared(t *testing.T) {
	for _, c := range []struct {
		typ  reflect.Type
		keys []string
	}{
		{reflect.TypeOf(profile.Settings{}), func() (k []string) {
			for _, s := range settings {
				k = append(k, s.key)
			}
			return
		}()},
		{reflect.TypeOf(profile.Clock{}), func() (k []string) {
			for _, s := range clockSettings {
				k = append(k, s.key)
			}
			return
		}()},
	} {
		var tags []string
		for i := range c.typ.NumField() {
			tags = append(tags, strings.Split(c.typ.Field(i).Tag.Get("json"), ",")[0])
		}
		if !slices.Equal(tags, c.keys) {
			t.Errorf("%s: fields %q, compared %q", c.typ, tags, c.keys)
		}
	}
}

// TestCountOnlySide: a --count-only run against a full one compares the
// self costs both have, not the inclusive costs one lacks.
func TestCountOnlySide(t *testing.T) {
	b := newProfile(shaA, profile.FunctionCount{Name: "main", Module: "bench", Self: 10, Inclusive: 30, Calls: 1}, fn("work", 20))
	h := newProfile(shaA, fn("main", 10), fn("work", 20))
	h.Meta.CountOnly = true
	r := Compare(Side{}, Side{}, []Pair{{Base: b, Head: h}}, nil)
	if c := r.Comparisons[0]; r.Verdict.Kind != VerdictUnchanged || len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "the head run was --count-only") {
		t.Errorf("count-only: %+v, notes %q", r.Verdict, c.Notes)
	}
}

// TestDeltaNoWrap: a change near 2^64 neither wraps nor changes sign.
func TestDeltaNoWrap(t *testing.T) {
	for _, c := range []struct {
		d    Delta
		want int64
	}{
		{Delta{0, profile.MaxCount}, profile.MaxCount},
		{Delta{profile.MaxCount, 0}, -profile.MaxCount},
		{Delta{0, math.MaxUint64}, math.MaxInt64},
		{Delta{math.MaxUint64, 0}, -math.MaxInt64},
		{Delta{5, 3}, -2},
	} {
		if got := c.d.Change(); got != c.want {
			t.Errorf("%+v: change %d, want %d", c.d, got, c.want)
		}
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

// TestRenames: a vanished and a new function are called a possible rename
// only when they are of the same module, cost exactly the same and have a
// similar size, and the two Profiles are of one arch.
func TestRenames(t *testing.T) {
	with := func(f profile.FunctionCount, module string) profile.FunctionCount {
		f.Module = module
		return f
	}
	base := []profile.FunctionCount{fn("main", 100)}
	for _, c := range []struct {
		name     string
		from, to profile.FunctionCount
		headArch string
		want     bool
	}{
		{"same module, cost and size", sized(fn("old", 50), 100), sized(fn("new", 50), 100), "x86_64", true},
		{"a quarter larger", sized(fn("old", 50), 100), sized(fn("new", 50), 133), "x86_64", true},
		{"a third larger", sized(fn("old", 50), 100), sized(fn("new", 50), 150), "x86_64", false},
		{"sizes unknown", fn("old", 50), fn("new", 50), "x86_64", false},
		{"other cost", sized(fn("old", 50), 100), sized(fn("new", 51), 100), "x86_64", false},
		{"other module", sized(with(fn("old", 50), "libc.so.6"), 100), sized(with(fn("new", 50), "libm.so.6"), 100), "x86_64", false},
		// The case: a diff of an x86-64 and an arm64 Profile.
		{"other arch", sized(fn("memcmp_ifunc", 6), 104), sized(fn("__getauxval", 6), 116), "aarch64", false},
	} {
		b := newProfile(shaA, append(slices.Clone(base), c.from)...)
		h := newProfile(shaB, append(slices.Clone(base), c.to)...)
		h.Meta.Arch = c.headArch
		r := Compare(Side{Label: "a"}, Side{Label: "b"}, []Pair{{Base: b, Head: h}}, nil)
		got := r.Comparisons[0].Renames
		if c.want != (len(got) == 1) {
			t.Errorf("%s: renames %v, want one: %v", c.name, got, c.want)
		}
	}
}

// TestSettingsNamed: the line saying that a setting differs names it,
// whichever setting it is, and says "(none)" for a side without it.
func TestSettingsNamed(t *testing.T) {
	var other func(v reflect.Value)
	other = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			v.SetString("other")
		case reflect.Slice:
			v.Set(reflect.Append(reflect.MakeSlice(v.Type(), 0, 1), reflect.Zero(v.Type().Elem())))
		case reflect.Bool:
			v.SetBool(!v.Bool())
		case reflect.Int, reflect.Int64:
			v.SetInt(v.Int() + 7)
		case reflect.Uint, reflect.Uint64:
			v.SetUint(v.Uint() + 7)
		case reflect.Pointer:
			p := reflect.New(v.Type().Elem())
			other(p.Elem())
			v.Set(p)
		default:
			t.Fatalf("a setting of kind %s: teach this test to change it", v.Kind())
		}
	}
	field := func(v reflect.Value, key string) reflect.Value {
		for i := range v.NumField() {
			if strings.Split(v.Type().Field(i).Tag.Get("json"), ",")[0] == key {
				return v.Field(i)
			}
		}
		t.Fatalf("no field %s in %s", key, v.Type())
		return reflect.Value{}
	}
	check := func(key, words string, change func(h *profile.Profile)) {
		b, h := newProfile(shaA, fn("main", 1)), newProfile(shaA, fn("main", 1))
		b.Meta.Sysroot = ""
		change(h)
		why, _ := Comparability(b, h, nil)
		if words == "" || len(why) != 1 || !strings.HasPrefix(why[0], words+" differ: base ") {
			t.Errorf("%s: %q, want one line naming it (%q)", key, why, words)
		}
	}
	for _, s := range settings {
		if s.value != nil {
			check(s.key, s.words, func(h *profile.Profile) { other(field(reflect.ValueOf(&h.Meta.Settings).Elem(), s.key)) })
		}
	}
	for _, c := range clockSettings {
		if c.value != nil {
			check(c.key, c.words, func(h *profile.Profile) { other(field(reflect.ValueOf(&h.Meta.Clock).Elem(), c.key)) })
		}
	}
	b, h := newProfile(shaA, fn("main", 1)), newProfile(shaA, fn("main", 1))
	h.Meta.Arch, h.Meta.Sysroot = "aarch64", "/usr/aarch64-linux-gnu"
	why, _ := Comparability(b, h, nil)
	want := []string{`guest architectures differ: base "x86_64", head "aarch64"`, `sysroots (--sysroot) differ: base (none), head "/usr/aarch64-linux-gnu"`}
	if !slices.Equal(why, want) {
		t.Errorf("x86-64 and arm64: %q, want %q", why, want)
	}
}
