#!/usr/bin/env bash
# Builds Unicorn 2.1.1 from source as a static library, with only the
# x86-64 and aarch64 targets and icount's patches of it
# (scripts/unicorn-patches/, applied in order), the way Debian builds its
# libunicorn-dev: the same CMake build, Debian's hardening flags. A study of
# what building our own Unicorn would gain (issue 17); `make deps` still
# takes Debian's binary package (scripts/deps.sh).
#
# The source is Debian trixie's source package unicorn-engine 2.1.1-2
# (upstream's 2.1.1 release tarball with Debian's packaging), fetched
# through the private apt state of scripts/apt-private.sh; when the mirror
# does not serve it, UNICORN_SRC names a directory holding upstream's 2.1.1
# (a git checkout of tag 2.1.1, or the unpacked release tarball).
#
# Usage: scripts/build-unicorn-src.sh OUT [PATCH ...]
#   OUT    where the result goes: OUT/lib/libunicorn.a, OUT/include/unicorn,
#          OUT/VERSION, OUT/PATCHES (the patches applied), OUT/build.log.
#   PATCH  names of files in scripts/unicorn-patches/ (default: none, the
#          unpatched 2.1.1; "all" for every one in order).
# Environment: JOBS (make -j, default 2), UNICORN_SRC (see above),
# WORK (the build directory, default OUT.build; removed after a success).
# Needs cmake, make, gcc, dpkg-source (dpkg-dev) and xz.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
patchdir=$top/scripts/unicorn-patches
version=2.1.1
debversion=2.1.1-2
say() { printf 'build-unicorn: %s\n' "$*" >&2; }

[ $# -ge 1 ] || { echo "usage: $0 OUT [PATCH ...|all]" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
shift
patches=("$@")
if [ "${patches[*]:-}" = all ]; then
	patches=()
	for p in "$patchdir"/*.patch; do patches+=("$(basename "$p")"); done
fi
work=${WORK:-$out.build}
rm -rf "$work"
mkdir -p "$work"
for t in cmake make gcc; do
	command -v "$t" >/dev/null || { say "$t is missing (apt-get install cmake build-essential)"; exit 1; }
done

# --- the source ----------------------------------------------------------------
src=$work/src
fetched=
. "$top/scripts/apt-private.sh"
if mirror=$(debian_mirror) && command -v dpkg-source >/dev/null; then
	apt_private "$work/apt" "$mirror" trixie amd64
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" >>"$work/apt/sources.list"
	if apt-get -qq "${APT_OPTS[@]}" update >/dev/null 2>&1 &&
		(cd "$work/apt/debs" && apt-get -qq "${APT_OPTS[@]}" source --download-only "unicorn-engine=$debversion") >"$work/apt/source.log" 2>&1 &&
		dpkg-source -x "$work/apt/debs/unicorn-engine_$debversion.dsc" "$src" >>"$work/apt/source.log" 2>&1; then
		fetched="Debian source package unicorn-engine $debversion"
	else
		say "the mirror does not serve the source package unicorn-engine $debversion: $(grep -m1 -E 'E:|404' "$work/apt/source.log" || true)"
	fi
fi
if [ -z "$fetched" ]; then
	[ -n "${UNICORN_SRC:-}" ] || { say "set UNICORN_SRC to a directory holding Unicorn $version's source"; exit 1; }
	rm -rf "$src"
	if [ -d "$UNICORN_SRC/.git" ]; then
		git -C "$UNICORN_SRC" archive --format=tar --prefix=src/ "$version" | tar -x -C "$work"
		fetched="git tag $version of $UNICORN_SRC"
	else
		cp -a "$UNICORN_SRC" "$src"
		fetched="directory $UNICORN_SRC"
	fi
fi
grep -q "UNICORN_VERSION_PATCH ${version##*.})" "$src/CMakeLists.txt" ||
	{ say "$fetched is not Unicorn $version"; exit 1; }
say "source: $fetched"

# --- the patches -----------------------------------------------------------------
: >"$out/PATCHES"
for p in "${patches[@]}"; do
	[ -f "$patchdir/$p" ] || { say "no patch $patchdir/$p"; exit 1; }
	patch -d "$src" -p1 --quiet --forward <"$patchdir/$p" || { say "$p does not apply"; exit 1; }
	echo "$p" >>"$out/PATCHES"
	say "applied $p"
done

# --- the build -------------------------------------------------------------------
# Debian trixie's hardening flags for amd64 (dpkg-buildflags there), without
# -g: Debian strips the debug information of the static library anyway.
cflags="-O2 -fstack-protector-strong -fstack-clash-protection -Wformat -Werror=format-security -fcf-protection"
start=$(date +%s)
(
	cd "$work"
	cmake -S src -B build -DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS="$cflags" \
		-DUNICORN_ARCH="x86;aarch64" -DBUILD_SHARED_LIBS=OFF \
		-DUNICORN_BUILD_TESTS=OFF -DUNICORN_INSTALL=OFF
	make -C build -j"${JOBS:-2}" bundling_target
) >"$out/build.log" 2>&1 || { tail -n 30 "$out/build.log" >&2; say "build failed (log: $out/build.log)"; exit 1; }
secs=$(($(date +%s) - start))

rm -rf "$out/lib" "$out/include"
mkdir -p "$out/lib"
cp "$work/build/libunicorn.a" "$out/lib/libunicorn.a"
cp -r "$src/include" "$out/include"
echo "$version" >"$out/VERSION"
rm -rf "$work"
say "Unicorn $version built in ${secs}s (-j${JOBS:-2}) into $out with ${#patches[@]} patch(es)"
