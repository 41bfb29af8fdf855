#!/usr/bin/env bash
# Fetches Debian's arm64 python3.11 (python3.11-minimal), lua5.4 and bzip2,
# with every package they depend on (libc6, the libraries, ld.so), from
# this machine's Debian suite and mirror, and unpacks them into
# .deps/sysroot-arm64: a sysroot for the arm64 rows of `make bench`, run as
# `icount run --sysroot DIR DIR/usr/bin/python3.11` and
# `qemu-aarch64 -L DIR DIR/usr/bin/python3.11`. The packages are downloaded
# with `apt-get install --download-only` through a private apt state
# (scripts/apt-private.sh) whose dpkg status is empty, so apt resolves the
# whole closure; the machine's apt configuration and dpkg architectures are
# not touched. The packages are unpacked beside DIR and moved into place
# whole, with their versions listed in DIR/VERSIONS.
# Usage: scripts/fetch-sysroot-arm64.sh
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/apt-private.sh"

packages=(python3.11-minimal lua5.4 bzip2)
out="$top/.deps/sysroot-arm64"

say() { printf 'sysroot-arm64: %s\n' "$*" >&2; }

[ -f "$out/VERSIONS" ] && exit 0

suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
if [ -z "$suite" ]; then
  say "cannot tell this machine's Debian suite from /etc/os-release"
  exit 1
fi
if ! mirror=$(debian_mirror); then
  say "no Debian mirror found in /etc/apt/sources.list*; cannot fetch ${packages[*]} for arm64"
  exit 1
fi

apt="$top/.deps/apt-sysroot-arm64"
say "fetching ${packages[*]} for arm64 from Debian $suite via $mirror"
apt_private "$apt" "$mirror" "$suite" arm64
apt-get -qq "${APT_OPTS[@]}" update >/dev/null
apt-get -qq "${APT_OPTS[@]}" install --download-only --no-install-recommends -y "${packages[@]}" >/dev/null

rm -rf "$out" "$out.new"
for deb in "$apt"/cache/archives/*.deb; do
  dpkg-deb -x "$deb" "$out.new"
  printf '%s %s\n' "$(dpkg-deb -f "$deb" Package)" "$(dpkg-deb -f "$deb" Version)"
done | sort > "$apt/VERSIONS"
mv "$apt/VERSIONS" "$out.new/VERSIONS"
mv "$out.new" "$out"
rm -rf "$apt"
say "$(wc -l < "$out/VERSIONS") packages ready in .deps/sysroot-arm64"
