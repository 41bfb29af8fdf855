package count

import (
	"strconv"
	"strings"

	"github.com/icount-dev/icount/profile"
)

// positions is the Profile's table of source positions (Profile.Positions)
// as it is built: each distinct position once, in the order first asked.
type positions struct {
	list  []profile.Position
	index map[string]int
	mods  *modules
}

func newPositions(mods *modules) *positions {
	return &positions{index: map[string]int{}, mods: mods}
}

// at returns the index of the source position of the instruction at addr
// in module m.
func (ps *positions) at(m *module, addr uint64) int {
	var pos profile.Position
	p, _ := m.code.Line(addr)
	pos.File, pos.Line = p.File, p.Line
	for _, c := range m.code.Inlined(addr) {
		pos.Inlined = append(pos.Inlined, profile.InlinedCall{Function: c.Function, CallFile: c.CallFile, CallLine: c.CallLine})
	}
	key := positionKey(pos)
	if i, ok := ps.index[key]; ok {
		return i
	}
	ps.list = append(ps.list, pos)
	ps.index[key] = len(ps.list) - 1
	return len(ps.list) - 1
}

// positionKey is a position as one string, to tell positions apart.
func positionKey(p profile.Position) string {
	var b strings.Builder
	b.WriteString(p.File)
	b.WriteByte(0)
	b.WriteString(strconv.Itoa(p.Line))
	for _, c := range p.Inlined {
		b.WriteByte(0)
		b.WriteString(c.Function)
		b.WriteByte(0)
		b.WriteString(c.CallFile)
		b.WriteByte(0)
		b.WriteString(strconv.Itoa(c.CallLine))
	}
	return b.String()
}

// inlinedName names the function whose inlined body holds a position, ""
// when it is not inlined code.
func inlinedName(p profile.Position) string {
	if n := len(p.Inlined); n > 0 {
		return p.Inlined[n-1].Function
	}
	return ""
}
