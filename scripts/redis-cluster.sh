#!/usr/bin/env bash
# Starts (or stops) a local 3-master Redis Cluster on free loopback ports, for the cluster contract tests.
#   scripts/redis-cluster.sh start   → prints the REDIS_CLUSTER_URL (redis-cluster://127.0.0.1:p1,…)
#   scripts/redis-cluster.sh stop    → shuts the nodes down and removes their directory
#   scripts/redis-cluster.sh url     → prints the URL of the running cluster
set -euo pipefail

dir="${CLAIM_HOLD_CLUSTER_DIR:-${TMPDIR:-/tmp}/claim-hold-redis-cluster}"
first_port="${CLAIM_HOLD_CLUSTER_FIRST_PORT:-30001}"

port_is_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

url() {
  [ -f "$dir/ports" ] || { echo "no cluster is running (no $dir/ports)" >&2; exit 1; }
  local ports
  ports=$(sed 's/^/127.0.0.1:/' "$dir/ports" | paste -sd, -)
  echo "redis-cluster://$ports"
}

start() {
  command -v redis-server >/dev/null || { echo "redis-server is not installed" >&2; exit 1; }
  if [ -f "$dir/ports" ]; then stop >/dev/null; fi
  mkdir -p "$dir"
  : >"$dir/ports"
  local port=$first_port count=0
  while [ "$count" -lt 3 ]; do
    if port_is_free "$port" && port_is_free "$((port + 10000))"; then
      mkdir -p "$dir/$port"
      redis-server --port "$port" --bind 127.0.0.1 --cluster-enabled yes \
        --cluster-config-file "$dir/$port/nodes.conf" --cluster-node-timeout 2000 \
        --dir "$dir/$port" --save "" --appendonly no --daemonize yes \
        --logfile "$dir/$port/redis.log" --pidfile "$dir/$port/redis.pid"
      # A port that looked free may be taken between the check and the bind (the cluster bus port
      # too): a node that does not answer is dropped and the next port is tried.
      for _ in $(seq 1 50); do
        redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break
        sleep 0.1
      done
      if redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; then
        echo "$port" >>"$dir/ports"
        count=$((count + 1))
      fi
    fi
    port=$((port + 1))
  done
  for port in $(cat "$dir/ports"); do
    for _ in $(seq 1 50); do
      redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break
      sleep 0.1
    done
  done
  # shellcheck disable=SC2046
  redis-cli --cluster create $(sed 's/^/127.0.0.1:/' "$dir/ports") --cluster-replicas 0 --cluster-yes >"$dir/create.log"
  for port in $(cat "$dir/ports"); do
    for _ in $(seq 1 100); do
      redis-cli -p "$port" cluster info 2>/dev/null | grep -q "cluster_state:ok" && break
      sleep 0.1
    done
    redis-cli -p "$port" cluster info | grep -q "cluster_state:ok" || {
      echo "the cluster did not reach cluster_state:ok (see $dir)" >&2
      exit 1
    }
  done
  url
}

stop() {
  [ -f "$dir/ports" ] || return 0
  for port in $(cat "$dir/ports"); do
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  done
  rm -rf "$dir"
  echo "stopped the cluster in $dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  url) url ;;
  *) echo "usage: $0 start|stop|url" >&2; exit 2 ;;
esac
