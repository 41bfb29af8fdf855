#!/usr/bin/env bash
# Installs what icount needs to build and test, without touching the
# machine's apt configuration beyond installing Debian packages:
#   - Unicorn >= 2.1 as a static library in .deps/unicorn (from Debian trixie,
#     through a private apt state directory that reuses this machine's mirror),
#     unless pkg-config already finds a system libunicorn >= 2.1;
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
if [ -f "$uni/lib/libunicorn.a" ] && [ -f "$uni/include/unicorn/unicorn.h" ]; then
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
    exit 0
  fi
  say "system Unicorn $(pkg-config --modversion unicorn) has no static library; fetching 2.1.1 instead"
fi

# The mirror this machine already uses for Debian (deb822 or one-line format).
mirror=$(
  { cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
      awk '/^URIs:/ {print $2}'
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
      awk '$1=="deb" {for (i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//) {print $i; break}}'
  } | grep -v -e security -e '^$' | grep -E '/debian/?$' | head -n 1
) || true
if [ -z "$mirror" ]; then
  say "no Debian mirror found in /etc/apt/sources.list*; cannot fetch libunicorn-dev from trixie"
  say "install libunicorn-dev >= 2.1 yourself (pkg-config must find it) and run make again"
  exit 1
fi

apt="$deps/apt"
rm -rf "$apt"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs"
: > "$apt/status"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" > "$apt/sources.list"
aptopts=(
  -o Dir::Etc::SourceList="$apt/sources.list"
  -o Dir::Etc::SourceParts=/dev/null
  -o Dir::State::Lists="$apt/lists"
  -o Dir::State::status="$apt/status"
  -o Dir::Cache="$apt/cache"
  -o APT::Architecture=amd64
  -o APT::Sandbox::User=root
  -o Acquire::Languages=none
)
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
echo "$version" > "$uni/VERSION"
rm -rf "$apt"
say "Unicorn $version ready in .deps/unicorn (linked statically)"
