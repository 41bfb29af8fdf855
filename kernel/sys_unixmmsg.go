package kernel

import (
	"golang.org/x/sys/unix"
)

// sendmmsg and recvmmsg on Unix sockets icount made: each message as
// sendmsg and recvmsg take it, in turn, its msg_len written as it goes.
// The first may wait as those calls do; one after it is tried without
// waiting, and where Linux would wait for it (a blocking send into a full
// buffer; a blocking recvmmsg without MSG_WAITFORONE when fewer messages
// came than it asks for) the run stops, as it does for an error recvmmsg
// meets after the first message (Linux keeps it for the socket's next
// call). recvmmsg's timeout is Linux's: looked at only after each
// message (the first waits as long as it must), in guest time, what is
// left of it written back.

// mmsghdrSize is struct mmsghdr's size: a msghdr, msg_len and padding.
const mmsghdrSize = msghdrSize + 8

// uioMaxIOV bounds sendmmsg's vlen, as UIO_MAXIOV does.
const uioMaxIOV = 1024

// msgWaitforone is recvmmsg's MSG_WAITFORONE: MSG_DONTWAIT from the
// second message on.
const msgWaitforone = 0x10000

// mmsgCall is one sendmmsg or recvmmsg: its socket, messages and flags,
// and where it stops the run for a message it cannot take as Linux would.
type mmsgCall struct {
	p       *Process
	f       *file
	fd      uint64
	vec     uint64 // the guest's struct mmsghdr array
	vlen    uint64
	flags   int
	name    string
	nr, pc  uint64
	waiting bool // a message after the first would wait (the guest's socket and flags block)
	// timeout is recvmmsg's struct timespec (0 for none), end when it
	// runs out in guest time, left what is left of it after the last
	// message received.
	timeout   uint64
	end, left int64
}

func (t *Task) mmsgCall(name string, a [6]uint64) (*mmsgCall, error) {
	p := t.proc
	f, err := p.sockOf(a[0])
	if err != nil {
		return nil, err
	}
	flags := int(uint32(a[3]))
	return &mmsgCall{p: p, f: f, fd: a[0], vec: a[1], vlen: uint64(uint32(a[2])), flags: flags, name: name,
		nr: p.cpu.Reg(p.abi.nr), pc: p.abi.syscallPC(p.cpu),
		waiting: !f.nonblock && flags&(unix.MSG_DONTWAIT|msgWaitforone) == 0}, nil
}

// stop ends the run for what of message i icount cannot do as Linux,
// from the call itself or from the end of its wait, and gives the
// messages taken.
func (c *mmsgCall) stop(i uint64, what string) (uint64, error) {
	c.p.k.fail(&UnsupportedError{Name: c.name, Nr: c.nr, PC: c.pc, What: what})
	return i, nil
}

// entry is the address of message i's struct mmsghdr.
func (c *mmsgCall) entry(i uint64) uint64 { return c.vec + i*mmsghdrSize }

func sysSendmmsg(t *Task, a [6]uint64) (uint64, error) {
	c, err := t.mmsgCall("sendmmsg", a)
	if err != nil {
		return 0, err
	}
	c.vlen = min(c.vlen, uioMaxIOV)
	return c.sendFrom(0)
}

// sendFrom sends the messages from i on, giving the count sent, or the
// first message's error when none was.
func (c *mmsgCall) sendFrom(i uint64) (uint64, error) {
	if i == c.vlen {
		return i, nil
	}
	flags := c.flags
	if i > 0 {
		flags |= unix.MSG_DONTWAIT
	}
	ret, err := c.p.sendmsg(c.f, c.fd, c.entry(i), flags, func(n, size int) (uint64, error) {
		if err := c.p.writeU32(c.entry(i)+msghdrSize, uint32(n)); err != nil {
			if i == 0 {
				return 0, err
			}
			return i, nil
		}
		if n < size {
			return i + 1, nil // a stream's short send ends the call, as Linux's
		}
		return c.sendFrom(i + 1)
	})
	if err == nil || i == 0 {
		return ret, err
	}
	if _, ok := err.(Errno); !ok {
		return c.stop(i, err.Error())
	}
	if err == unix.EAGAIN && c.waiting {
		return c.stop(i, "a blocking send of a message after the first that would wait")
	}
	return i, nil // Linux reports no error once a message went
}

func sysRecvmmsg(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	var timeout int64
	if a[4] != 0 {
		var err error
		if timeout, err = p.readTimespec(a[4]); err != nil {
			return 0, err
		}
	}
	c, err := t.mmsgCall("recvmmsg", a)
	if err != nil {
		return 0, err
	}
	if c.timeout = a[4]; c.timeout != 0 && timeout > 0 {
		c.end = p.deadlineAfter(timeout)
	}
	n, err := c.recvFrom(0)
	if err != nil || n == 0 || c.timeout == 0 {
		return n, err
	}
	if err := p.writeMem(c.timeout, timespec(c.left, false)); err != nil {
		return 0, err
	}
	return n, nil
}

// recvFrom receives the messages from i on, giving the count received,
// or the first message's error when none was.
func (c *mmsgCall) recvFrom(i uint64) (uint64, error) {
	if i == c.vlen {
		return i, nil
	}
	flags := c.flags &^ msgWaitforone
	if i > 0 {
		flags |= unix.MSG_DONTWAIT
	}
	ret, err := c.p.recvmsg(c.f, c.fd, c.entry(i), flags, func(res uint64, msgFlags int) (uint64, error) {
		if err := c.p.writeU32(c.entry(i)+msghdrSize, uint32(res)); err != nil {
			if i == 0 {
				return 0, err
			}
			return c.stop(i, "an error after the first message (Linux keeps it for the socket's next call)")
		}
		if c.timeout != 0 {
			if c.left = max(c.end-c.p.now(), 0); c.left == 0 {
				return i + 1, nil // the timeout ran out
			}
		}
		if msgFlags&unix.MSG_OOB != 0 {
			return i + 1, nil
		}
		return c.recvFrom(i + 1)
	})
	switch {
	case err == nil || i == 0:
		return ret, err
	case err == unix.EAGAIN && c.waiting:
		return c.stop(i, "a blocking receive of a message after the first that would wait (without MSG_WAITFORONE)")
	case err == unix.EAGAIN:
		return i, nil
	}
	if _, ok := err.(Errno); !ok {
		return c.stop(i, err.Error())
	}
	return c.stop(i, "an error after the first message (Linux keeps it for the socket's next call)")
}
