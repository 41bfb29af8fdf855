package kernel

import (
	"encoding/binary"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// The arm64 system-call boundary: svc #0 with the number in x8, the
// arguments in x0..x5 and the result in x0. Unicorn delivers svc as CPU
// exception 2 (EXCP_SWI) with the PC already past the instruction.

// AT_HWCAP bits (arch/arm64/include/uapi/asm/hwcap.h) of the features the
// emulated cortex-a72 executes: its ID_AA64PFR0 has FP and AdvSIMD, its
// ID_AA64ISAR0 AES with PMULL, SHA1, SHA2 and CRC32. It has no LSE atomics
// (ARMv8.1), no SVE and no later extension, so nothing else is set, and
// AT_HWCAP2 is 0. HWCAP_CPUID says that mrs of the ID registers works at
// EL0, as Linux emulates it (emu serves the values Linux shows).
const (
	hwcapFP     = 1 << 0
	hwcapASIMD  = 1 << 1
	hwcapAES    = 1 << 3
	hwcapPMULL  = 1 << 4
	hwcapSHA1   = 1 << 5
	hwcapSHA2   = 1 << 6
	hwcapCRC32  = 1 << 7
	hwcapCPUID  = 1 << 11
	hwcapA72    = hwcapFP | hwcapASIMD | hwcapAES | hwcapPMULL | hwcapSHA1 | hwcapSHA2 | hwcapCRC32 | hwcapCPUID
	excpSWI     = 2 // QEMU's EXCP_SWI: svc
	svcInsnSize = 4
)

var abiAArch64 = &abi{
	arch:          emu.ARM64,
	nr:            emu.ARM64X(8),
	ret:           emu.ARM64X0,
	args:          [6]emu.Reg{emu.ARM64X(0), emu.ARM64X(1), emu.ARM64X(2), emu.ARM64X(3), emu.ARM64X(4), emu.ARM64X(5)},
	pc:            emu.ARM64PC,
	sp:            emu.ARM64SP,
	tls:           emu.ARM64TPIDR,
	cloneTLSArg:   3,
	cloneCTIDArg:  4,
	resumePC:      func(cpu CPU) uint64 { return cpu.Reg(emu.ARM64PC) },
	syscallSize:   svcInsnSize,
	table:         newTable(emu.ARM64),
	hwcap:         hwcapA72,
	platform:      "aarch64",
	svcIntno:      excpSWI,
	sigactionSize: 32, // handler, flags, restorer, mask: 8 bytes each
	start: func(cpu CPU, sp uint64) error {
		return cpu.SetReg(emu.ARM64SP, sp)
	},
	// The exception is taken with the PC past the svc.
	syscallPC: func(cpu CPU) uint64 { return cpu.Reg(emu.ARM64PC) - svcInsnSize },
	stat:      statGeneric,
	openFlags: openFlagsAArch64,
	// 48-bit user addresses (VA_BITS 48; no tagged-address ABI asked for).
	userTop: 1 << 48,
}

func init() { register(abiAArch64) }

// statGeneric encodes struct stat as asm-generic/stat.h lays it out for
// 64-bit arches (128 bytes), which arm64 uses.
func statGeneric(st *unix.Stat_t) []byte {
	le := binary.LittleEndian
	b := make([]byte, 0, 128)
	b = le.AppendUint64(b, st.Dev)
	b = le.AppendUint64(b, st.Ino)
	b = le.AppendUint32(b, st.Mode)
	b = le.AppendUint32(b, uint32(st.Nlink))
	b = le.AppendUint32(b, st.Uid)
	b = le.AppendUint32(b, st.Gid)
	b = le.AppendUint64(b, st.Rdev)
	b = le.AppendUint64(b, 0) // __pad1
	b = le.AppendUint64(b, uint64(st.Size))
	b = le.AppendUint32(b, uint32(st.Blksize))
	b = le.AppendUint32(b, 0) // __pad2
	b = le.AppendUint64(b, uint64(st.Blocks))
	for _, t := range []unix.Timespec{st.Atim, st.Mtim, st.Ctim} {
		b = le.AppendUint64(b, uint64(t.Sec))
		b = le.AppendUint64(b, uint64(t.Nsec))
	}
	return append(b, make([]byte, 8)...) // __unused4, __unused5
}

// Open flags where arm64 numbers differ from x86-64 (the host's); every
// other flag has the same value on both.
const (
	armODirectory = 0o40000
	armONofollow  = 0o100000
	armODirect    = 0o200000
	armOLargefile = 0o400000
)

// openFlagsAArch64 converts arm64 open flags to the x86-64 host's.
func openFlagsAArch64(f uint64) int {
	conv := [...]struct {
		guest uint64
		host  int
	}{
		{armODirectory, unix.O_DIRECTORY},
		{armONofollow, unix.O_NOFOLLOW},
		{armODirect, unix.O_DIRECT},
		{armOLargefile, unix.O_LARGEFILE},
	}
	var host int
	for _, c := range conv {
		if f&c.guest != 0 {
			host |= c.host
			f &^= c.guest
		}
	}
	return host | int(f)
}
