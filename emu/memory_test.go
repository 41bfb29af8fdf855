package emu

import (
	"bytes"
	"testing"
)

func newTestCPU(t *testing.T, arch Arch) *CPU {
	t.Helper()
	c, err := New(arch, Hooks{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// newCodeCPU makes an x86-64 CPU with hooks and opts, and code at 0x10000
// in a page of its own.
func newCodeCPU(t testing.TB, hooks Hooks, opts Options, code []byte) *CPU {
	t.Helper()
	c, err := New(X86_64, hooks, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if err := c.Map(0x10000, PageSize, ProtRead|ProtExec); err != nil {
		t.Fatal(err)
	}
	if err := c.Write(0x10000, code); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestMemoryMapping checks the page table through the CPU's memory calls:
// mapping, permissions as the guest has them, unmapping to zeros.
func TestMemoryMapping(t *testing.T) {
	c := newTestCPU(t, X86_64)
	const a = 0x7fff_f000_0000
	if err := c.Map(a, 4*PageSize, ProtRead|ProtWrite); err != nil {
		t.Fatal(err)
	}
	if err := c.Map(a+3*PageSize, 2*PageSize, ProtRead); err == nil {
		t.Error("a mapping over a mapped page was accepted")
	}
	for _, bad := range [][2]uint64{{a + 1, PageSize}, {a, 0}, {1 << 48, PageSize}, {1<<48 - PageSize, 2 * PageSize}} {
		if err := c.Map(bad[0], bad[1], ProtRead); err == nil {
			t.Errorf("map %#x+%#x was accepted", bad[0], bad[1])
		}
	}
	data := []byte("page table")
	if err := c.WriteAsGuest(a+PageSize-4, data); err != nil {
		t.Fatal(err)
	}
	if err := c.Protect(a, PageSize, ProtRead); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(data))
	if err := c.ReadAsGuest(a+PageSize-4, got); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %q, %v", got, err)
	}
	if err := c.WriteAsGuest(a+PageSize-4, data); err == nil {
		t.Error("the guest may not write a read-only page")
	}
	if err := c.Write(a+PageSize-4, data); err != nil {
		t.Errorf("icount writes whatever the permissions: %v", err)
	}
	if err := c.Protect(a, PageSize, ProtNone); err != nil {
		t.Fatal(err)
	}
	if err := c.ReadAsGuest(a, got); err == nil {
		t.Error("the guest may not read a PROT_NONE page")
	}
	if err := c.Protect(a, 8*PageSize, ProtRead); err == nil {
		t.Error("protect over unmapped pages was accepted")
	}
	// A write-only page reads, as on both CPUs.
	if err := c.Protect(a+2*PageSize, PageSize, ProtWrite); err != nil {
		t.Fatal(err)
	}
	if err := c.ReadAsGuest(a+2*PageSize, got); err != nil {
		t.Errorf("a writable page is readable: %v", err)
	}

	// Unmapped memory cannot be read, and reads zeros once mapped again.
	if err := c.Unmap(a, 8*PageSize); err != nil {
		t.Fatal(err)
	}
	if err := c.Read(a+PageSize, got); err == nil {
		t.Error("an unmapped page was read")
	}
	if err := c.Map(a, 4*PageSize, ProtRead); err != nil {
		t.Fatal(err)
	}
	if err := c.Read(a+PageSize-4, got); err != nil || !bytes.Equal(got, make([]byte, len(got))) {
		t.Errorf("a fresh mapping reads %q, %v", got, err)
	}
}

// TestMemoryManyMappings keeps 20,000 separate mappings (Unicorn's own
// regions abort at about 4,000) and a 1 TiB reservation with no access,
// of which one page is then made writable.
func TestMemoryManyMappings(t *testing.T) {
	c := newTestCPU(t, ARM64)
	const base = 0x10_0000_0000
	for i := uint64(0); i < 20000; i++ {
		prot := ProtRead
		if i%2 == 0 {
			prot |= ProtWrite
		}
		if err := c.Map(base+2*i*PageSize, PageSize, prot); err != nil {
			t.Fatalf("mapping %d: %v", i, err)
		}
	}
	if err := c.WriteAsGuest(base+2*19998*PageSize, []byte{1}); err != nil {
		t.Error(err)
	}
	if err := c.WriteAsGuest(base+2*19999*PageSize, []byte{1}); err == nil {
		t.Error("a read-only mapping was written")
	}
	const big = 0x8000_0000_0000
	if err := c.Map(big, 1<<40, ProtNone); err != nil {
		t.Fatal(err)
	}
	if err := c.Protect(big+1<<39, PageSize, ProtRead|ProtWrite); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteAsGuest(big+1<<39, []byte{2}); err != nil {
		t.Error(err)
	}
	if err := c.Unmap(big, 1<<40); err != nil {
		t.Fatal(err)
	}
}
