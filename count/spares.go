package count

import "github.com/icount-dev/icount/emu"

// Spare CPUs. When a program ends its CPU is kept, with the code the
// emulator translated for it (emu.Spare), and the next address space of
// its architecture starts from it: a fork from a spare of its parent's
// program, an exec from one of the program it runs, or else from the
// spare kept last. The counts are the same either way (emu checks the
// code it keeps against the bytes the new program holds); only the time
// to translate it again is saved: a shell loop that runs a dynamically
// linked program a thousand times translates its ld.so and libc once.

// maxSpares bounds the spares kept; past it the oldest is closed. Each
// holds the translation buffer it filled and a copy of every page it
// translated code from.
const maxSpares = 8

// spare is a kept CPU and the program it ran.
type spare struct {
	path string // the program's path, its main module's
	cpu  *emu.Spare
}

// keepSpare keeps the CPU of an image that ended as a spare, or closes it
// if it cannot be kept.
func (r *runner) keepSpare(im *image) {
	s, err := im.cpu.Spare()
	if err != nil {
		return // closed: the next program starts on a new CPU
	}
	if len(r.spares) == maxSpares {
		r.spares[0].cpu.Close()
		r.spares = r.spares[1:]
	}
	r.spares = append(r.spares, spare{path: im.mods.main.path, cpu: s})
}

// takeSpare returns the spare for a CPU of arch with opts for the
// program at path, nil if none fits.
func (r *runner) takeSpare(arch emu.Arch, opts emu.Options, path string) *emu.Spare {
	best := -1
	for i := len(r.spares) - 1; i >= 0; i-- {
		if r.spares[i].cpu.Arch() != arch || !r.spares[i].cpu.Fits(opts) {
			continue
		}
		if best < 0 {
			best = i
		}
		if r.spares[i].path == path {
			best = i
			break
		}
	}
	if best < 0 {
		return nil
	}
	s := r.spares[best].cpu
	r.spares = append(r.spares[:best], r.spares[best+1:]...)
	return s
}

// closeSpares closes every spare.
func (r *runner) closeSpares() {
	for _, s := range r.spares {
		s.cpu.Close()
	}
	r.spares = nil
}
