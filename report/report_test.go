package report

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/icount-dev/icount/count"
)

func sample() *count.Profile {
	return &count.Profile{
		Schema: count.Schema,
		Meta: count.Meta{IcountVersion: "test", Arch: "x86_64", Args: []string{"prog", "-n", "3"}, Env: []string{},
			Binary: count.Binary{Path: "prog", Size: 1234, SHA256: "ab"}, Clock: count.Clock{Mode: "host"}},
		Totals:    count.Totals{Instructions: 1234567, Blocks: 2345, DistinctBlocks: 12, Syscalls: 3},
		Syscalls:  map[string]uint64{"write": 2, "exit_group": 1},
		Functions: []count.FunctionCount{{Name: "main", Self: 1000000}, {Name: "helper", Self: 234567}},
		HotBlocks: []count.BlockCount{{Addr: 0x401000, Size: 12, Executions: 100, Instructions: 400, Function: "main"}},
		Exit:      count.Exit{Status: 0, Complete: true},
	}
}

func TestJSONRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.json")
	p := sample()
	if err := WriteJSON(path, p); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p, back) {
		t.Errorf("reloaded profile differs:\n%+v\n%+v", p, back)
	}
}

func TestParseJSONRejects(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{`not json`, "not an icount profile"},
		{`{"schema":"icount/0"}`, `profile schema "icount/0"`},
		{`{"schema":"icount/1","surprise":1}`, "unknown field"},
		{`{"schema":"icount/1"} {}`, "data after the profile"},
		{`{"schema":"icount/1","call_tree":[{"parent":-1},{"parent":1}]}`, "call_tree node 1 has parent 1"},
		{`{"schema":"icount/1","call_tree":[{"parent":0}]}`, "call_tree node 0 has parent 0"},
	} {
		if _, err := ParseJSON("f.json", []byte(c.in)); err == nil || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "f.json: ") {
			t.Errorf("ParseJSON(%q) = %v, want an error naming the file with %q", c.in, err, c.msg)
		}
	}
}

func TestSummary(t *testing.T) {
	var b bytes.Buffer
	Summary(&b, sample(), 1)
	want := `icount: 1,234,567 instructions (x86_64, exit 0)
icount: 2,345 block executions, 12 distinct blocks, 3 system calls
icount: top 1 functions by self cost:
icount:             self  share  module  function
icount:        1,000,000  81.0%          main
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestGroup(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567"} {
		if got := Group(n); got != want {
			t.Errorf("Group(%d) = %q, want %q", n, got, want)
		}
	}
}
