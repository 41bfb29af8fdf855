package kernel

import "testing"

// TestIOBuffers checks the lending of transfer buffers: a buffer given
// back is lent again, the larger of two kept, and one lent out (a
// transfer blocked with it) is never lent twice.
func TestIOBuffers(t *testing.T) {
	var b ioBuffers
	first := b.take(100)
	if len(first) != 100 {
		t.Fatalf("took %d bytes, want 100", len(first))
	}
	blocked := b.take(10) // while first is lent
	if &blocked[0] == &first[0] {
		t.Fatal("a lent buffer was lent again")
	}
	b.give(first)
	b.give(blocked) // smaller: first is kept
	again := b.take(50)
	if len(again) != 50 || &again[0] != &first[0] {
		t.Errorf("took %d bytes, the kept buffer %v; want 50 of the kept buffer", len(again), &again[0] == &first[0])
	}
	if bigger := b.take(200); len(bigger) != 200 {
		t.Errorf("took %d bytes, want 200", len(bigger))
	}
}
