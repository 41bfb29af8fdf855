package kernel

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// locksString lists the byte-range locks on id as owner:type[start-end].
func locksString(lt *lockTable, id fileID, names map[lockOwner]string) string {
	fl := lt.files[id]
	if fl == nil {
		return ""
	}
	var b strings.Builder
	for _, l := range fl.ranges {
		end := fmt.Sprint(l.end)
		if l.end == offsetMax {
			end = "EOF"
		}
		fmt.Fprintf(&b, "%s:%c[%d-%s] ", names[l.owner], "RW"[l.typ], l.start, end)
	}
	return strings.TrimSpace(b.String())
}

// TestLockTableRanges: an owner's locks are split, replaced and merged
// into runs of one type, each owner's together and in order, as Linux
// keeps them; the POSIX count follows.
func TestLockTableRanges(t *testing.T) {
	var lt lockTable
	a, b := &fdTable{}, &fdTable{}
	names := map[lockOwner]string{a: "a", b: "b"}
	id := fileID{1, 2}
	step := func(owner *fdTable, typ int16, start, end int64, want string) {
		t.Helper()
		lt.set(id, false, rangeLock{owner: owner, typ: typ, start: start, end: end})
		if got := locksString(&lt, id, names); got != want {
			t.Fatalf("after %s %d %d-%d: %q, want %q", names[owner], typ, start, end, got, want)
		}
	}
	step(b, fRdlck, 100, offsetMax, "b:R[100-EOF]")
	step(a, fWrlck, 0, 9, "b:R[100-EOF] a:W[0-9]")
	step(a, fRdlck, 3, 4, "b:R[100-EOF] a:W[0-2] a:R[3-4] a:W[5-9]")
	step(a, fWrlck, 10, 19, "b:R[100-EOF] a:W[0-2] a:R[3-4] a:W[5-19]")
	step(a, fWrlck, 3, 3, "b:R[100-EOF] a:W[0-3] a:R[4-4] a:W[5-19]")
	step(a, fWrlck, 4, 4, "b:R[100-EOF] a:W[0-19]")
	step(a, fUnlck, 5, 14, "b:R[100-EOF] a:W[0-4] a:W[15-19]")
	step(b, fRdlck, 50, 99, "b:R[50-EOF] a:W[0-4] a:W[15-19]")
	if lt.posixHeld[a] != 2 || lt.posixHeld[b] != 1 {
		t.Fatalf("posixHeld %v", lt.posixHeld)
	}
	step(b, fUnlck, 0, offsetMax, "a:W[0-4] a:W[15-19]")
	step(b, fRdlck, 5, 5, "a:W[0-4] a:W[15-19] b:R[5-5]")
	step(a, fUnlck, 0, offsetMax, "b:R[5-5]")
	step(b, fUnlck, 5, 5, "")
	if len(lt.files) != 0 || len(lt.posixHeld) != 0 {
		t.Fatalf("left behind: %v %v", lt.files, lt.posixHeld)
	}
}

// TestLockTableDeadlock: a request whose wait would close a cycle of
// POSIX owners, each waiting for the next's lock, is found; one whose
// chain ends, or reaches a lock an OFD owner holds, is not; a waiter is
// queued behind an earlier one on the same lock it conflicts with.
func TestLockTableDeadlock(t *testing.T) {
	var lt lockTable
	a, b, c, e, g := &fdTable{}, &fdTable{}, &fdTable{}, &fdTable{}, &fdTable{}
	ofd := &file{}
	id := fileID{1, 2}
	lock := func(owner lockOwner, at int64) rangeLock {
		_, isOFD := owner.(*file)
		return rangeLock{owner: owner, ofd: isOFD, typ: fWrlck, start: at, end: at}
	}
	held := func(owner lockOwner, at int64) *rangeLock {
		l := lock(owner, at)
		lt.set(id, false, l)
		return firstConflict(lt.files[id].ranges, &rangeLock{typ: fWrlck, start: at, end: at})
	}
	wait := func(owner lockOwner, at int64) *lockRequest {
		w := &lockRequest{id: id, lock: lock(owner, at)}
		lt.waiting = append(lt.waiting, w)
		return w
	}
	atA, atB := held(a, 0), held(b, 1)
	held(c, 2)
	wait(a, 1) // a waits for b's lock
	wait(b, 2) // b waits for c's
	if !lt.deadlocks(c, atA) || !lt.deadlocks(c, atB) {
		t.Fatal("c waiting for a's or b's lock: the cycle through c not found")
	}
	if lt.deadlocks(e, atA) {
		t.Fatal("e waiting for a's lock: a chain that ends at c (not waiting) taken for a cycle")
	}
	held(ofd, 3)
	atG := held(g, 4)
	wait(g, 3) // g waits for the OFD lock
	if lt.deadlocks(ofd, atG) || lt.deadlocks(e, atG) {
		t.Fatal("a chain through an OFD lock followed")
	}
	// e and then g wait for byte 10, which h holds: g waits behind e,
	// and is not served before it, though it is tried first.
	h := &fdTable{}
	first, second := &lockRequest{id: id, lock: lock(e, 10)}, &lockRequest{id: id, lock: lock(g, 10)}
	for _, w := range []*lockRequest{first, second} {
		lt.queue(w, held(h, 10))
		lt.waiting = append(lt.waiting, w)
	}
	if first.under != nil || second.under != first {
		t.Fatalf("queued under %p and %p, want none and the first (%p)", first.under, second.under, first)
	}
	lt.set(id, false, rangeLock{owner: h, typ: fUnlck, start: 0, end: offsetMax})
	if lt.retry(second) || !lt.retry(first) {
		t.Fatal("the second waiter served before the first")
	}
	lt.waiting = slices.DeleteFunc(lt.waiting, func(w *lockRequest) bool { return w == first })
	if lt.retry(second) || second.blocker.owner != e {
		t.Fatalf("the second waiter, once the first holds byte 10, blocked by %v", second.blocker)
	}
}
