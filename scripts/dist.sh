#!/usr/bin/env bash
# Writes the release archive of icount for linux-amd64 (make dist):
#   DIR/icount-VERSION-linux-amd64.tar.gz, holding icount-VERSION-linux-amd64/
#     icount       the static binary (no shared library at all)
#     SHA256SUMS   its SHA-256
#     README.md    the README
#     LICENSE      icount's licence, when the repository has one
#     licenses/    the licence texts of what the binary holds: Go and the Go
#                  modules it links, Unicorn, glibc
#   DIR/icount-VERSION-linux-amd64.tar.gz.sha256, the archive's SHA-256.
# The archive is the same bytes for the same inputs (sorted, owned by root,
# dated by the commit).
# Usage: scripts/dist.sh STATIC-BINARY VERSION DIR
set -euo pipefail

bin=$1 version=$2 out=$3
top=$(cd "$(dirname "$0")/.." && pwd)
name="icount-$version-linux-amd64"

say() { printf 'dist: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# The binary must hold everything: no interpreter, no shared library.
file -b "$bin" | grep -q 'statically linked' || die "$bin is not statically linked: $(file -b "$bin")"
if ldd "$bin" >/dev/null 2>&1; then
  die "$bin: ldd finds shared libraries: $(ldd "$bin" | tr '\n' ' ')"
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
dir="$stage/$name"
mkdir -p "$dir/licenses"
install -m 0755 "$bin" "$dir/icount"
(cd "$dir" && sha256sum icount > SHA256SUMS)
cp "$top/README.md" "$dir/"
for f in LICENSE LICENSE.md COPYING; do
  [ -f "$top/$f" ] && cp "$top/$f" "$dir/"
done

# Go's, and each module the binary links (as go list names them).
install -m 0644 "$(go env GOROOT)/LICENSE" "$dir/licenses/go.txt"
while read -r path moddir; do
  [ -n "$moddir" ] || continue
  lic=$(find "$moddir" -maxdepth 1 -type f \( -iname 'LICENSE*' -o -iname 'COPYING*' \) | sort | head -n 1)
  [ -n "$lic" ] || die "module $path has no licence file in $moddir"
  install -m 0644 "$lic" "$dir/licenses/$(echo "$path" | tr '/' '_').txt"
done < <(cd "$top" && go list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Dir}}{{end}}{{end}}' ./cmd/icount | sort -u)

# Unicorn's (kept by scripts/deps.sh with the library, or the system's
# package's) and glibc's, both linked in.
found=
for f in "$top/.deps/unicorn/copyright" /usr/share/doc/libunicorn-dev/copyright; do
  if [ -f "$f" ]; then install -m 0644 "$f" "$dir/licenses/unicorn.txt"; found=1; break; fi
done
[ -n "$found" ] || die "Unicorn's licence text is missing: rm -rf .deps/unicorn and run make deps to fetch it with the library"
[ -f /usr/share/doc/libc6/copyright ] || die "glibc's licence text (/usr/share/doc/libc6/copyright) is missing"
install -m 0644 /usr/share/doc/libc6/copyright "$dir/licenses/glibc.txt"

mkdir -p "$out"
epoch=$(git -C "$top" log -1 --format=%ct 2>/dev/null || echo 0)
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
    -C "$stage" -cf - "$name" | gzip -n -9 > "$out/$name.tar.gz"
(cd "$out" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
say "$out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1)), sha256 $(cut -d' ' -f1 "$out/$name.tar.gz.sha256")"
