package report

import (
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	g, err := ParseConfig("icount.toml", []byte(`
fail_above = "0.5%"
ignore = ["_dl_*", "__libc_start_main"]

[budget]
parse_header = "+2%"
hash = 1000
"std::vector<int>::push_back" = "+1_000"
lookup = { self = "0", inclusive = "+5%" }
`))
	if err != nil {
		t.Fatal(err)
	}
	if g.FailAbove.String() != "+0.5%" || !g.FailAbove.Relative {
		t.Errorf("fail_above %v", g.FailAbove)
	}
	for fn, want := range map[string]string{"parse_header": "self +2%", "hash": "self +1000",
		"std::vector<int>::push_back": "self +1000", "lookup": "self 0, inclusive +5%"} {
		if got := g.Budgets[fn].String(); got != want {
			t.Errorf("budget %s = %q, want %q", fn, got, want)
		}
	}
	if !g.Ignored("_dl_relocate") || !g.Ignored("__libc_start_main") || g.Ignored("main") {
		t.Errorf("ignore patterns misapplied")
	}
}

// TestParseConfigRejects: every malformed file is refused with its name
// and the problem.
func TestParseConfigRejects(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{`fail_above = `, "line 1"},
		{`fail_above = "x%"`, `fail_above: limit "x%": want a percentage`},
		{`fail_above = "-1%"`, "negative"},
		{`fail_above = -5`, "negative"},
		{`fail_above = 0.5`, "a float"},
		{`fail_above = "1e3%"`, "want a percentage"},
		{`fail_above = "1/3%"`, "want a percentage"},
		{`fail_above = "lots"`, "want instructions"},
		{`fail_abvoe = "1%"`, `unknown key "fail_abvoe"`},
		{"[budgets]\nmain = \"1%\"", `unknown key "budgets"`},
		{"[budget]\nmain = \"two\"", `budget for "main": limit "two"`},
		{"[budget]\nmain = true", `budget for "main": want a string`},
		{"[budget]\nmain = { self = \"1%\", incl = \"2%\" }", `unknown key "incl"`},
		{"[budget]\nmain = {}", "empty"},
		{"[budget]\n\"\" = \"1%\"", "empty function name"},
		{`ignore = ["[a-"]`, `ignore: bad pattern "[a-"`},
		{`ignore = "main"`, "line 1"},
		{"[budget]\nmain = \"1%\"\nmain = \"2%\"", "line 3"},
	} {
		_, err := ParseConfig("icount.toml", []byte(c.in))
		if err == nil || !strings.HasPrefix(err.Error(), "icount.toml: ") || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseConfig(%q) = %v, want an error naming the file with %q", c.in, err, c.msg)
		}
	}
}

func TestLimitAllows(t *testing.T) {
	for _, c := range []struct {
		limit      string
		base, head uint64
		want       bool
	}{
		{"+2%", 100, 102, true}, {"+2%", 100, 103, false}, {"2%", 100, 50, true},
		{"0.5%", 1000, 1005, true}, {"0.5%", 1000, 1006, false}, {"0%", 0, 0, true}, {"0%", 0, 1, false},
		{"+1000", 0, 1000, true}, {"+1000", 5, 1006, false}, {"0", 10, 10, true}, {"0", 10, 11, false},
		{"+1%", 18_000_000_000_000_000_000, 18_180_000_000_000_000_000, true},
	} {
		if got := mustLimit(t, c.limit).Allows(c.base, c.head); got != c.want {
			t.Errorf("%s allows %d -> %d: %v, want %v", c.limit, c.base, c.head, got, c.want)
		}
	}
}

func TestParseSuite(t *testing.T) {
	s, err := ParseSuite("bench.toml", []byte(`
[[bench]]
name = "crunch"
binary = "build/crunch"
args = ["-n", "3"]

[[bench]]
name = "text.stat"
binary = "build/textstat"
stdin = "data/in.txt"
env = ["MODE=fast"]
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Benches) != 2 || s.Benches[0].Args[1] != "3" || s.Benches[1].Stdin != "data/in.txt" || s.Benches[1].Env[0] != "MODE=fast" {
		t.Errorf("parsed %+v", s)
	}
}

func TestParseSuiteRejects(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{``, "no benchmarks"},
		{`[[bench]]`, "benchmark 1: no name"},
		{"[[bench]]\nname = \"a\"", `benchmark "a": no binary`},
		{"[[bench]]\nname = \"../a\"\nbinary = \"x\"", "only letters"},
		{"[[bench]]\nname = \"a\"\nbinary = \"x\"\n[[bench]]\nname = \"a\"\nbinary = \"y\"", "used twice (benchmarks 1 and 2)"},
		{"[[bench]]\nname = \"a\"\nbinary = \"x\"\nenv = [\"NOEQUALS\"]", `env entry "NOEQUALS"`},
		{"[[bench]]\nname = \"a\"\nbinary = \"x\"\nargv = [\"1\"]", `unknown key "bench.argv"`},
		{"[[bench]]\nname = \"a\"\nbinary = 3", "line 3"},
		{"[bench]\nname = \"a\"", "line 1"},
		{"[[bench]\n", "line 2"},
	} {
		_, err := ParseSuite("bench.toml", []byte(c.in))
		if err == nil || !strings.HasPrefix(err.Error(), "bench.toml: ") || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseSuite(%q) = %v, want an error naming the file with %q", c.in, err, c.msg)
		}
	}
}
