#!/usr/bin/env bash
# Measures the storage node's throughput beside redis-server with redis-benchmark, the way issue 34
# states the figures: -t set,get -n 300000 -r 300000 -d 100 -c 20, unpipelined and with -P 16 (and
# INCR, -t incr, the same way: redis-benchmark runs it after GET, on keys counter:<random>),
# redis-server with appendonly yes / appendfsync no, the node as ./strata-server runs it (async WAL,
# lsm-integration/node-java-opts). The node warms itself up before it answers PING (docs/server.md, "Warm-up":
# --warm-up-seconds, 20 by default), as ./strata-server starts; the wait for PING allows 60 s. Per round and pipeline depth: redis-server, then the node, each in a fresh
# directory. Prints one CSV line per figure: server,pipeline,test,rps. (redis-compare.sh measures
# the issue-14 shape: -n 1000000 -c 50, and memory after 10 million keys.)
# Needs redis-server, redis-cli and redis-benchmark (apt-get install redis-server redis-tools).
# The node's jar is built first if needed, then copied, so editing sources meanwhile changes nothing.
# BASELINE_JAR=path/to/strata-server.jar also measures that jar (an older build), as strata-baseline,
# after the node in every round. The node runs with lsm-integration/node-java-opts's JVM options,
# as ./strata-server runs it, or NODE_JAVA_OPTS; the baseline with BASELINE_JAVA_OPTS, else the
# node's (so BASELINE_JAR=<the same jar> BASELINE_JAVA_OPTS="-Xms1g -Xmx1g" compares JVM options).
# CLIENTS=N sets redis-benchmark's -c (default 20, the issue's). WARMUP=N first sends N pipelined
# SETs and N GETs (-P 16, the same keys and values) to each fresh server, redis-server included,
# before its measured runs: a warm node (its JIT done), as a server that has run a while. The order alternates: odd rounds
# run redis-server first, then the node, then the baseline; even rounds the reverse. The load average is printed at the start
# and the end.
# Usage: [BASELINE_JAR=JAR] [CLIENTS=N] lsm-integration/redis-throughput.sh [ROUNDS]   (default 1)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-1}
clients=${CLIENTS:-20}
echo "# start $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), -c $clients, warm-up ${WARMUP:-0}"
work=$(mktemp -d /tmp/node-vs-redis.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
./strata-server --help > /dev/null # builds the jar if it is missing or older than the sources
cp lsm-integration/target/strata-server.jar "$work/strata-server.jar"
node_opts=${NODE_JAVA_OPTS:-$(lsm-integration/node-java-opts)}
baseline_opts=${BASELINE_JAVA_OPTS:-$node_opts}
echo "# node JVM options: $node_opts; baseline's: $baseline_opts"
warm() { # port: WARMUP pipelined SETs and GETs (-P 16) sent before the measured runs, the same to every server
  if [ "${WARMUP:-0}" -gt 0 ]; then
    redis-benchmark -p "$1" -t set,get -n "$WARMUP" -r 300000 -d 100 -c "$clients" -P 16 --csv -q > /dev/null
  fi
}
bench() { # name port pipeline
  warm "$2"
  redis-benchmark -p "$2" -t set,get,incr -n 300000 -r 300000 -d 100 -c "$clients" -P "$3" --csv -q \
    | tr -d '"' | awk -F, -v s="$1" -v p="$3" '$1=="SET"||$1=="GET"||$1=="INCR"{print s "," p "," $1 "," $2}' \
    | tee -a "$work/results.csv"
}
await() { # port
  for _ in $(seq 1 600); do redis-cli -p "$1" ping >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "server on port $1 did not start" >&2; exit 1
}
node() { # name jar pipeline jvm-options
  rm -rf "$work/node"
  # shellcheck disable=SC2086 # the options are words
  java --enable-native-access=ALL-UNNAMED $4 -jar "$2" --dir "$work/node" --port 6398 \
    >"$work/node.log" 2>&1 &
  local npid=$!
  await 6398
  bench "$1" 6398 "$3"
  kill "$npid"; wait "$npid" 2>/dev/null || true
}
redis() { # pipeline
  rm -rf "$work/redis" && mkdir -p "$work/redis"
  redis-server --port 6399 --bind 127.0.0.1 --appendonly yes --appendfsync no --save "" \
    --dir "$work/redis" --daemonize no >"$work/redis.log" 2>&1 &
  rpid=$!
  await 6399
  bench redis-server 6399 "$1"
  kill "$rpid"; wait "$rpid" 2>/dev/null || true
}
nodes() { # pipeline round (even rounds: the baseline before the node)
  if [ -n "${BASELINE_JAR:-}" ] && [ $(($2 % 2)) -eq 0 ]; then node strata-baseline "$BASELINE_JAR" "$1" "$baseline_opts"; fi
  node strata-server "$work/strata-server.jar" "$1" "$node_opts"
  if [ -n "${BASELINE_JAR:-}" ] && [ $(($2 % 2)) -eq 1 ]; then node strata-baseline "$BASELINE_JAR" "$1" "$baseline_opts"; fi
}
for r in $(seq 1 "$rounds"); do
  for p in 1 16; do
    if [ $((r % 2)) -eq 1 ]; then redis "$p"; nodes "$p" "$r"; else nodes "$p" "$r"; redis "$p"; fi
  done
done
echo "# end $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# medians over $rounds round(s), and the ratio to redis-server's median"
python3 - "$work/results.csv" <<'EOF'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    server, pipeline, test, rps = line.strip().split(",")
    runs[(server, int(pipeline), test)].append(float(rps))
for (server, pipeline, test), v in sorted(runs.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])):
    m = statistics.median(v)
    anchor = statistics.median(runs[("redis-server", pipeline, test)])
    print(f"median,{server},{pipeline},{test},{m:.0f},{m / anchor:.2f}x")
EOF
