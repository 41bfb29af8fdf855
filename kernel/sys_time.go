package kernel

import (
	"encoding/binary"
	"time"

	"golang.org/x/sys/unix"
)

// Time system calls. Every read of a clock is counted: a count that
// depends on how long the program took is not pinned.

func putTimespec(b []byte, ns int64) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(ns/1e9))
	return binary.LittleEndian.AppendUint64(b, uint64(ns%1e9))
}

func sysClockGettime(p *Process, a [6]uint64) (uint64, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(int32(a[0]), &ts); err != nil {
		return 0, errnoOf(err)
	}
	p.clockReads++
	return 0, p.writeMem(a[1], putTimespec(nil, ts.Nano()))
}

func sysClockGetres(p *Process, a [6]uint64) (uint64, error) {
	var ts unix.Timespec
	if err := unix.ClockGetres(int32(a[0]), &ts); err != nil {
		return 0, errnoOf(err)
	}
	if a[1] == 0 {
		return 0, nil
	}
	return 0, p.writeMem(a[1], putTimespec(nil, ts.Nano()))
}

func sysGettimeofday(p *Process, a [6]uint64) (uint64, error) {
	p.clockReads++
	if a[0] == 0 {
		return 0, nil
	}
	now := time.Now()
	b := binary.LittleEndian.AppendUint64(nil, uint64(now.Unix()))
	b = binary.LittleEndian.AppendUint64(b, uint64(now.Nanosecond()/1000))
	return 0, p.writeMem(a[0], b)
}

func sysTime(p *Process, a [6]uint64) (uint64, error) {
	p.clockReads++
	now := uint64(time.Now().Unix())
	if a[0] != 0 {
		if err := p.writeU64(a[0], now); err != nil {
			return 0, err
		}
	}
	return now, nil
}

func (p *Process) sleep(reqAddr uint64) error {
	b, err := p.readMem(reqAddr, 16)
	if err != nil {
		return err
	}
	sec, nsec := int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))
	if sec < 0 || nsec < 0 || nsec >= 1e9 {
		return unix.EINVAL
	}
	time.Sleep(time.Duration(sec)*time.Second + time.Duration(nsec))
	return nil
}

func sysNanosleep(p *Process, a [6]uint64) (uint64, error) {
	return 0, p.sleep(a[0])
}

const timerAbstime = 1

func sysClockNanosleep(p *Process, a [6]uint64) (uint64, error) {
	if a[1]&timerAbstime != 0 {
		return 0, errUnsupported("clock_nanosleep with TIMER_ABSTIME")
	}
	return 0, p.sleep(a[2])
}
