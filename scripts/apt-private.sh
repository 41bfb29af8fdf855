# Shell helpers (bash; source this file) for fetching Debian packages through
# a private apt state: its own sources list, lists, cache and dpkg status
# under a directory of ours, reusing the Debian mirror this machine is
# configured with. The machine's apt configuration and dpkg architectures
# are never changed, so packages of another architecture (arm64) can be
# downloaded on an amd64 machine without `dpkg --add-architecture`.

# debian_mirror prints the Debian mirror this machine already uses (deb822
# or one-line sources format), or fails.
debian_mirror() {
  local m
  m=$(
    { cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
        awk '/^URIs:/ {print $2}'
      cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        awk '$1=="deb" {for (i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//) {print $i; break}}'
    } | grep -v -e security -e '^$' | grep -E '/debian/?$' | head -n 1
  ) || true
  [ -n "$m" ] || return 1
  printf '%s\n' "$m"
}

# apt_private DIR MIRROR SUITE ARCH: makes DIR (emptied first) a private apt
# state for SUITE's main component of ARCH from MIRROR, and sets the array
# APT_OPTS to the apt-get options that use it. Run `apt-get "${APT_OPTS[@]}"
# update` next.
apt_private() {
  local dir=$1 mirror=$2 suite=$3 arch=$4
  rm -rf "$dir"
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/debs"
  : > "$dir/status"
  echo "deb [arch=$arch signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" > "$dir/sources.list"
  APT_OPTS=(
    -o Dir::Etc::SourceList="$dir/sources.list"
    -o Dir::Etc::SourceParts=/dev/null
    -o Dir::State::Lists="$dir/lists"
    -o Dir::State::status="$dir/status"
    -o Dir::Cache="$dir/cache"
    -o APT::Architecture="$arch"
    -o APT::Architectures="$arch"
    -o APT::Sandbox::User=root
    -o Acquire::Languages=none
  )
}
