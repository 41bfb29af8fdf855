package report

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestOutcomes: each class's cell and line, and a file of outcomes read
// back as written; a malformed one is named.
func TestOutcomes(t *testing.T) {
	outs := []Outcome{
		{Name: "ok", Class: OutcomeOK},
		{Name: "three", Side: "base", Class: OutcomeExit, Status: 3, Message: "bad input"},
		{Name: "segv", Class: OutcomeSignal, Status: 139, Signal: "SIGSEGV", Message: "SIGSEGV: access to unmapped address 0x10"},
		{Name: "spin", Class: OutcomeStopped, Status: 124, Reason: "timeout", Message: "stopped by --timeout 2s (wall clock)"},
		{Name: "missing", Side: "head", Class: OutcomeRefused, Status: 127, Message: "no/such: no such file"},
		{Name: "crash", Class: OutcomeError, Status: 70},
	}
	want := []struct{ short, line string }{
		{"ok", "ok: ok"},
		{"exit 3", "base three: exit 3: bad input"},
		{"SIGSEGV", "segv: SIGSEGV: access to unmapped address 0x10"},
		{"stopped: timeout", "spin: stopped: timeout: stopped by --timeout 2s (wall clock)"},
		{"refused (127)", "head missing: refused (127): no/such: no such file"},
		{"error (70)", "crash: error (70)"},
	}
	for i, o := range outs {
		if o.Short() != want[i].short || o.String() != want[i].line || o.OK() != (i == 0) {
			t.Errorf("%s: %q, %q, ok %v; want %q, %q", o.Name, o.Short(), o.String(), o.OK(), want[i].short, want[i].line)
		}
	}
	var b bytes.Buffer
	if err := WriteOutcomes(&b, outs); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != len(outs) {
		t.Errorf("%d lines for %d outcomes", n, len(outs))
	}
	file := filepath.Join(t.TempDir(), OutcomesFile)
	os.WriteFile(file, b.Bytes(), 0o644)
	if back, err := ReadOutcomes(file); err != nil || !reflect.DeepEqual(back, outs) {
		t.Errorf("read back %+v, %v", back, err)
	}
	for _, c := range []struct{ data, msg string }{
		{`{"name":"a","class":"ok"}` + "\n{\"name\":", "outcome 2: unexpected EOF"},
		{`{"name":"a","class":"fine"}`, `outcome 1: class "fine"`},
		{`{"name":"../a","class":"ok"}`, `outcome 1: benchmark name "../a"`},
		{`{"name":"a","class":"ok","extra":1}`, `outcome 1: json: unknown field "extra"`},
	} {
		os.WriteFile(file, []byte(c.data), 0o644)
		if _, err := ReadOutcomes(file); err == nil || err.Error() != file+": "+c.msg {
			t.Errorf("%s: %v, want %q", c.data, err, c.msg)
		}
	}
}

// FuzzParseOutcomes: any bytes give outcomes or an error, never a panic,
// and what is read writes back and reads again as the same.
func FuzzParseOutcomes(f *testing.F) {
	f.Add([]byte(`{"name":"ok","class":"ok","status":0}` + "\n" + `{"name":"spin","class":"stopped","status":124,"reason":"timeout"}`))
	f.Add([]byte(`{"name":"segv","side":"head","class":"signal","status":139,"signal":"SIGSEGV","message":"m"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		outs, err := ParseOutcomes("f", data)
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := WriteOutcomes(&b, outs); err != nil {
			t.Fatal(err)
		}
		again, err := ParseOutcomes("f", b.Bytes())
		if err != nil || len(again) != len(outs) || (len(outs) > 0 && !reflect.DeepEqual(again, outs)) {
			t.Fatalf("%+v written and read again: %+v, %v", outs, again, err)
		}
	})
}
