#!/usr/bin/env bash
# Fetches Debian's busybox-static for amd64 and arm64, from this machine's
# Debian suite and mirror, into .deps/busybox/ARCH/busybox (with the
# package version beside it in VERSION). Each arch is downloaded with
# `apt-get download` through a private apt state (scripts/apt-private.sh):
# the machine's apt configuration and dpkg architectures are not touched.
# The arm64 binary is a real program nobody here wrote, run under icount by
# the arm64 tests and compared with the amd64 one run natively.
# Usage: scripts/fetch-busybox.sh
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/apt-private.sh"

say() { printf 'busybox: %s\n' "$*" >&2; }

suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
if [ -z "$suite" ]; then
  say "cannot tell this machine's Debian suite from /etc/os-release"
  exit 1
fi
if ! mirror=$(debian_mirror); then
  say "no Debian mirror found in /etc/apt/sources.list*; cannot fetch busybox-static"
  exit 1
fi

for arch in amd64 arm64; do
  out="$top/.deps/busybox/$arch"
  [ -x "$out/busybox" ] && continue
  apt="$top/.deps/apt-busybox-$arch"
  say "fetching busybox-static for $arch from Debian $suite via $mirror"
  apt_private "$apt" "$mirror" "$suite" "$arch"
  apt-get -qq "${APT_OPTS[@]}" update >/dev/null
  (cd "$apt/debs" && apt-get -qq "${APT_OPTS[@]}" download "busybox-static:$arch" >/dev/null)
  deb=$(ls "$apt"/debs/busybox-static_*.deb)
  dpkg-deb -x "$deb" "$apt/root"
  mkdir -p "$out"
  cp "$apt/root/bin/busybox" "$out/busybox"
  dpkg-deb -f "$deb" Version > "$out/VERSION"
  rm -rf "$apt"
  say "busybox-static $(cat "$out/VERSION") for $arch ready in .deps/busybox/$arch"
done
