package kernel

import (
	"os"

	"golang.org/x/sys/unix"
)

// The guest runs as uid UID and gid GID. The host user running icount is
// mapped onto them, as a user namespace maps ids: files the host user owns
// are the guest's own (git checks that a repository is), and the ids swap
// places, so that files of a host user numbered UID show as owned by the
// host user's number. Every other id is seen as it is.

var hostUID, hostGID = uint32(os.Geteuid()), uint32(os.Getegid())

// guestID maps a host id onto the guest's view, with host the host
// user's id and guest the guest's.
func guestID(id, host, guest uint32) uint32 {
	switch id {
	case host:
		return guest
	case guest:
		return host
	}
	return id
}

// guestUID and guestGID are the guest's view of a host file's owner and
// group; hostUIDOf and hostGIDOf take a guest's id back to the host's
// (the mapping is its own inverse). ^0, "keep", stays.
func guestUID(id uint32) uint32 { return guestID(id, hostUID, UID) }
func guestGID(id uint32) uint32 { return guestID(id, hostGID, GID) }

func hostUIDOf(id uint32) uint32 {
	if id == ^uint32(0) {
		return id
	}
	return guestID(id, hostUID, UID)
}

func hostGIDOf(id uint32) uint32 {
	if id == ^uint32(0) {
		return id
	}
	return guestID(id, hostGID, GID)
}

// Inode and device numbers are the host's state, different on every run
// that makes its files anew and on every machine, and a program's work can
// depend on them (git hashes its index, which holds them). The guest sees
// each host device and each host file numbered in the order it first
// meets them: the same on every run, and one to one, so two names of one
// file still compare equal.

// guestDev is the guest's number of the host device dev.
func (k *Kernel) guestDev(dev uint64) uint64 {
	if k.devs == nil {
		k.devs = map[uint64]uint64{}
	}
	g, ok := k.devs[dev]
	if !ok {
		g = unix.Mkdev(8, uint32(len(k.devs)+1))
		k.devs[dev] = g
	}
	return g
}

// hostDev is the host device the guest knows as guest.
func (k *Kernel) hostDev(guest uint64) (uint64, bool) {
	for host, g := range k.devs {
		if g == guest {
			return host, true
		}
	}
	return 0, false
}

// guestIno is the guest's number of the host file ino on device dev.
func (k *Kernel) guestIno(dev, ino uint64) uint64 {
	if k.inos == nil {
		k.inos = map[fileID]uint64{}
	}
	key := fileID{dev, ino}
	g, ok := k.inos[key]
	if !ok {
		k.inosGiven++
		g = k.inosGiven + 1 // 1 is no file's, as on ext4
		k.inos[key] = g
	}
	return g
}

// forgetFile drops what the guest knew of the host file id (its number and
// its guest-time stamps) when the guest has just made a file that has it:
// the host gives a new file the inode number of one deleted before, or
// another, as its own state has it (how busy its file system is), and the
// new file is not the old one. It is numbered anew when the guest meets it.
func (k *Kernel) forgetFile(id fileID) {
	delete(k.inos, id)
	delete(k.stamps, id)
}
