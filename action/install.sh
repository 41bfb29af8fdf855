#!/usr/bin/env bash
# Gets icount for the action (action.yml) from its release archive, as
# `make dist` writes it.
#   install.sh resolve  prints version=TAG to $GITHUB_OUTPUT: $ICOUNT_VERSION,
#                       or the latest release's tag for "latest"
#   install.sh fetch    downloads the archive of $ICOUNT_VERSION and its
#                       SHA-256, checks it, and unpacks icount into $ICOUNT_DIR
# $GH_TOKEN, when set, authenticates the requests to GitHub.
set -euo pipefail

repo=icount-dev/icount
say() { printf 'icount: %s\n' "$*" >&2; }
die() { printf '::error::icount: %s\n' "$*"; exit 1; }

if [ "${RUNNER_OS:-Linux}" != Linux ] || [ "${RUNNER_ARCH:-X64}" != X64 ]; then
  die "the icount release is for linux-amd64 (x86-64 Linux runners); this runner is ${RUNNER_OS:-?} ${RUNNER_ARCH:-?}"
fi

auth=()
if [ -n "${GH_TOKEN:-}" ]; then
  auth=(-H "Authorization: Bearer $GH_TOKEN")
fi

case "${1:-}" in
resolve)
  version=$ICOUNT_VERSION
  if [ "$version" = latest ]; then
    version=$(curl -fsSL "${auth[@]}" -H 'Accept: application/vnd.github+json' \
      "https://api.github.com/repos/$repo/releases/latest" | jq -r .tag_name) ||
      die "cannot find the latest release of $repo"
  fi
  case "$version" in
    ''|null|*[!A-Za-z0-9._+-]*) die "version '$version': want a release tag such as v0.3.0, or latest" ;;
  esac
  say "release $version"
  echo "version=$version" >> "$GITHUB_OUTPUT"
  ;;
fetch)
  name="icount-$ICOUNT_VERSION-linux-amd64"
  url="https://github.com/$repo/releases/download/$ICOUNT_VERSION/$name.tar.gz"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  say "fetching $url"
  curl -fsSL "${auth[@]}" -o "$tmp/$name.tar.gz" "$url" || die "cannot fetch $url"
  curl -fsSL "${auth[@]}" -o "$tmp/$name.tar.gz.sha256" "$url.sha256" || die "cannot fetch $url.sha256"
  (cd "$tmp" && sha256sum --check --quiet "$name.tar.gz.sha256") || die "$name.tar.gz does not have the SHA-256 its release gives"
  mkdir -p "$ICOUNT_DIR"
  tar -xzf "$tmp/$name.tar.gz" -C "$ICOUNT_DIR" --strip-components=1
  (cd "$ICOUNT_DIR" && sha256sum --check --quiet SHA256SUMS) || die "the icount in $name.tar.gz does not have its SHA-256"
  "$ICOUNT_DIR/icount" version
  ;;
*)
  die "usage: install.sh resolve|fetch"
  ;;
esac
