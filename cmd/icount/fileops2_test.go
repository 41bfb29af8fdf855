package main

// The file calls that pass through to the host's files: truncate,
// fallocate, the syncs, readahead, preadv and pwritev and their v2 forms,
// splice and tee, the xattr setters, x86-64's old getdents and
// memfd_create with its seals (issue 15).

import (
	"strings"
	"testing"
)

// TestFileops2 runs testdata/c/fileops2.c (each call with what succeeds
// and the errors Linux gives) in a new directory, built musl- and
// glibc-static for amd64 and glibc-static for arm64: under icount it
// prints, line for line, what it prints natively (under qemu-aarch64 for
// arm64), where it runs as uid 1000 as icount's guest does, and exits 0.
func TestFileops2(t *testing.T) {
	sameAsLinux(t, []string{"c/fileops2-musl", "c/fileops2-glibc", "arm64/c/fileops2-glibc"}, func(out string) bool {
		return strings.HasSuffix(out, "F_ADD_SEALS on a file: EINVAL\ndone\n") && strings.Count(out, "\n") >= 120
	})
}
