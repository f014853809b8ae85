#!/usr/bin/env bash
# Compares `bench-db run loopback` with `sockperf ping-pong --tcp --full-rtt` on the same
# machine, same message size and same thread placement: one core (client and server on
# CPU 0) and two cores (client on CPU 0, server on CPU 1), at 5k and 20k msgs/s and
# back-to-back. Prints our uncorrected p50/p99 round trip divided by sockperf's, and our
# rate divided by sockperf's (goal: ≤ 1.0 at p50, ≤ 1.10 at p99, rate ≥ 1.0).
#
# Usage: [MODE=spin] benches/sockperf_compare.sh [seconds per test, default 3]
# Needs: sockperf (Debian package `sockperf`), python3, taskset, 2 CPUs.
# BENCH_DB=path/to/bench-db to use a given binary (default: target/release/bench-db).
set -euo pipefail

SECS=${1:-3}
# MODE=block (blocking reads) or MODE=spin (busy-poll; sockperf gets --nonblocked).
MODE=${MODE:-block}
SP_FLAGS=()
[[ $MODE == spin ]] && SP_FLAGS=(--nonblocked)
MSG=14 # sockperf's smallest message (its header); ours is sent with the same size
PORT=${PORT:-$((20000 + RANDOM % 20000))}
cd "$(dirname "$0")/.."
BIN=${BENCH_DB:-target/release/bench-db}
if [[ ! -x $BIN ]]; then
    cargo build --release --bin bench-db >&2
fi
command -v sockperf >/dev/null || { echo "sockperf is not installed (apt-get install sockperf)" >&2; exit 2; }

SERVER_PID=
cleanup() { [[ -n $SERVER_PID ]] && kill "$SERVER_PID" 2>/dev/null || true; }
trap cleanup EXIT

# sockperf <client cpu> <server cpu> <mps|max> → "p50 p99 rate"
run_sockperf() {
    local ccpu=$1 scpu=$2 mps=$3 out
    taskset -c "$scpu" sockperf server --tcp -i 127.0.0.1 -p "$PORT" "${SP_FLAGS[@]}" >/dev/null 2>&1 &
    SERVER_PID=$!
    sleep 0.5
    out=$(taskset -c "$ccpu" sockperf ping-pong --tcp -i 127.0.0.1 -p "$PORT" --full-rtt \
        -m "$MSG" --mps="$mps" -t "$SECS" "${SP_FLAGS[@]}" 2>&1 | sed 's/\x1b\[[0-9;]*m//g')
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
    python3 -c '
import re, sys
t = sys.stdin.read()
p = {m[0]: float(m[1]) for m in re.findall(r"percentile (\d+\.\d+) = +([0-9.]+)", t)}
v = re.search(r"\[Valid Duration\] RunTime=([0-9.]+) sec; SentMessages=(\d+); ReceivedMessages=(\d+)", t)
print(p["50.000"], p["99.000"], int(v[3]) / float(v[1]))
' <<<"$out"
}

# ours <client cpu> <server cpu> <rate> → "p50 p99 rate"
run_ours() {
    local ccpu=$1 scpu=$2 rate=$3 iters
    iters=$((rate * SECS))
    # Back-to-back: about SECS seconds at the ~50k round trips/s loopback TCP manages.
    (( rate > 1000000 )) && iters=$((50000 * SECS))
    "$BIN" run loopback --no-store --json --mode "$MODE" --msg-size "$MSG" --runs 1 \
        --throughput "$rate" --iterations "$iters" --warmup $((iters / 5)) \
        --pin-client "$ccpu" --pin-server "$scpu" --os-jitter off 2>/dev/null |
        python3 -c '
import json, sys
s = json.load(sys.stdin)[0]
p = dict((k, v) for k, v in s["runs"][0]["percentiles"]["end_to_end_uncorrected"])
print(p[50.0], p[99.0], s["achieved_throughput"][0])
'
}

printf "%-10s %-12s %10s %10s %10s %10s %10s %10s %8s %8s %8s\n" placement rate \
    our_p50 sp_p50 our_p99 sp_p99 our_rate sp_rate p50x p99x ratex
for placement in one two; do
    ccpu=0
    scpu=$([[ $placement == one ]] && echo 0 || echo 1)
    for rate in 5000 20000 max; do
        # Back-to-back: a rate far above what loopback TCP can do, so every message is
        # sent as soon as the previous reply arrived.
        ourrate=$([[ $rate == max ]] && echo 10000000 || echo "$rate")
        read -r o50 o99 orate < <(run_ours "$ccpu" "$scpu" "$ourrate")
        read -r s50 s99 srate < <(run_sockperf "$ccpu" "$scpu" "$rate")
        python3 -c '
import sys
pl, rate, o50, s50, o99, s99, orate, srate = sys.argv[1:]
f = [float(x) for x in (o50, s50, o99, s99, orate, srate)]
print("%-10s %-12s %10.2f %10.2f %10.2f %10.2f %10.0f %10.0f %8.2f %8.2f %8.2f" % (
    pl + " core" + ("s" if pl == "two" else ""), rate, *f, f[0] / f[1], f[2] / f[3], f[4] / f[5]))
' "$placement" "$rate" "$o50" "$s50" "$o99" "$s99" "$orate" "$srate"
    done
done
