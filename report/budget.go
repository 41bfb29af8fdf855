package report

import (
	"fmt"
	"math/big"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Gates say what makes a comparison a regression. They live in the
// repository (icount.toml) so that thresholds are set in review:
//
//	fail_above = "1%"               # total instructions; or "+5000"
//	ignore = ["__libc_start_main", "_dl_*"]
//
//	[budget]
//	parse_header = "+2%"            # its self count may grow by 2%
//	hash = "+1000"                  # ... or by 1000 instructions
//	lookup = { self = "0", inclusive = "+5%" }
//
// Improvements never fail a gate.
type Gates struct {
	// FailAbove limits the growth of the total instruction count; nil
	// sets no limit.
	FailAbove *Limit
	// Budgets limit the growth of single functions, by name.
	Budgets map[string]Budget
	// Ignore lists functions (path.Match patterns) left out of the
	// per-function report and its budgets; the totals still count them.
	Ignore []string
}

// Budget is how much one function may grow.
type Budget struct {
	Self      *Limit // instructions in its own code
	Inclusive *Limit // its own and its callees'
}

// Limit is an allowed growth: a percentage of the base count, or an
// absolute number of instructions.
type Limit struct {
	Relative bool
	Percent  *big.Rat // when Relative
	Abs      uint64   // otherwise
	text     string
}

// String is the limit as written, normalised: "+2%", "+1000", "0".
func (l *Limit) String() string { return l.text }

// Allows reports whether growing from base to head stays within the limit.
// Exact: the percentage is compared as a rational number.
func (l *Limit) Allows(base, head uint64) bool {
	if head <= base {
		return true
	}
	grow := head - base
	if !l.Relative {
		return grow <= l.Abs
	}
	// grow/base*100 <= pct  <=>  grow*100 <= pct*base
	lhs := new(big.Rat).SetInt(new(big.Int).Mul(new(big.Int).SetUint64(grow), big.NewInt(100)))
	rhs := new(big.Rat).Mul(l.Percent, new(big.Rat).SetInt(new(big.Int).SetUint64(base)))
	return lhs.Cmp(rhs) <= 0
}

// ParseLimit reads "+2%", "2%", "0.5%", "+1000", "1000" or "0". A
// percentage is of the base count; a bare number is instructions. A
// negative limit is refused: a limit says how much may be added.
func ParseLimit(s string) (*Limit, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(t, "+")
	if strings.HasPrefix(t, "-") {
		return nil, fmt.Errorf("limit %q is negative: a limit is how much a count may grow", s)
	}
	if pct, ok := strings.CutSuffix(t, "%"); ok {
		pct = strings.TrimSpace(pct)
		r, ok := new(big.Rat).SetString(pct)
		if !ok || !isDecimal(pct) {
			return nil, fmt.Errorf("limit %q: want a percentage like \"+2%%\" or \"0.5%%\"", s)
		}
		return &Limit{Relative: true, Percent: r, text: "+" + pct + "%"}, nil
	}
	t = strings.ReplaceAll(t, "_", "")
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil || t == "" {
		return nil, fmt.Errorf("limit %q: want instructions like \"+1000\" or a percentage like \"+2%%\"", s)
	}
	text := "+" + strconv.FormatUint(n, 10)
	if n == 0 {
		text = "0"
	}
	return &Limit{Abs: n, text: text}, nil
}

// isDecimal accepts digits with at most one decimal point, nothing else
// (big.Rat would also take "1/3" and "1e9").
func isDecimal(s string) bool {
	dot, digits := false, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

// Ignored reports whether a function's name matches one of the Ignore
// patterns.
func (g *Gates) Ignored(name string) bool {
	if g == nil {
		return false
	}
	for _, p := range g.Ignore {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// ReadConfig loads a gate file; errors name it.
func ReadConfig(file string) (*Gates, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return ParseConfig(file, b)
}

// configFile is the gate file as TOML sees it.
type configFile struct {
	FailAbove any            `toml:"fail_above"`
	Ignore    []string       `toml:"ignore"`
	Budget    map[string]any `toml:"budget"`
}

// ParseConfig reads a gate file; name labels it in errors. Unknown keys,
// malformed limits and bad patterns are refused, each named.
func ParseConfig(name string, data []byte) (*Gates, error) {
	var cf configFile
	md, err := toml.Decode(string(data), &cf)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, tomlError(err))
	}
	// Keys inside a budget's table are checked by budgetValue.
	for _, k := range md.Undecoded() {
		if len(k) > 2 && k[0] == "budget" {
			continue
		}
		return nil, fmt.Errorf("%s: unknown key %q (known: fail_above, ignore, [budget])", name, k.String())
	}
	g := &Gates{Budgets: map[string]Budget{}}
	if cf.FailAbove != nil {
		l, err := limitValue(cf.FailAbove)
		if err != nil {
			return nil, fmt.Errorf("%s: fail_above: %v", name, err)
		}
		g.FailAbove = l
	}
	for _, p := range cf.Ignore {
		if _, err := path.Match(p, ""); err != nil || p == "" {
			return nil, fmt.Errorf("%s: ignore: bad pattern %q", name, p)
		}
	}
	g.Ignore = cf.Ignore
	fns := make([]string, 0, len(cf.Budget))
	for fn := range cf.Budget {
		fns = append(fns, fn)
	}
	slices.Sort(fns) // the first bad one, every time
	for _, fn := range fns {
		b, err := budgetValue(cf.Budget[fn])
		if err != nil {
			return nil, fmt.Errorf("%s: budget for %q: %v", name, fn, err)
		}
		if fn == "" {
			return nil, fmt.Errorf("%s: budget for an empty function name", name)
		}
		g.Budgets[fn] = b
	}
	return g, nil
}

// limitValue reads a limit written as a string ("+2%") or an integer.
func limitValue(v any) (*Limit, error) {
	switch v := v.(type) {
	case string:
		return ParseLimit(v)
	case int64:
		if v < 0 {
			return nil, fmt.Errorf("limit %d is negative: a limit is how much a count may grow", v)
		}
		return ParseLimit(strconv.FormatInt(v, 10))
	default:
		return nil, fmt.Errorf("want a string like \"+2%%\" or an integer, not %s", tomlType(v))
	}
}

// budgetValue reads a budget: a limit on the self count, or a table with
// self and/or inclusive limits.
func budgetValue(v any) (Budget, error) {
	t, ok := v.(map[string]any)
	if !ok {
		l, err := limitValue(v)
		return Budget{Self: l}, err
	}
	var b Budget
	for k, lv := range t {
		l, err := limitValue(lv)
		if err != nil {
			return b, fmt.Errorf("%s: %v", k, err)
		}
		switch k {
		case "self":
			b.Self = l
		case "inclusive":
			b.Inclusive = l
		default:
			return b, fmt.Errorf("unknown key %q (known: self, inclusive)", k)
		}
	}
	if b.Self == nil && b.Inclusive == nil {
		return b, fmt.Errorf("empty: give self and/or inclusive")
	}
	return b, nil
}

func tomlType(v any) string {
	switch v.(type) {
	case float64:
		return "a float (write a percentage as \"2%\")"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// tomlError keeps the TOML library's message, which names the line.
func tomlError(err error) string {
	return strings.TrimPrefix(err.Error(), "toml: ")
}
