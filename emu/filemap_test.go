package emu

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// fileBytes is the pattern of a test file of n bytes.
func fileBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + i/PageSize*3 + i%7)
	}
	return b
}

// mappedFile makes a file of 3 pages and 100 bytes and maps it on c at a
// (6 pages, read-write, the first 4 the file's, the last 2 past its end).
func mappedFile(t *testing.T, c *CPU, a uint64) (*os.File, []byte) {
	t.Helper()
	data := fileBytes(3*PageSize + 100)
	f := testFile(t, data)
	if err := c.Map(a, 6*PageSize, ProtRead|ProtWrite); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.MapFile(a, 4*PageSize, int(f.Fd()), 0); !ok || err != nil {
		t.Fatalf("MapFile: %v, %v", ok, err)
	}
	if err := c.PastEOF(a+4*PageSize, 2*PageSize); err != nil {
		t.Fatal(err)
	}
	return f, data
}

// testFile writes data to a new file and opens it for reading and
// writing, until the test ends.
func testFile(t *testing.T, data []byte) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// readAt reads n bytes of c's memory at addr, failing the test if it
// cannot.
func readAt(t *testing.T, c *CPU, addr uint64, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if err := c.Read(addr, b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMapFile checks a file's pages in guest memory (MapFile): its bytes
// and zeros after them in its last page; writes kept in memory, never
// reaching the file; the file's later changes shown in pages not
// written; protection changes keeping the file's pages; Zero giving the
// file's bytes back; the pages past the end refused to the guest; unmapped
// memory mapped again reading zeros, not the file.
func TestMapFile(t *testing.T) {
	c := newTestCPU(t, X86_64)
	const a = 0x7fff_f000_0000
	f, data := mappedFile(t, c, a)
	if got := readAt(t, c, a, len(data)); !bytes.Equal(got, data) {
		t.Fatal("the mapping does not hold the file's bytes")
	}
	if got := readAt(t, c, a+uint64(len(data)), 4*PageSize-len(data)); !bytes.Equal(got, make([]byte, len(got))) {
		t.Error("the last page holds more than zeros past the file's end")
	}

	if err := c.WriteAsGuest(a+10, []byte("XY")); err != nil {
		t.Fatal(err)
	}
	on := make([]byte, 2)
	if _, err := f.ReadAt(on, 10); err != nil || !bytes.Equal(on, data[10:12]) {
		t.Errorf("a write to the mapping reached the file: %q, %v", on, err)
	}
	if got := readAt(t, c, a+10, 2); string(got) != "XY" {
		t.Errorf("the write reads back %q", got)
	}
	if _, err := f.WriteAt([]byte("ZZ"), 10); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("QQ"), 2*PageSize+20); err != nil {
		t.Fatal(err)
	}
	if got := readAt(t, c, a+10, 2); string(got) != "XY" {
		t.Errorf("a page written shows the file's change: %q", got)
	}
	if got := readAt(t, c, a+2*PageSize+20, 2); string(got) != "QQ" {
		t.Errorf("a page not written does not show the file's change: %q", got)
	}

	if err := c.Protect(a, 4*PageSize, ProtRead); err != nil {
		t.Fatal(err)
	}
	if err := c.Protect(a, 4*PageSize, ProtRead|ProtWrite); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("PP"), 3*PageSize); err != nil {
		t.Fatal(err)
	}
	if got := readAt(t, c, a+3*PageSize, 2); string(got) != "PP" {
		t.Errorf("after mprotect a page is not the file's: %q", got)
	}
	if err := c.Zero(a, PageSize); err != nil {
		t.Fatal(err)
	}
	if got := readAt(t, c, a+10, 2); string(got) != "ZZ" {
		t.Errorf("Zero of a file's page gives %q, not the file's bytes", got)
	}

	if n := c.Accessible(a+4*PageSize-8, 100, ProtRead); n != 8 {
		t.Errorf("the guest may read %d bytes from 8 before the end of the file's pages, want 8", n)
	}
	if err := c.Protect(a+4*PageSize, PageSize, ProtRead|ProtWrite); err != nil {
		t.Fatal(err)
	}
	if n := c.Accessible(a+4*PageSize, 100, ProtRead); n != 0 {
		t.Errorf("the guest may read %d bytes past the end of the file, made read-write", n)
	}

	if err := c.Unmap(a, 6*PageSize); err != nil {
		t.Fatal(err)
	}
	if err := c.Map(a, 6*PageSize, ProtRead); err != nil {
		t.Fatal(err)
	}
	if got := readAt(t, c, a, 6*PageSize); !bytes.Equal(got, make([]byte, len(got))) {
		t.Error("memory mapped again where a file was does not read zeros")
	}
	if n := c.Accessible(a, 6*PageSize, ProtRead); n != 6*PageSize {
		t.Errorf("memory mapped again where a file was: %d bytes accessible", n)
	}
}

// TestMapFileFork checks a fork's copy of memory where a file is mapped:
// every page of the file, read before or not, the parent's writes, the
// pages past its end refused still, the child's writes its own.
func TestMapFileFork(t *testing.T) {
	parent := newTestCPU(t, X86_64)
	const a = 0x7fff_f000_0000
	f, data := mappedFile(t, parent, a)
	if err := parent.Write(a+PageSize, []byte("parent")); err != nil {
		t.Fatal(err)
	}
	child := newTestCPU(t, X86_64)
	if err := child.CopyMemoryFrom(parent); err != nil {
		t.Fatal(err)
	}
	want := append([]byte(nil), data...)
	copy(want[PageSize:], "parent")
	if got := readAt(t, child, a, len(data)); !bytes.Equal(got, want) {
		t.Fatal("the child's memory is not the parent's")
	}
	if n := child.Accessible(a+4*PageSize, PageSize, ProtRead); n != 0 {
		t.Errorf("the child may read %d bytes past the end of the file", n)
	}
	if err := child.Write(a+2*PageSize, []byte("child")); err != nil {
		t.Fatal(err)
	}
	if got := readAt(t, parent, a+2*PageSize, 5); !bytes.Equal(got, data[2*PageSize:2*PageSize+5]) {
		t.Errorf("the child's write reached the parent: %q", got)
	}
	on := make([]byte, 5)
	if _, err := f.ReadAt(on, 2*PageSize); err != nil || !bytes.Equal(on, data[2*PageSize:2*PageSize+5]) {
		t.Errorf("the child's write reached the file: %q, %v", on, err)
	}
}

// TestMapFileForkShares checks that a fork's child maps the files its
// parent's pages show, not copies of them: the file's later changes show
// in the pages neither wrote, the parent's writes stay in the child, Zero
// gives the child the file's bytes back, and a page where the parent
// mapped a second file over the first shows the second.
func TestMapFileForkShares(t *testing.T) {
	parent := newTestCPU(t, X86_64)
	const a = 0x7fff_f000_0000
	f, data := mappedFile(t, parent, a)
	if err := parent.Write(a+10, []byte("parent")); err != nil {
		t.Fatal(err)
	}
	// Page 1 becomes a second file's first page.
	second := fileBytes(PageSize)
	for i := range second {
		second[i] ^= 0x55
	}
	g := testFile(t, second)
	if err := parent.Unmap(a+PageSize, PageSize); err != nil {
		t.Fatal(err)
	}
	if err := parent.Map(a+PageSize, PageSize, ProtRead|ProtWrite); err != nil {
		t.Fatal(err)
	}
	if ok, err := parent.MapFile(a+PageSize, PageSize, int(g.Fd()), 0); !ok || err != nil {
		t.Fatalf("MapFile: %v, %v", ok, err)
	}
	child := newTestCPU(t, X86_64)
	if err := child.CopyMemoryFrom(parent); err != nil {
		t.Fatal(err)
	}
	want := append([]byte(nil), data...)
	copy(want[10:], "parent")
	copy(want[PageSize:], second)
	if got := readAt(t, child, a, len(want)); !bytes.Equal(got, want) {
		t.Fatal("the child's memory is not the parent's")
	}
	// The files change under both.
	if _, err := f.WriteAt([]byte("FILE"), 2*PageSize+7); err != nil {
		t.Fatal(err)
	}
	if _, err := g.WriteAt([]byte("SECOND"), 30); err != nil {
		t.Fatal(err)
	}
	if got := readAt(t, child, a+2*PageSize+7, 4); string(got) != "FILE" {
		t.Errorf("the child's page 2 does not show the file's change: %q", got)
	}
	if got := readAt(t, child, a+PageSize+30, 6); string(got) != "SECOND" {
		t.Errorf("the child's page 1 does not show the second file's change: %q", got)
	}
	if got := readAt(t, child, a+10, 6); string(got) != "parent" {
		t.Errorf("the parent's write is not the child's: %q", got)
	}
	if err := child.Zero(a, PageSize); err != nil {
		t.Fatal(err)
	}
	if got := readAt(t, child, a+10, 6); !bytes.Equal(got, data[10:16]) {
		t.Errorf("Zero did not give the child the file's bytes back: %q", got)
	}
	if got := readAt(t, parent, a+10, 6); string(got) != "parent" {
		t.Errorf("the child's Zero reached the parent: %q", got)
	}
}

// TestMapFileRecordsBounded maps a file and unmaps it again and again:
// what the CPU keeps of the file mappings for a fork (a descriptor each)
// goes once no page shows them.
func TestMapFileRecordsBounded(t *testing.T) {
	c := newTestCPU(t, X86_64)
	const a = 0x7fff_f000_0000
	f, _ := mappedFile(t, c, a)
	openFDs := func() int {
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip(err)
		}
		return len(entries)
	}
	before := openFDs()
	for range 200 {
		if err := c.Unmap(a, 6*PageSize); err != nil {
			t.Fatal(err)
		}
		if err := c.Map(a, 4*PageSize, ProtRead); err != nil {
			t.Fatal(err)
		}
		if ok, err := c.MapFile(a, 4*PageSize, int(f.Fd()), 0); !ok || err != nil {
			t.Fatalf("MapFile: %v, %v", ok, err)
		}
		if err := c.Map(a+4*PageSize, 2*PageSize, ProtRead); err != nil {
			t.Fatal(err)
		}
	}
	if after := openFDs(); after > before+16 {
		t.Errorf("%d descriptors open after 200 mappings of a file, %d before", after, before)
	}
}

// TestMapFileSpare checks that a spare engine's memory, where a file was
// mapped, reads zeros for the next program.
func TestMapFileSpare(t *testing.T) {
	c, err := New(X86_64, Hooks{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const a = 0x7fff_f000_0000
	mappedFile(t, c, a)
	s, err := c.Spare()
	if err != nil {
		t.Fatal(err)
	}
	next, err := s.CPU(Hooks{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(next.Close)
	if err := next.Map(a, 4*PageSize, ProtRead); err != nil {
		t.Fatal(err)
	}
	if got := readAt(t, next, a, 4*PageSize); !bytes.Equal(got, make([]byte, len(got))) {
		t.Error("the next program's memory holds the file's bytes")
	}
}
