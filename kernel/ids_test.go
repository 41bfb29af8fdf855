package kernel

import "testing"

// TestForgetFileRenumbers checks that a file the guest makes where the
// host reused a deleted file's inode gets a number of its own, the next
// one, as it does where the host gave a fresh inode: its number does not
// depend on what the host reused.
func TestForgetFileRenumbers(t *testing.T) {
	k := &Kernel{}
	old, other := fileID{1, 100}, fileID{1, 200}
	if g := k.guestIno(old.dev, old.ino); g != 2 {
		t.Fatalf("first file: %d, want 2", g)
	}
	if g := k.guestIno(other.dev, other.ino); g != 3 {
		t.Fatalf("second file: %d, want 3", g)
	}
	k.forgetFile(old) // deleted, its inode given to a file the guest made
	if g := k.guestIno(old.dev, old.ino); g != 4 {
		t.Errorf("made on a reused inode: %d, want 4", g)
	}
	if g := k.guestIno(other.dev, other.ino); g != 3 {
		t.Errorf("the other file: %d, want 3 still", g)
	}
}
