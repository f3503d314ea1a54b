#!/usr/bin/env bash
# Builds the image and proves it runs: health, readiness, a claim/heartbeat/release against the GitHub
# simulator and a private Redis, a clean SIGTERM exit, then `docker compose config` on compose.yaml.
#
# Needs a Docker engine: uses a running one, else starts dockerd (installing docker.io with apt-get
# when it is missing and we are root). Without one it prints "docker smoke: SKIPPED — <why>" and exits 0
# (exit 1 only when something ran and failed; DOCKER_SMOKE_REQUIRED=1 turns a skip into a failure).
#
# The base image: DOCKER_SMOKE_BASE (e.g. node:24-slim where a registry is reachable); otherwise one
# built here once and kept — debootstrap --variant=minbase bookworm, the pinned Node 24 of
# scripts/use-node.sh (from the npm registry), this machine's npm, a `node` user, this machine's CA
# bundle as NODE_EXTRA_CA_CERTS — so no image registry is needed.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d /tmp/claim-hold-docker-smoke.XXXXXX)
image="claim-hold:smoke"
started_dockerd=""
t0=$(date +%s)

say() { echo "docker smoke: $*"; }
elapsed() { echo "$(($(date +%s) - t0)) s"; }

cleanup() {
  if [ -n "$started_dockerd" ] && kill -0 "$started_dockerd" 2>/dev/null; then
    kill "$started_dockerd" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$started_dockerd" 2>/dev/null || break; sleep 0.2; done
  fi
  rm -rf "$work"
}
trap cleanup EXIT

skip() {
  say "SKIPPED — $*"
  if [ "${DOCKER_SMOKE_REQUIRED:-0}" = "1" ]; then exit 1; fi
  exit 0
}

engine_answers() { docker info >/dev/null 2>&1; }

ensure_engine() {
  engine_answers && return 0
  command -v docker >/dev/null 2>&1 || [ "$(id -u)" = 0 ] || skip "no docker client, and not root to install one"
  if ! command -v dockerd >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      say "dockerd not found; installing docker.io with apt-get"
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io) >"$work/apt.log" 2>&1 ||
        skip "apt-get install docker.io failed: $(tail -1 "$work/apt.log")"
    else
      skip "no Docker engine answers and dockerd is not installed"
    fi
  fi
  [ "$(id -u)" = 0 ] || skip "no Docker engine answers and starting dockerd needs root"
  say "starting dockerd (no bridge, no iptables: the smoke runs on the host network)"
  dockerd --iptables=false --ip6tables=false --bridge=none >"$work/dockerd.log" 2>&1 &
  started_dockerd=$!
  for _ in $(seq 1 150); do
    engine_answers && return 0
    kill -0 "$started_dockerd" 2>/dev/null || break
    sleep 0.2
  done
  skip "dockerd did not come up: $(tail -3 "$work/dockerd.log" | tr '\n' ' ')"
}

# A bookworm base with the pinned Node 24: what node:24-slim gives, made without an image registry.
# Sets $base (not a subshell's echo, so that a skip inside it ends the script).
local_base() {
  local version tag rootfs node_bin npm_dir
  node_bin="$(scripts/use-node.sh 24)/node" || { say "FAILED: no Node 24 from scripts/use-node.sh"; exit 1; }
  version=$("$node_bin" --version)
  tag="claim-hold-smoke-base:bookworm-node${version#v}"
  base="$tag"
  docker image inspect "$tag" >/dev/null 2>&1 && return 0
  if ! command -v debootstrap >/dev/null 2>&1; then
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 ||
      skip "no base image: set DOCKER_SMOKE_BASE, or install debootstrap"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap) >"$work/apt.log" 2>&1 ||
      skip "apt-get install debootstrap failed: $(tail -1 "$work/apt.log")"
  fi
  rootfs="$work/rootfs"
  say "building the base image $tag (debootstrap --variant=minbase bookworm)"
  debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    { tail -5 "$work/debootstrap.log"; say "FAILED: debootstrap"; exit 1; }
  # npm's own folder (…/npm/bin/npm-cli.js): the Node package from the registry carries no npm.
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  install -D -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
  chroot "$rootfs" groupadd --gid 1000 node
  chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/sh --create-home node
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
    --change 'CMD ["node"]' - "$tag" >/dev/null
  rm -rf "$rootfs"
}

compose_config() {
  # compose.yaml reads .env, which a checkout does not have: validate a copy beside an empty one.
  mkdir -p "$work/compose"
  cp compose.yaml Dockerfile "$work/compose/"
  : >"$work/compose/.env"
  if docker compose version >/dev/null 2>&1; then
    (cd "$work/compose" && docker compose config --quiet)
  elif command -v docker-compose >/dev/null 2>&1; then
    (cd "$work/compose" && docker-compose config --quiet)
  else
    say "compose.yaml not validated: neither \`docker compose\` nor docker-compose is installed"
    return 0
  fi
  say "ok: docker compose config accepts compose.yaml"
}

ensure_engine
base="${DOCKER_SMOKE_BASE:-}"
[ -n "$base" ] || local_base
say "base image $base (ready after $(elapsed))"

say "docker build --network host --build-arg BASE=$base"
if ! docker build --network host --build-arg "BASE=$base" -t "$image" . >"$work/build.log" 2>&1; then
  tail -30 "$work/build.log"
  say "FAILED: docker build"
  exit 1
fi
say "image built after $(elapsed) ($(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%d MB", $1/1000000}'))"

npx tsx scripts/docker-smoke-run.ts "$image" || { say "FAILED after $(elapsed)"; exit 1; }
compose_config || { say "FAILED: docker compose config"; exit 1; }
say "PASSED in $(elapsed)"
