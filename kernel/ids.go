package kernel

import "os"

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
