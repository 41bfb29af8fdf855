package kernel

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestUnixLogStream checks how a stream's log of senders and descriptors
// bounds and answers receives, as Linux's unix_stream_read_generic does:
// one sender's bytes join, a read stops after bytes that carry
// descriptors and, under SO_PASSCRED, before another sender's.
func TestUnixLogStream(t *testing.T) {
	fd := &file{refs: 1, stdio: true}
	s := &unixSock{typ: unix.SOCK_STREAM}
	s.sent(3, 1000, nil, nil)
	s.sent(2, 1000, nil, nil)
	s.sent(0, 1000, nil, nil)
	s.sent(4, 1001, nil, []*file{fd})
	s.sent(5, 1001, nil, nil)
	if len(s.rx) != 3 || s.rx[0].n != 5 {
		t.Fatalf("log %+v: want 5 bytes of 1000 joined, then 4 and 5 of 1001", s.rx)
	}
	if got := s.recvLimit(100); got != 9 {
		t.Errorf("limit %d, want 9 (through the descriptors' record)", got)
	}
	s.passcred = true
	if got := s.recvLimit(100); got != 5 {
		t.Errorf("limit under SO_PASSCRED %d, want 5 (one sender)", got)
	}
	if got := s.received(2, true); got.pid != 1000 || len(got.files) != 0 || s.rx[0].n != 5 {
		t.Errorf("peek: %+v, log %+v", got, s.rx)
	}
	if got := s.received(5, false); got.pid != 1000 || len(got.files) != 0 || len(s.rx) != 2 {
		t.Errorf("receive of the first sender: %+v, log %+v", got, s.rx)
	}
	got := s.received(2, false)
	if got.pid != 1001 || len(got.files) != 1 || s.rx[0].n != 2 || s.rx[0].files != nil {
		t.Errorf("a part of the descriptors' record: %+v, log %+v", got, s.rx)
	}
	if got := s.received(7, false); got.pid != 1001 || len(got.files) != 0 || len(s.rx) != 0 {
		t.Errorf("the rest: %+v, log %+v", got, s.rx)
	}
	if got := s.received(1, false); got.pid != 0 {
		t.Errorf("an empty log gave %+v", got)
	}
}

// TestUnixLogMessages checks that a message goes whole, empty or
// truncated, and that a peek leaves it.
func TestUnixLogMessages(t *testing.T) {
	fd := &file{refs: 1, stdio: true}
	s := &unixSock{typ: unix.SOCK_DGRAM}
	s.sent(0, 1000, nil, nil)
	s.sent(10, 1001, []byte{1, 0}, []*file{fd})
	s.sent(10, 1001, nil, nil)
	if len(s.rx) != 3 || s.recvLimit(4) != 4 {
		t.Fatalf("log %+v", s.rx)
	}
	if got := s.received(0, false); got.pid != 1000 || len(s.rx) != 2 {
		t.Errorf("an empty message: %+v, log %+v", got, s.rx)
	}
	if got := s.received(4, true); len(got.files) != 1 || fd.refs != 2 || len(s.rx) != 2 {
		t.Errorf("peek: %+v (refs %d), log %+v", got, fd.refs, s.rx)
	}
	if got := s.received(4, false); len(got.files) != 1 || string(got.from) != "\x01\x00" || len(s.rx) != 1 {
		t.Errorf("a truncated message: %+v, log %+v", got, s.rx)
	}
}
