package kernel

import (
	"os"
	"strconv"
	"strings"
)

// /etc/passwd and /etc/group as the guest reads them: the host's, with
// the ids mapped as every other answer maps them (ids.go), so that the
// names agree with the numbers. The host user running icount is UID
// there, and `id`, `ls -l` and `whoami` name the host user as they do
// natively, not the stranger the host numbers UID; root running icount
// sees root as UID, and the host's UID as 0.

// idFile returns the guest's view of /etc/passwd or /etc/group.
func (p *Process) idFile(path string) (string, bool) {
	var idField int // the field of the uid (passwd) or gid (group)
	var mapID func(uint32) uint32
	switch path {
	case "/etc/passwd":
		idField, mapID = 2, guestUID
	case "/etc/group":
		idField, mapID = 2, guestGID
	default:
		return "", false
	}
	var text []byte
	if _, err := p.resolve(path, func(host string) (err error) { text, err = os.ReadFile(host); return err }); err != nil {
		return "", false // as the host has it: not there, or unreadable
	}
	lines := strings.SplitAfter(string(text), "\n")
	for i, line := range lines {
		fields := strings.Split(line, ":")
		if len(fields) <= idField+1 {
			continue
		}
		id, err := strconv.ParseUint(fields[idField], 10, 32)
		if err != nil {
			continue
		}
		fields[idField] = strconv.FormatUint(uint64(mapID(uint32(id))), 10)
		if path == "/etc/passwd" { // its gid follows
			if gid, err := strconv.ParseUint(fields[idField+1], 10, 32); err == nil {
				fields[idField+1] = strconv.FormatUint(uint64(guestGID(uint32(gid))), 10)
			}
		}
		lines[i] = strings.Join(fields, ":")
	}
	return strings.Join(lines, ""), true
}
