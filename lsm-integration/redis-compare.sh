#!/usr/bin/env bash
# Measures the Strata storage node beside redis-server on this machine, in one run:
#   1. redis-benchmark -t set,get -n 1000000 -r 1000000 -d 100 -c 50, without and with -P 16,
#      against the node and against redis-server (appendonly yes, appendfsync no);
#   2. the resident memory (VmRSS) of each after loading 10 million distinct 100-byte values
#      (key:000000000000 .. key:000009999999 through redis-cli --pipe).
# Needs Debian's redis-server and redis-tools (apt-get install redis-server redis-tools).
# Usage: lsm-integration/redis-compare.sh [WORKDIR]   (default /tmp/strata-redis-compare)
# Writes WORKDIR/results.txt; docs/benchmarks.md quotes it.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-/tmp/strata-redis-compare}
strata_port=6390
redis_port=6391
rm -rf "$work" && mkdir -p "$work/strata" "$work/redis"
out="$work/results.txt"
: > "$out"
for tool in redis-benchmark redis-cli redis-server; do
  command -v "$tool" > /dev/null || { echo "$tool is not installed (apt-get install redis-server redis-tools)" >&2; exit 2; }
done

log() { echo "$*" | tee -a "$out"; }

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

wait_port() {
  for _ in $(seq 1 600); do
    if redis-cli -p "$1" PING 2> /dev/null | grep -q PONG; then return 0; fi
    sleep 0.1
  done
  echo "nothing answers PING on port $1" >&2
  exit 1
}

bench() { # name port
  for pipeline in 1 16; do
    log "## $1, redis-benchmark -t set,get -n 1000000 -r 1000000 -d 100 -c 50 -P $pipeline"
    redis-benchmark -p "$2" -t set,get -n 1000000 -r 1000000 -d 100 -c 50 -P "$pipeline" --csv 2> /dev/null \
      | tee -a "$out"
  done
}

load() { # name port pid
  local start end
  start=$(date +%s.%N)
  python3 - <<'EOF' | redis-cli -p "$2" --pipe | tail -n 1 | tee -a "$out"
import sys
value = b"v" * 100
w = sys.stdout.buffer
chunk = []
for i in range(10_000_000):
    key = b"key:%012d" % i
    chunk.append(b"*3\r\n$3\r\nSET\r\n$16\r\n%s\r\n$100\r\n%s\r\n" % (key, value))
    if len(chunk) == 10_000:
        w.write(b"".join(chunk))
        chunk.clear()
w.write(b"".join(chunk))
w.flush()
EOF
  end=$(date +%s.%N)
  log "## $1, 10,000,000 SETs of 100-byte values through redis-cli --pipe: $(echo "$end - $start" | bc) s"
  sleep 10
  log "## $1, VmRSS after the load: $(rss_kib "$3") KiB; DBSIZE $(redis-cli -p "$2" DBSIZE)"
}

log "# $(date -u +%FT%TZ) $(uname -m), $(nproc) cores; $(redis-server --version)"
./strata-server --help > /dev/null # builds the jar once, before anything is timed

# --- Strata node (WAL mode from its default config: async)
./strata-server --dir "$work/strata" --port "$strata_port" > "$work/strata.log" 2>&1 &
strata_pid=$!
wait_port "$strata_port"
log "# strata-server: $(head -n 1 "$work/strata.log")"
bench strata "$strata_port"
kill -TERM "$strata_pid"; wait "$strata_pid" || true

rm -rf "$work/strata" && mkdir -p "$work/strata"
./strata-server --dir "$work/strata" --port "$strata_port" > "$work/strata-load.log" 2>&1 &
strata_pid=$!
wait_port "$strata_port"
load strata "$strata_port" "$strata_pid"
log "## strata, data directory: $(du -sk "$work/strata" | cut -f1) KiB"
kill -TERM "$strata_pid"; wait "$strata_pid" || true

# --- redis-server, append-only file written but not fsynced (the node's async WAL counterpart)
redis_server() {
  redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$work/redis" --appendonly yes --appendfsync no \
    --save "" --daemonize no --logfile "$work/redis.log" &
  redis_pid=$!
  wait_port "$redis_port"
}
redis_server
bench redis-server "$redis_port"
redis-cli -p "$redis_port" SHUTDOWN NOSAVE > /dev/null 2>&1 || true; wait "$redis_pid" || true

rm -rf "$work/redis" && mkdir -p "$work/redis"
redis_server
load redis-server "$redis_port" "$redis_pid"
log "## redis-server, used_memory: $(redis-cli -p "$redis_port" INFO memory | awk -F: '/^used_memory:/ {print $2}' | tr -d '\r') bytes; data directory: $(du -sk "$work/redis" | cut -f1) KiB"
redis-cli -p "$redis_port" SHUTDOWN NOSAVE > /dev/null 2>&1 || true; wait "$redis_pid" || true
echo "results: $out"
