#!/usr/bin/env bash
# INCR on the storage node, before and after INCR became a merge operand (issue 30, item 4):
# redis-benchmark -t incr -n 300000 -r 300000 -d 100 -c 20 (random counters) and a hot counter
# (-t incr -n 200000 -c 20, no -r: every INCR on one key), a fresh node (as redis-throughput.sh
# starts it: async WAL, the JVM options of lsm-integration/node-java-opts or NODE_JAVA_OPTS) in a fresh directory for every run. Servers: BASELINE_JAR
# (a build of the code before the change; required), this tree's jar with the node's default
# successive-merge bound (16), and the same jar with maxSuccessiveMerges=8 from a --config file.
# The order of the servers alternates between rounds. Prints one CSV line per run:
# server,test,rps,node-cpu-us-per-incr,load1 (load average when the run ended; node CPU from
# /proc, user + system, over the whole run), then medians per server and test.
# Usage: BASELINE_JAR=path/to/strata-server.jar lsm-integration/incr-throughput.sh [ROUNDS] (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
: "${BASELINE_JAR:?set BASELINE_JAR to a strata-server.jar built before the change}"
echo "# start $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
work=$(mktemp -d /tmp/incr-throughput.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
./strata-server --help > /dev/null # builds the jar if it is missing or older than the sources
node_opts=${NODE_JAVA_OPTS:-$(lsm-integration/node-java-opts)}
cp lsm-integration/target/strata-server.jar "$work/after.jar"
cp "$BASELINE_JAR" "$work/before.jar"
cat > "$work/bound8.xml" <<'XML'
<store><mergeOperator name="strata-node-incr" maxSuccessiveMerges="8"/></store>
XML
await() { # port
  for _ in $(seq 1 600); do redis-cli -p "$1" ping >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "server on port $1 did not start" >&2; exit 1
}
cpu_ticks() { # pid: user + system clock ticks
  awk '{print $14 + $15}' "/proc/$1/stat"
}
run() { # server test
  local jar=$work/after.jar extra=()
  case "$1" in
    before) jar=$work/before.jar ;;
    after-bound8) extra=(--config "$work/bound8.xml") ;;
  esac
  local args=(-t incr -n 300000 -r 300000 -d 100 -c 20) n=300000
  if [ "$2" = hot ]; then args=(-t incr -n 200000 -c 20); n=200000; fi
  rm -rf "$work/node"
  java --enable-native-access=ALL-UNNAMED $node_opts -jar "$jar" --dir "$work/node" --port 6398 "${extra[@]}" \
    >"$work/node.log" 2>&1 &
  local npid=$!
  await 6398
  local t0; t0=$(cpu_ticks "$npid")
  local rps
  rps=$(redis-benchmark -p 6398 "${args[@]}" --csv -q | tr -d '"' | awk -F, '$1=="INCR"{print $2}')
  local t1; t1=$(cpu_ticks "$npid")
  local hz; hz=$(getconf CLK_TCK)
  local check; check=$(redis-cli -p 6398 get counter:__rand_int__ 2>/dev/null || true)
  kill "$npid"; wait "$npid" 2>/dev/null || true
  local us; us=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v n="$n" 'BEGIN{printf "%.1f", (b - a) * 1e6 / hz / n}')
  echo "$1,$2,$rps,$us,$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$work/results.csv"
  if [ "$2" = hot ] && [ "$check" != "$n" ]; then echo "# $1 hot counter ended at '$check', not $n" >&2; fi
}
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then order="before after after-bound8"; else order="after-bound8 after before"; fi
  for t in random hot; do
    for s in $order; do run "$s" "$t"; done
  done
done
echo "# end $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/results.csv" <<'EOF'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    server, test, rps, us, load = line.strip().split(",")
    runs[(test, server)].append((float(rps), float(us)))
for (test, server), v in sorted(runs.items()):
    print(f"median,{server},{test},{statistics.median(r for r, _ in v):.0f} rps,"
          f"{statistics.median(u for _, u in v):.1f} us/INCR,rounds {' / '.join(f'{r:.0f}' for r, _ in v)}")
EOF
