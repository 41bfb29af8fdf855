package kernel

import (
	"encoding/binary"
	"testing"
)

// TestInotifyCookiesRenumber checks that a read's rename cookies become
// the run's own numbers, in order of appearance and shared across reads,
// and that the other fields and the names are left as they are.
func TestInotifyCookiesRenumber(t *testing.T) {
	le := binary.LittleEndian
	event := func(wd, mask, cookie uint32, name string) []byte {
		n := (len(name) + 16) &^ 15
		b := make([]byte, inotifyEventSize+n)
		le.PutUint32(b, wd)
		le.PutUint32(b[4:], mask)
		le.PutUint32(b[8:], cookie)
		le.PutUint32(b[12:], uint32(n))
		copy(b[16:], name)
		return b
	}
	var c inotifyCookies
	first := append(append(event(1, 0x40, 9000, "a"), event(1, 0x80, 9000, "b")...), event(2, 0x100, 0, "created-with-a-long-name")...)
	c.renumber(first)
	second := append(event(1, 0x40, 7000, "c"), event(1, 0x80, 9000, "d")...)
	c.renumber(second)
	var got []uint32
	for _, buf := range [][]byte{first, second} {
		for off := 0; off < len(buf); off += inotifyEventSize + int(le.Uint32(buf[off+12:])) {
			got = append(got, le.Uint32(buf[off+8:]))
		}
	}
	want := []uint32{1, 1, 0, 2, 1}
	if len(got) != len(want) {
		t.Fatalf("cookies %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("cookies %v, want %v", got, want)
		}
	}
	if le.Uint32(first[64:]) != 2 || le.Uint32(first[68:]) != 0x100 || string(first[80:80+24]) != "created-with-a-long-name" {
		t.Fatalf("other fields changed: % x", first[64:])
	}
}
