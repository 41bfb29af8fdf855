#!/usr/bin/env bash
# Installs what icount needs to build and test, without touching the
# machine's apt configuration beyond installing Debian packages:
#   - Unicorn >= 2.1 as a static library in .deps/unicorn (from Debian trixie,
#     through a private apt state directory that reuses this machine's mirror,
#     or linked from a system libunicorn >= 2.1 that pkg-config finds with its
#     static library), and .deps/pkgconfig/unicorn.pc naming it, where the
#     Makefile points pkg-config (emu's cgo asks pkg-config for unicorn);
#   - the Debian packages named on the command line (apt-get when root,
#     otherwise a message naming them).
# Usage: scripts/deps.sh [debian-package ...]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
deps="$top/.deps"
uni="$deps/unicorn"
multiarch=x86_64-linux-gnu

say() { printf 'deps: %s\n' "$*" >&2; }

# --- Debian packages -------------------------------------------------------
missing=()
for pkg in "$@"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null || apt-get update
    apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    say "missing Debian packages: ${missing[*]}"
    say "install them with: sudo apt-get install ${missing[*]}"
    exit 1
  fi
fi

# --- Unicorn ---------------------------------------------------------------
# write_pc writes .deps/pkgconfig/unicorn.pc for the Unicorn in .deps/unicorn,
# its paths relative to the file (pkg-config's pcfiledir), its version read
# from the header.
write_pc() {
  local h="$uni/include/unicorn/unicorn.h" v
  v=$(awk '/#define UC_API_(MAJOR|MINOR|PATCH) / {printf "%s%s", sep, $3; sep="."}' "$h")
  mkdir -p "$deps/pkgconfig"
  cat > "$deps/pkgconfig/unicorn.pc.tmp" <<PC
# Written by scripts/deps.sh: the Unicorn in .deps/unicorn, linked statically.
prefix=\${pcfiledir}/../unicorn
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: unicorn
Description: Unicorn CPU emulator (static, for icount)
Version: $v
Libs: -L\${libdir} -lunicorn -lpthread -lm
Cflags: -I\${includedir}
PC
  mv "$deps/pkgconfig/unicorn.pc.tmp" "$deps/pkgconfig/unicorn.pc"
}

if [ -f "$uni/lib/libunicorn.a" ] && [ -f "$uni/include/unicorn/unicorn.h" ] && [ -e "$uni/copyright" ]; then
  [ -f "$deps/pkgconfig/unicorn.pc" ] || write_pc
  exit 0
fi

if pkg-config --atleast-version=2.1 unicorn 2>/dev/null; then
  libdir=$(pkg-config --variable=libdir unicorn)
  incdir=$(pkg-config --variable=includedir unicorn)
  if [ -f "$libdir/libunicorn.a" ]; then
    say "using system Unicorn $(pkg-config --modversion unicorn) from $libdir"
    mkdir -p "$uni/lib" "$uni/include"
    ln -sfn "$libdir/libunicorn.a" "$uni/lib/libunicorn.a"
    ln -sfn "$incdir/unicorn" "$uni/include/unicorn"
    for doc in /usr/share/doc/libunicorn-dev/copyright /usr/share/doc/libunicorn*/copyright; do
      [ -f "$doc" ] && { ln -sfn "$doc" "$uni/copyright"; break; }
    done
    write_pc
    exit 0
  fi
  say "system Unicorn $(pkg-config --modversion unicorn) has no static library; fetching 2.1.1 instead"
fi

# The mirror this machine already uses for Debian, and a private apt state
# for trixie's amd64 packages (scripts/apt-private.sh).
. "$top/scripts/apt-private.sh"
if ! mirror=$(debian_mirror); then
  say "no Debian mirror found in /etc/apt/sources.list*; cannot fetch libunicorn-dev from trixie"
  say "install libunicorn-dev >= 2.1 yourself (pkg-config must find it) and run make again"
  exit 1
fi

apt="$deps/apt"
apt_private "$apt" "$mirror" trixie amd64
aptopts=("${APT_OPTS[@]}")
say "fetching Unicorn 2.1.1 (libunicorn-dev) from Debian trixie via $mirror"
apt-get -qq "${aptopts[@]}" update >/dev/null
(cd "$apt/debs" && apt-get -qq "${aptopts[@]}" download libunicorn-dev libunicorn2t64 >/dev/null)
rm -rf "$apt/root"
for deb in "$apt"/debs/*.deb; do dpkg-deb -x "$deb" "$apt/root"; done

version=$(sed -n 's/^Version: //p' "$apt/root/usr/lib/$multiarch/pkgconfig/unicorn.pc")
case "$version" in
  1.*|2.0*) say "trixie gave Unicorn $version; icount needs 2.1 or newer"; exit 1 ;;
esac
rm -rf "$uni"
mkdir -p "$uni/lib"
cp "$apt/root/usr/lib/$multiarch/libunicorn.a" "$uni/lib/"
cp -r "$apt/root/usr/include" "$uni/include"
cp "$apt/root/usr/share/doc/libunicorn-dev/copyright" "$uni/copyright" # its licence, for make dist
echo "$version" > "$uni/VERSION"
write_pc
rm -rf "$apt"
say "Unicorn $version ready in .deps/unicorn (linked statically)"
