#!/usr/bin/env bash
# Writes test/fixtures/store-<release>-<commit>.json: the Redis keys a release's store writes for a few
# representative claims (scripts/store-fixture.ts run in a temporary worktree of that commit).
#
#   scripts/make-store-fixture.sh <release> <commit>     e.g. scripts/make-store-fixture.sh 0.1.0 c2fe89f
#
# Needs Redis at REDIS_URL (default redis://127.0.0.1:6379); the keys go under a unique prefix and are
# deleted once dumped. The worktree borrows this checkout's node_modules and is removed afterwards.
set -euo pipefail

release="${1:?usage: scripts/make-store-fixture.sh <release> <commit>}"
commit="$(git rev-parse --verify "${2:?usage: scripts/make-store-fixture.sh <release> <commit>}^{commit}")"
root="$(git rev-parse --show-toplevel)"
short="${commit:0:7}"
out="$root/test/fixtures/store-$release-$short.json"
worktree="$(mktemp -d "${TMPDIR:-/tmp}/claim-hold-store-$short.XXXXXX")"
rmdir "$worktree"

cleanup() { git -C "$root" worktree remove --force "$worktree" 2>/dev/null || true; }
trap cleanup EXIT

git -C "$root" worktree add --detach "$worktree" "$commit" >/dev/null
ln -s "$(readlink -f "$root/node_modules")" "$worktree/node_modules"
# The writer of this checkout, so a release fixed before the script existed gets the same scenarios.
cp "$root/scripts/store-fixture.ts" "$worktree/scripts/store-fixture.ts"
(cd "$worktree" && npx tsx scripts/store-fixture.ts "$out" "$release" "$commit")
