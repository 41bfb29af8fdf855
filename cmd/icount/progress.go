package main

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/icount-dev/icount/report"
	"golang.org/x/sys/unix"
)

// progress is the line icount shows on the terminal its stderr is while
// a run takes long. It never mixes with the guest's output: a guest's
// write to the same terminal clears it first, and it is not drawn again
// while the guest's last write there left a line unfinished; the run's
// end clears it, so that it is never left in the scrollback.
type progress struct {
	out *os.File
	tty uint64 // the terminal's device number

	mu      sync.Mutex
	drawn   bool // the line is on the terminal
	midLine bool // the guest's output there ends inside a line
}

// clearLine returns the cursor to the line's start and erases the line.
const clearLine = "\r\033[K"

// newProgress returns the progress line of the terminal out is, or nil
// when out is not a terminal.
func newProgress(out *os.File) *progress {
	var st unix.Stat_t
	if !isTerminal(out) || unix.Fstat(int(out.Fd()), &st) != nil {
		return nil
	}
	return &progress{out: out, tty: st.Rdev}
}

// draw shows line in place of the one drawn before, unless the guest's
// output ends inside a line.
func (p *progress) draw(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.midLine {
		return
	}
	fmt.Fprint(p.out, clearLine+line)
	p.drawn = true
}

// clear erases the line if it is drawn.
func (p *progress) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
}

func (p *progress) erase() {
	if p.drawn {
		fmt.Fprint(p.out, clearLine)
		p.drawn = false
	}
}

// streamWrite is the kernel's StreamWrite: a write of the guest to the
// same terminal clears the line first and notes whether the guest's
// output now ends inside a line.
func (p *progress) streamWrite(host int, b []byte, write func() (int, error)) (int, error) {
	var st unix.Stat_t
	if unix.Fstat(host, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR || st.Rdev != p.tty {
		return write()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
	n, err := write()
	if n > 0 {
		p.midLine = b[n-1] != '\n'
	}
	return n, err
}

// progress shows, once the run has taken a second, the instructions
// executed so far, the rate and the time taken on line, redrawn every
// second, and clears it when the run returns; line is nil for none.
func (c *runControl) progress(started chan func() uint64, line *progress) {
	defer close(c.finished)
	var executed func() uint64
	select {
	case executed = <-started:
	case <-c.done:
		return
	}
	if line == nil {
		<-c.done
		return
	}
	begin := time.Now()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-c.done:
			line.clear()
			return
		case now := <-tick.C:
			line.draw(progressLine(executed(), now.Sub(begin)))
		}
	}
}

// progressLine says how far a run got: "icount: 1,234,567,890
// instructions, 412 M/s, 3 s".
func progressLine(n uint64, elapsed time.Duration) string {
	rate := float64(n) / max(elapsed.Seconds(), 1e-9) / 1e6
	return fmt.Sprintf("%s%s instructions, %.0f M/s, %.0f s", report.Prefix, report.Group(n), rate, elapsed.Seconds())
}
