package kernel

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestStreamWatches checks an epoll instance's watches of host streams:
// a level-triggered watch reports at every wait and goes to the back of
// the list, an edge-triggered one again only after a transfer, a
// one-shot one once until EPOLL_CTL_MOD, none for an event the stream's
// open mode does not allow or after its last descriptor closed; and
// epoll_ctl's EEXIST, ENOENT and EINVAL (EPOLLEXCLUSIVE in a change).
func TestStreamWatches(t *testing.T) {
	const in, out = unix.POLLIN | pollRdnorm, unix.POLLOUT | pollWrnorm
	reader := &file{stream: in, refs: 1}
	writer := &file{stream: out, refs: 1}
	tty := &file{stream: in | out, refs: 1}
	ep := &file{epoll: true}
	for _, c := range []struct {
		f      *file
		events uint32
		data   uint64
	}{
		{reader, unix.EPOLLIN, 1},
		{writer, unix.EPOLLIN, 2}, // never: a write end is not readable
		{tty, unix.EPOLLOUT | epollET, 3},
	} {
		if err := ep.watchStream(epollCtlAdd, c.f, c.events, c.data); err != nil {
			t.Fatalf("add %d: %v", c.data, err)
		}
	}
	datas := func(max int) []uint64 {
		var got []uint64
		for _, e := range ep.takeStreamEvents(max) {
			got = append(got, uint64(uint32(e.Fd))|uint64(uint32(e.Pad))<<32)
		}
		return got
	}
	check := func(what string, got []uint64, want ...uint64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: %v, want %v", what, got, want)
			}
		}
	}
	check("first wait", datas(10), 1, 3)
	check("second wait", datas(10), 1)
	tty.transfers++
	check("after the terminal's transfer, the reader moved back", datas(10), 3, 1)
	if err := ep.watchStream(epollCtlAdd, reader, unix.EPOLLIN, 1); err != unix.EEXIST {
		t.Fatalf("add again: %v, want EEXIST", err)
	}
	if err := ep.watchStream(epollCtlMod, tty, unix.EPOLLOUT|epollExclusive, 3); err != unix.EINVAL {
		t.Fatalf("mod with EPOLLEXCLUSIVE: %v, want EINVAL", err)
	}
	if err := ep.watchStream(epollCtlMod, tty, unix.EPOLLOUT|epollOneshot, 4); err != nil {
		t.Fatal(err)
	}
	check("one-shot, one event asked", datas(1), 4)
	check("one-shot spent", datas(10), 1)
	if !ep.streamReady() {
		t.Fatal("the level-triggered reader is not ready")
	}
	reader.refs = 0
	check("reader closed", datas(10))
	if ep.streamReady() {
		t.Fatal("ready with nothing due")
	}
	if err := ep.watchStream(epollCtlDel, reader, 0, 0); err != unix.ENOENT {
		t.Fatalf("del of a closed stream's watch: %v, want ENOENT", err)
	}
	if err := ep.watchStream(epollCtlDel, writer, 0, 0); err != nil {
		t.Fatal(err)
	}
	if counterpart(unix.POLLIN) != unix.POLLOUT || counterpart(unix.POLLOUT) != unix.POLLIN ||
		counterpart(unix.POLLIN|unix.POLLOUT) != unix.POLLIN|unix.POLLOUT {
		t.Fatal("counterpart: a reader is served by a writer, a writer by a reader, both by both")
	}
}

// TestFillingDevices: a read of /dev/zero or /dev/full waits for its whole
// buffer (the host cuts one short only when a signal reaches icount's
// thread), of /dev/null, a terminal's or a regular file's does not.
func TestFillingDevices(t *testing.T) {
	for path, want := range map[string]bool{"/dev/zero": true, "/dev/full": true, "/dev/null": false, "/etc/hostname": false} {
		fd, err := unix.Open(path, unix.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := fillingDevice(fd); got != want {
			t.Errorf("%s: fillingDevice %v, want %v", path, got, want)
		}
		unix.Close(fd)
	}
}
