package kernel

import (
	"golang.org/x/sys/unix"
)

// Signal system calls. Handlers and masks are recorded and reported back;
// no signal is delivered asynchronously to a single-threaded guest.

const nsig = 64

func sysRtSigaction(p *Process, a [6]uint64) (uint64, error) {
	sig, act, oact := a[0], a[1], a[2]
	if sig == 0 || sig > nsig || sig == uint64(unix.SIGKILL) || sig == uint64(unix.SIGSTOP) && act != 0 {
		return 0, unix.EINVAL
	}
	size := p.abi.sigactionSize
	if oact != 0 {
		old := p.sigactions[sig]
		if old == nil {
			old = make([]byte, size)
		}
		if err := p.writeMem(oact, old); err != nil {
			return 0, err
		}
	}
	if act != 0 {
		b, err := p.readMem(act, size)
		if err != nil {
			return 0, err
		}
		p.sigactions[sig] = b
	}
	return 0, nil
}

const (
	sigBlock   = 0
	sigUnblock = 1
	sigSetmask = 2
)

func sysRtSigprocmask(p *Process, a [6]uint64) (uint64, error) {
	how, set, oset := a[0], a[1], a[2]
	old := p.cur.sig.mask
	if set != 0 {
		v, err := p.readU64(set)
		if err != nil {
			return 0, err
		}
		switch how {
		case sigBlock:
			p.cur.sig.mask |= v
		case sigUnblock:
			p.cur.sig.mask &^= v
		case sigSetmask:
			p.cur.sig.mask = v
		default:
			return 0, unix.EINVAL
		}
	}
	if oset != 0 {
		return 0, p.writeU64(oset, old)
	}
	return 0, nil
}

const ssDisable = 2

func sysSigaltstack(p *Process, a [6]uint64) (uint64, error) {
	if a[1] != 0 {
		old := p.cur.sig.altstack
		if old == nil {
			old = make([]byte, 24)
			old[8] = ssDisable
		}
		if err := p.writeMem(a[1], old); err != nil {
			return 0, err
		}
	}
	if a[0] != 0 {
		b, err := p.readMem(a[0], 24)
		if err != nil {
			return 0, err
		}
		p.cur.sig.altstack = b
	}
	return 0, nil
}
