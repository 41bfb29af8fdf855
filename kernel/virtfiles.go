package kernel

import (
	"fmt"
	"strings"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/fixedclock"
	"golang.org/x/sys/unix"
)

// Files icount answers itself, because the host's would make the count
// depend on the machine: the random devices read from the seeded generator,
// the CPU description and count come from the emulated CPU and --cpus, the
// memory from the machine sysinfo describes, the
// huge-page size is fixed, /proc/self/cgroup does not exist, and
// /proc/PID/fd lists the guest's descriptors (procfd.go).

// virtual is what a guest file icount answers itself holds.
type virtual int

const (
	virtNone   virtual = iota
	virtRandom         // /dev/urandom, /dev/random: the seeded generator
)

// openVirtual opens path if icount answers it: a random device (opened on
// the host, so that fstat sees a character device, but read from the
// seeded generator) or a generated text file. ok is false for every other
// path.
func (p *Process) openVirtual(path string, flags uint64) (f *file, ok bool, err error) {
	switch path {
	case "/dev/urandom", "/dev/random":
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			// A host without the device: any descriptor will do, since
			// reads never reach it.
			if fd, err = unix.MemfdCreate("icount-random", unix.MFD_CLOEXEC); err != nil {
				return nil, true, errnoOf(err)
			}
		}
		return &file{host: fd, path: path, virt: virtRandom}, true, nil
	}
	if f, ok, err := p.openProcFD(path, flags); ok {
		return f, true, err
	}
	if p.procSelfAbsent(path) {
		return nil, true, unix.ENOENT
	}
	text, ok := p.generatedFile(path)
	if !ok {
		return nil, false, nil
	}
	if flags&(unix.O_WRONLY|unix.O_RDWR) != 0 {
		return nil, true, unix.EACCES
	}
	fd, err := unix.MemfdCreate("icount"+strings.ReplaceAll(path, "/", "-"), unix.MFD_CLOEXEC)
	if err != nil {
		return nil, true, errnoOf(err)
	}
	if _, err := unix.Write(fd, []byte(text)); err != nil {
		unix.Close(fd)
		return nil, true, errnoOf(err)
	}
	if _, err := unix.Seek(fd, 0, 0); err != nil {
		unix.Close(fd)
		return nil, true, errnoOf(err)
	}
	return &file{host: fd, path: path}, true, nil
}

// readVirtual fills buf for a read of f if icount answers its contents.
func (p *Process) readVirtual(f *file, buf []byte) (int, bool) {
	if f.virt != virtRandom {
		return 0, false
	}
	p.rng.Read(buf)
	return len(buf), true
}

// cpus is the number of CPUs the guest is told it has.
func (p *Process) cpus() int { return max(p.k.opts.CPUs, 1) }

// cpuList is the kernel's list format of the guest's CPUs: "0" or "0-3".
func (p *Process) cpuList() string {
	if n := p.cpus(); n > 1 {
		return fmt.Sprintf("0-%d\n", n-1)
	}
	return "0\n"
}

// generatedFile returns the contents icount gives path, if it answers it.
func (p *Process) generatedFile(path string) (string, bool) {
	switch path {
	case "/proc/cpuinfo":
		if p.exe.Arch == emu.ARM64 {
			return p.cpuinfoARM64(), true
		}
		return p.cpuinfoX86(), true
	case "/sys/devices/system/cpu/online", "/sys/devices/system/cpu/possible", "/sys/devices/system/cpu/present":
		return p.cpuList(), true
	case "/proc/meminfo":
		return meminfo(), true
	case "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size":
		// Go's runtime reads the huge-page size at start: the usual 2 MiB
		// of x86-64 and of arm64 with 4 KiB pages, whatever the host's.
		return "2097152\n", true
	}
	return p.procSelf(path)
}

// meminfo is /proc/meminfo for the memory sysinfo reports, its lines as
// Linux writes them (the name, padded, and kB in eight columns); what the
// guest's machine does not have (swap, huge pages in use) is 0.
func meminfo() string {
	const total, free = guestRAM >> 10, guestFreeRAM >> 10
	var b strings.Builder
	for _, f := range []struct {
		name string
		kb   int
	}{
		{"MemTotal", total}, {"MemFree", free}, {"MemAvailable", free}, {"Buffers", 0}, {"Cached", 0},
		{"SwapCached", 0}, {"Active", total - free}, {"Inactive", 0}, {"SwapTotal", 0}, {"SwapFree", 0},
		{"Dirty", 0}, {"Writeback", 0}, {"AnonPages", total - free}, {"Mapped", 0}, {"Shmem", 0},
		{"Slab", 0}, {"SReclaimable", 0}, {"SUnreclaim", 0}, {"CommitLimit", total / 2}, {"Committed_AS", total - free},
	} {
		fmt.Fprintf(&b, "%-16s%8d kB\n", f.name+":", f.kb)
	}
	for _, name := range []string{"HugePages_Total", "HugePages_Free", "HugePages_Rsvd", "HugePages_Surp"} {
		fmt.Fprintf(&b, "%-16s%8d\n", name+":", 0)
	}
	fmt.Fprintf(&b, "%-16s%8d kB\n%-16s%8d kB\n", "Hugepagesize:", 2048, "Hugetlb:", 0)
	return b.String()
}

// cpuinfoX86 is /proc/cpuinfo for the emulated x86-64 CPU, as Linux
// writes it.
func (p *Process) cpuinfoX86() string {
	m := emu.X86CPU()
	level, _, _, _ := emu.CPUID(0, 0)
	var b strings.Builder
	n := p.cpus()
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "processor\t: %d\n", i)
		fmt.Fprintf(&b, "vendor_id\t: %s\n", m.Vendor)
		fmt.Fprintf(&b, "cpu family\t: %d\n", m.Family)
		fmt.Fprintf(&b, "model\t\t: %d\n", m.Model)
		fmt.Fprintf(&b, "model name\t: %s\n", m.Name)
		fmt.Fprintf(&b, "stepping\t: %d\n", m.Stepping)
		fmt.Fprintf(&b, "cpu MHz\t\t: %d.000\n", m.MHz)
		fmt.Fprintf(&b, "cache size\t: %d KB\n", m.CacheKB)
		fmt.Fprintf(&b, "physical id\t: 0\nsiblings\t: %d\ncore id\t\t: %d\ncpu cores\t: %d\n", n, i, n)
		fmt.Fprintf(&b, "apicid\t\t: %d\ninitial apicid\t: %d\n", i, i)
		fmt.Fprintf(&b, "fpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: %d\nwp\t\t: yes\n", level)
		fmt.Fprintf(&b, "flags\t\t: %s\n", strings.Join(m.Flags, " "))
		fmt.Fprintf(&b, "bogomips\t: %d.00\n", 2*m.MHz)
		fmt.Fprintf(&b, "clflush size\t: %d\ncache_alignment\t: %d\n", m.CLFlush, m.CLFlush)
		fmt.Fprintf(&b, "address sizes\t: %s\npower management:\n\n", m.AddressSizes)
	}
	return b.String()
}

// hwcapNames are Linux's names of the arm64 AT_HWCAP bits.
var hwcapNames = []string{"fp", "asimd", "evtstrm", "aes", "pmull", "sha1", "sha2", "crc32",
	"atomics", "fphp", "asimdhp", "cpuid", "asimdrdm", "jscvt", "fcma", "lrcpc", "dcpop",
	"sha3", "sm3", "sm4", "asimddp", "sha512", "sve", "asimdfhm", "dit", "uscat", "ilrcpc",
	"flagm", "ssbs", "sb", "paca", "pacg"}

// cpuinfoARM64 is /proc/cpuinfo for the emulated cortex-a72 (MIDR
// 0x410fd083), its features those of AT_HWCAP.
func (p *Process) cpuinfoARM64() string {
	var feats []string
	for i, name := range hwcapNames {
		if p.abi.hwcap&(1<<i) != 0 {
			feats = append(feats, name)
		}
	}
	var b strings.Builder
	for i := 0; i < p.cpus(); i++ {
		fmt.Fprintf(&b, "processor\t: %d\n", i)
		fmt.Fprintf(&b, "BogoMIPS\t: %d.00\n", 2*fixedclock.CNTFRQHz/1_000_000)
		fmt.Fprintf(&b, "Features\t: %s\n", strings.Join(feats, " "))
		b.WriteString("CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\nCPU revision\t: 3\n\n")
	}
	return b.String()
}

// readFile reads f, the guest's descriptor fd, into buf for read and
// readv; finish takes the bytes read to the guest, now or when a read
// that blocked ends.
func (p *Process) readFile(f *file, fd uint64, buf []byte, finish func(n int) (uint64, error)) (uint64, error) {
	if n, ok := p.readVirtual(f, buf); ok {
		return finish(n)
	}
	if f.timer != nil {
		p.k.expireTimerfds() // its count up to now
	}
	if f.sock != nil {
		return p.sockRecv(f, fd, buf, 0, nil, func(n, _ int, got unixRecv, _ int) (uint64, error) {
			releaseAll(got.files)
			return finish(n)
		})
	}
	what := "read from " + f.path + " (fd " + itoa(uint64(uint32(fd))) + ")"
	if f.sigfd != nil {
		t := p.k.cur
		return p.hostIO(f, what, 0, func(int) (int, error) { return p.readSignalfd(t, f, buf) }, finish)
	}
	return p.hostIO(f, what, 0, func(int) (int, error) { return unix.Read(f.host, buf) }, finish)
}
