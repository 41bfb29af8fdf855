package kernel

import (
	"golang.org/x/sys/unix"
)

// Unix-domain sockets between the processes of a run. Each is a host
// socket of the same type that icount made, non-blocking on the host as
// its pipes are (file.pipe: a transfer that would block blocks the guest
// thread), and reachable only through icount. The host carries the bytes
// and keeps message boundaries, readiness (poll, epoll), shutdown, EPIPE
// and the buffer limits, from sizes icount fixes; since only icount's own
// calls fill and drain it, what each call finds is the same on every run.
// icount keeps what Linux attaches to the bytes and the host cannot carry
// for a guest: which process sent them (SCM_CREDENTIALS) and the
// descriptors in flight (SCM_RIGHTS), as a log of records in the order
// the host queues the messages (unixSock.rx).

// Buffer sizes: Linux's defaults (net.core.wmem_default and rmem_default),
// and the least SO_SNDBUF and SO_RCVBUF keep (SOCK_MIN_SNDBUF and
// SOCK_MIN_RCVBUF: 2048 bytes and an sk_buff, aligned). The host socket is
// given the same, so that a writer blocks where these say.
const (
	unixBufDefault = 212992
	unixBufMax     = 212992 // net.core.wmem_max and rmem_max
	unixSndbufMin  = 4608
	unixRcvbufMin  = 2304
)

// unixSock is icount's side of a Unix-domain socket.
type unixSock struct {
	typ int // unix.SOCK_STREAM, SOCK_DGRAM or SOCK_SEQPACKET
	// peerPid is the process the peer's SO_PEERCRED names: whoever made
	// the pair, or connected; 0 for none.
	peerPid  int
	passcred bool // SO_PASSCRED: receive SCM_CREDENTIALS
	// rcvtimeo and sndtimeo are SO_RCVTIMEO and SO_SNDTIMEO in
	// nanoseconds, 0 for none, -1 for no wait at all.
	rcvtimeo, sndtimeo int64
	sndbuf, rcvbuf     int
	peer               *unixSock // the connected end (a datagram's: where it sends), nil if none

	// Names (sys_unixname.go): the socket's and its peer's as
	// getsockname and getpeername give them (nil: unnamed), the table it
	// is bound in and, for a path, its inode there; the host's name for
	// its host socket.
	name, peerName []byte
	names          *unixNames
	inode          [2]uint64
	hostAddr       unix.Sockaddr
	// listenPid is the process that made it listen, its connectors'
	// SO_PEERCRED; pending are the connections accept has yet to take,
	// the sockets it will give, in the host's order.
	listenPid int
	pending   []*unixSock
	// rx is what was sent to this socket and not yet received, a record
	// per message (a datagram, or what one write put in a stream), oldest
	// first.
	rx []unixRecord
}

// unixRecord is one message in flight to a socket.
type unixRecord struct {
	n     int     // bytes
	pid   int     // the process that sent it
	from  []byte  // the address it sent from (a struct sockaddr_un), nil if unnamed
	files []*file // descriptors passed with it (SCM_RIGHTS), held
}

// newUnixSock makes a host socket of the guest's type typ (with
// SOCK_NONBLOCK and SOCK_CLOEXEC taken out) and icount's side of it.
func newUnixSock(host int) (*unixSock, error) {
	typ, err := unix.GetsockoptInt(host, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil {
		return nil, errnoOf(err)
	}
	s := &unixSock{typ: typ, sndbuf: unixBufDefault, rcvbuf: unixBufDefault}
	if err := s.sizeHost(host); err != nil {
		return nil, err
	}
	return s, nil
}

// sizeHost gives the host socket s's buffer sizes (the host doubles what
// it is given, as Linux does the guest's).
func (s *unixSock) sizeHost(host int) error {
	if err := unix.SetsockoptInt(host, unix.SOL_SOCKET, unix.SO_SNDBUF, s.sndbuf/2); err != nil {
		return errnoOf(err)
	}
	return errnoOrNil(unix.SetsockoptInt(host, unix.SOL_SOCKET, unix.SO_RCVBUF, s.rcvbuf/2))
}

// stream says that s carries a byte stream, not messages.
func (s *unixSock) stream() bool { return s.typ == unix.SOCK_STREAM }

// sent logs n bytes that the process pid sent to s from the address from,
// with files (held).
// In a stream, what one sender sent without descriptors joins its last
// record; a stream's empty send puts nothing in flight, descriptors
// neither, and is not logged.
func (s *unixSock) sent(n, pid int, from []byte, files []*file) {
	if last := len(s.rx) - 1; s.stream() && last >= 0 && files == nil && s.rx[last].pid == pid && s.rx[last].files == nil {
		s.rx[last].n += n
		return
	}
	s.rx = append(s.rx, unixRecord{n: n, pid: pid, from: from, files: files})
}

// recvLimit is how much of a receive of size bytes the host may give at
// once: in a stream, a read stops after the record that carries
// descriptors and, when credentials are passed, before bytes of another
// sender, as Linux's does; a message is taken whole.
func (s *unixSock) recvLimit(size int) int {
	if !s.stream() || len(s.rx) == 0 {
		return size
	}
	lim := 0
	for _, r := range s.rx {
		if lim >= size || s.passcred && r.pid != s.rx[0].pid {
			break
		}
		lim += r.n
		if r.files != nil {
			break
		}
	}
	return min(lim, size)
}

// unixRecv is what a receive takes with its bytes.
type unixRecv struct {
	pid   int     // the sender of the first byte, 0 for none
	from  []byte  // its address (a struct sockaddr_un), nil if unnamed
	files []*file // descriptors passed, held for the receiver
}

// received takes n bytes off the head of the log, or the message there
// (leaving them when peek): the sender of the first byte and the
// descriptors of each record touched (new references when peek, as Linux
// gives a peek new descriptors).
func (s *unixSock) received(n int, peek bool) unixRecv {
	if len(s.rx) == 0 {
		return unixRecv{}
	}
	got := unixRecv{pid: s.rx[0].pid, from: s.rx[0].from}
	touched := 1 // a message goes whole, truncated or not
	if s.stream() {
		touched = 0
		for left := n; left > 0 && touched < len(s.rx); touched++ {
			left -= s.rx[touched].n
		}
	}
	for i := range touched {
		got.files = append(got.files, s.rx[i].files...)
		if peek {
			for _, f := range s.rx[i].files {
				f.hold()
			}
		}
	}
	if peek {
		return got
	}
	if !s.stream() {
		s.rx = s.rx[1:]
		return got
	}
	for left := n; left > 0; {
		r := &s.rx[0]
		take := min(left, r.n)
		r.n, r.files, left = r.n-take, nil, left-take
		if r.n == 0 {
			s.rx = s.rx[1:]
		}
	}
	return got
}

// closed drops what was in flight to s, and to the connections it did not
// accept, and its name, when its last descriptor closes. Its peer keeps
// naming it (getpeername), as Linux's does; the host refuses what would
// be sent to it.
func (s *unixSock) closed() {
	for _, c := range append(s.pending, s) {
		for _, r := range c.rx {
			releaseAll(r.files)
		}
		c.rx = nil
	}
	s.pending = nil
	s.unbind()
}
