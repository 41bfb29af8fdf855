package kernel

import (
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// TestTablesShareHandlers checks that every system call the x86-64 table
// emulates and the generic (arm64) numbering has is in the arm64 table with
// the same handler, and that the arm64 table knows a name for every
// number it holds.
func TestTablesShareHandlers(t *testing.T) {
	byName := map[string]*Syscall{}
	for _, sc := range abiAArch64.table {
		if sc != nil {
			byName[sc.Name] = sc
		}
	}
	for _, x := range abiX86_64.table {
		if x == nil || x.Handler == nil {
			continue
		}
		a, ok := byName[x.Name]
		if !ok {
			continue // not in the generic numbering (open, stat, arch_prctl, ...)
		}
		if a.Handler == nil {
			t.Errorf("%s is emulated on x86-64 but not on arm64 (nr %d)", x.Name, a.Nr)
			continue
		}
		if reflect.ValueOf(a.Handler).Pointer() != reflect.ValueOf(x.Handler).Pointer() {
			t.Errorf("%s: arm64 and x86-64 use different handlers", x.Name)
		}
	}
	// Numbers of the generic table, checked against asm-generic/unistd.h.
	for nr, name := range map[uint64]string{56: "openat", 63: "read", 64: "write", 94: "exit_group",
		113: "clock_gettime", 214: "brk", 222: "mmap", 79: "newfstatat", 80: "fstat", 220: "clone"} {
		if sc := abiAArch64.table[nr]; sc == nil || sc.Name != name {
			t.Errorf("arm64 system call %d is %v, want %s", nr, sc, name)
		}
	}
	for _, name := range []string{"open", "stat", "lstat", "access", "fork", "poll", "pipe", "dup2"} {
		if _, ok := byName[name]; ok {
			t.Errorf("arm64 has no %s system call", name)
		}
	}
}

// TestStatGeneric checks the 128-byte asm-generic struct stat arm64 uses.
func TestStatGeneric(t *testing.T) {
	st := unix.Stat_t{Dev: 1, Ino: 2, Nlink: 3, Mode: 0o100644, Uid: 5, Gid: 6, Rdev: 7, Size: 8,
		Blksize: 9, Blocks: 10, Atim: unix.Timespec{Sec: 11, Nsec: 12},
		Mtim: unix.Timespec{Sec: 13, Nsec: 14}, Ctim: unix.Timespec{Sec: 15, Nsec: 16}}
	b := statGeneric(&st)
	if len(b) != 128 {
		t.Fatalf("struct stat is %d bytes, want 128", len(b))
	}
	le := binary.LittleEndian
	for _, f := range []struct {
		name      string
		off, size int
		want      uint64
	}{
		{"st_dev", 0, 8, 1}, {"st_ino", 8, 8, 2}, {"st_mode", 16, 4, 0o100644}, {"st_nlink", 20, 4, 3},
		{"st_uid", 24, 4, 5}, {"st_gid", 28, 4, 6}, {"st_rdev", 32, 8, 7}, {"st_size", 48, 8, 8},
		{"st_blksize", 56, 4, 9}, {"st_blocks", 64, 8, 10}, {"st_atime", 72, 8, 11},
		{"st_atime_nsec", 80, 8, 12}, {"st_mtime", 88, 8, 13}, {"st_mtime_nsec", 96, 8, 14},
		{"st_ctime", 104, 8, 15}, {"st_ctime_nsec", 112, 8, 16},
	} {
		var got uint64
		if f.size == 4 {
			got = uint64(le.Uint32(b[f.off:]))
		} else {
			got = le.Uint64(b[f.off:])
		}
		if got != f.want {
			t.Errorf("%s at %d = %d, want %d", f.name, f.off, got, f.want)
		}
	}
}

// TestOpenFlagsAArch64 checks the conversion of the four open flags whose
// numbers differ between arm64 and the x86-64 host.
func TestOpenFlagsAArch64(t *testing.T) {
	for guest, host := range map[uint64]int{
		0o40000:  unix.O_DIRECTORY,
		0o100000: unix.O_NOFOLLOW,
		0o200000: unix.O_DIRECT,
		0o400000: unix.O_LARGEFILE,
		0o2000000 | 0o40000 | 0o1 | 0o100 | 0o1000 | 0o2000 | 0o4000: unix.O_CLOEXEC | unix.O_DIRECTORY |
			unix.O_WRONLY | unix.O_CREAT | unix.O_TRUNC | unix.O_APPEND | unix.O_NONBLOCK,
		0o20000000 | 0o40000: unix.O_TMPFILE, // O_TMPFILE includes O_DIRECTORY
	} {
		if got := openFlagsAArch64(guest); got != host {
			t.Errorf("guest %#o: host %#o, want %#o", guest, got, host)
		}
	}
}

// TestHwcapAArch64 checks that AT_HWCAP advertises exactly the features
// of the emulated cortex-a72 (testdata/arm64/simd.S executes one
// instruction of each), and that the ABI is wired as arm64 needs it.
func TestHwcapAArch64(t *testing.T) {
	// FP, ASIMD, AES, PMULL, SHA1, SHA2, CRC32, CPUID: bits 0, 1, 3-7
	// and 11. Not EVTSTRM (2), ATOMICS (8, LSE), FPHP/ASIMDHP, SVE, ...
	if abiAArch64.hwcap != 0x8fb {
		t.Errorf("AT_HWCAP %#x, want 0x8fb", abiAArch64.hwcap)
	}
	if abiAArch64.platform != "aarch64" || abiAArch64.svcIntno != 2 || abiAArch64.arch != emu.ARM64 {
		t.Errorf("arm64 ABI: platform %q, svc intno %d, arch %v", abiAArch64.platform, abiAArch64.svcIntno, abiAArch64.arch)
	}
	if abiAArch64.nr != emu.ARM64X(8) || abiAArch64.ret != emu.ARM64X(0) || abiAArch64.args[5] != emu.ARM64X(5) {
		t.Error("arm64 system calls take the number in x8, arguments in x0..x5, return in x0")
	}
}
