package report

import (
	"fmt"
	"io"
	"time"

	"github.com/icount-dev/icount/profile"
)

// clockLine says, under --fixed-clock, how the guest used the fixed clock:
// how many reads, from which sources, and whether a table ran out.
func clockLine(w io.Writer, p *profile.Profile) {
	c, u := p.Meta.Clock, p.Meta.ClockUse
	if c.Mode != "fixed" {
		return
	}
	from := fmt.Sprintf("from %d ns by %v", startOf(c), time.Duration(c.StepNs))
	if c.Table != "" {
		from = fmt.Sprintf("from table %s (%d values", c.Table, c.TableValues)
		if u.TableRanOut {
			from += fmt.Sprintf(", ran out: went on by its last step, %v", time.Duration(c.StepNs))
		}
		from += ")"
	}
	reads := fmt.Sprintf("%s reads", Group(u.Reads))
	if u.Reads > 0 {
		reads += " (" + u.Sources() + ")"
	}
	fmt.Fprintf(w, "%sfixed clock: %s %s", Prefix, reads, from)
	if u.Sleeps > 0 {
		fmt.Fprintf(w, "; %s sleeps advanced it %v", Group(u.Sleeps), time.Duration(u.SleptNs))
	}
	fmt.Fprintln(w)
}

func startOf(c profile.Clock) int64 {
	if c.StartNs == nil {
		return 0
	}
	return *c.StartNs
}
