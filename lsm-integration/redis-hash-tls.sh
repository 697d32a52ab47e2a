#!/usr/bin/env bash
# Measures the storage node's hash commands and its TLS beside redis-server with redis-benchmark:
# HSET (-t hset: one hash, myhash, with up to N random fields), HGET of random fields of it, and
# SET / GET (-t set,get), each -n N -r N -d 100 -c 20, unpipelined; redis-server with appendonly yes
# / appendfsync no; the node as ./strata-server runs it (async WAL, the JVM options of lsm-integration/node-java-opts or NODE_JAVA_OPTS), plain and with
# --tls-cert / --tls-key (a self-signed RSA-2048 certificate made by openssl; redis-benchmark --tls).
# Per round: redis-server, the node, the node over TLS, each in a fresh directory. Prints one CSV
# line per figure: server,test,rps. Needs redis-server, redis-cli, redis-benchmark and openssl.
# Usage: lsm-integration/redis-hash-tls.sh [ROUNDS] [N]   (defaults 1 and 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-1}
n=${2:-100000}
work=$(mktemp -d /tmp/node-hash-tls.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
./strata-server --help > /dev/null # builds the jar if it is missing or older than the sources
node_opts=${NODE_JAVA_OPTS:-$(lsm-integration/node-java-opts)}
cp lsm-integration/target/strata-server.jar "$work/strata-server.jar"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" \
  -subj /CN=localhost -days 1 2>/dev/null
bench() { # name port [redis-benchmark TLS options]
  local name=$1 port=$2; shift 2
  { redis-benchmark -h 127.0.0.1 -p "$port" "$@" -t hset -n "$n" -r "$n" -d 100 -c 20 --csv -q
    redis-benchmark -h 127.0.0.1 -p "$port" "$@" -n "$n" -r "$n" -c 20 --csv -q HGET myhash 'element:__rand_int__'
    redis-benchmark -h 127.0.0.1 -p "$port" "$@" -t set,get -n "$n" -r "$n" -d 100 -c 20 --csv -q
  } | tr -d '"' | awk -F, -v s="$name" '$1=="HSET"||$1~/^HGET/||$1=="SET"||$1=="GET"{split($1,t," "); print s "," t[1] "," $2}' \
    | tee -a "$work/results.csv"
}
await() { # port [redis-cli TLS options]
  local port=$1; shift
  for _ in $(seq 1 600); do redis-cli -h 127.0.0.1 -p "$port" "$@" ping >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "server on port $port did not start" >&2; exit 1
}
node() { # name port [node options] -- [client TLS options]
  local name=$1 port=$2; shift 2
  local opts=() client=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  client=("$@")
  rm -rf "$work/node"
  java --enable-native-access=ALL-UNNAMED $node_opts -jar "$work/strata-server.jar" --dir "$work/node" \
    --port "$port" "${opts[@]}" >"$work/node.log" 2>&1 &
  local npid=$!
  await "$port" "${client[@]}"
  bench "$name" "$port" "${client[@]}"
  kill "$npid"; wait "$npid" 2>/dev/null || true
}
uptime
for r in $(seq 1 "$rounds"); do
  rm -rf "$work/redis" && mkdir -p "$work/redis"
  redis-server --port 6397 --bind 127.0.0.1 --appendonly yes --appendfsync no --save '' --dir "$work/redis" \
    >"$work/redis.log" 2>&1 &
  rpid=$!
  await 6397
  bench redis-server 6397
  kill "$rpid"; wait "$rpid" 2>/dev/null || true
  node strata 6398
  node strata-tls 6399 --tls-cert "$work/cert.pem" --tls-key "$work/key.pem" -- --tls --cacert "$work/cert.pem"
done
uptime
