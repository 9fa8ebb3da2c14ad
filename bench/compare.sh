#!/usr/bin/env bash
# Runs the same loads, in one sitting on this machine, against agui-mock, CopilotKit
# aimock's AGUIMock (from npm) serving equivalent fixtures, and a minimal net/http SSE
# server (the floor; for short runs the one-write floor, which writes a run in one write),
# then prints each measure and its ratios, the servers' own CPU time per event and per
# run (read from /proc by the load tool) first. QUICK=1 runs small loads;
# BASELINE=path/to/an/older/agui-mock adds that build as a column of its own, measured
# in the same rounds (a before/after comparison).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
scale() { if [ "${QUICK:-}" = 1 ]; then echo $(( ($1 + 19) / 20 )); else echo "$1"; fi; }

# the servers' logs go nowhere: what a run costs them is measured, not what a disk does
SERVER_LOG=discard

# start_all: starts the three servers afresh (and stops any running)
start_all() {
  kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true
  start mock "$bin" serve --addr 127.0.0.1:0 --no-builtin --scenarios bench/scenarios --max-streams 0 --log-format json --watch off
  if [ -n "${BASELINE:-}" ]; then
    start baseline "$BASELINE" serve --addr 127.0.0.1:0 --no-builtin --scenarios bench/scenarios --max-streams 0 --log-format json --watch off
  fi
  # agui-mock doing what aimock does for a run: no log line, no record of its events
  start quiet "$bin" serve --addr 127.0.0.1:0 --no-builtin --scenarios bench/scenarios --max-streams 0 --log-format json --watch off --log-level warn --journal-events 0
  start aimock node e2e/bench/aimock-server.mjs 0
  start floor_burst "$bin" load-floor --addr 127.0.0.1:0 --events 500
  start floor_burst204 "$bin" load-floor --addr 127.0.0.1:0 --events 204
  start floor_short "$bin" load-floor --addr 127.0.0.1:0 --events 5 --one-write
  start floor_gap "$bin" load-floor --addr 127.0.0.1:0 --events 20 --gap 50ms
  start floor_hold "$bin" load-floor --addr 127.0.0.1:0 --events 20 --gap 1s
}

targets="mock aimock floor"
[ -z "${BASELINE:-}" ] || targets="mock baseline aimock floor"

# workload NAME MESSAGE FLAGS...: runs one load against each server in turn (and the
# quiet agui-mock too when ALSO=quiet), keeping each JSON result as
# $work/NAME.TARGET.ROUND.json
workload() {
  local name=$1 message=$2; shift 2
  local target url pid v
  round=$((${round:-0} + 1))
  for target in $targets ${ALSO:-}; do
    case $target in
      mock) url="$URL_mock/agui/chat"; pid=$PID_mock ;;
      quiet) url="$URL_quiet/agui/chat"; pid=$PID_quiet ;;
      baseline) url="$URL_baseline/agui/chat"; pid=$PID_baseline ;;
      aimock) url="$URL_aimock/"; pid=$PID_aimock ;;
      floor) v="URL_floor_$message"; url="${!v}/"; v="PID_floor_$message"; pid=${!v} ;;
    esac
    "$bin" load --format json --url "$url" --message "$message" --pid "$pid" "$@" > "$work/$name.$target.$round.json" || true
  done
}

# rounds NAME MESSAGE FLAGS...: the workload ROUNDS times (3 unless set), the servers
# taking turns, so that a passing disturbance does not decide a ratio
rounds() {
  for _ in $(seq "${ROUNDS:-3}"); do workload "$@"; done
}

# row LABEL UNIT WORKLOAD FIELD [max]: prints the median (or the max) over the rounds of
# a measure for each server, and the ratios to the floor and to aimock; FIELD is a path
# such as .eventsPerSec or .gapError.p99. With AGUI=quiet the agui-mock column is the
# quiet server's, and the baseline's is left empty.
row() {
  AGUI=${AGUI:-mock} python3 - "$work" "$@" <<'PY'
import glob, json, os, statistics, sys
work, label, unit, name, path = sys.argv[1:6]
aggregate = max if sys.argv[6:] == ["max"] else statistics.median
def one(file):
    try:
        with open(file) as f:
            v = json.load(f)
        for k in path.strip(".").split("."):
            v = v[k]
        return float(v)
    except (OSError, ValueError, KeyError, TypeError):
        return None
def num(target):
    values = [one(f) for f in sorted(glob.glob(f"{work}/{name}.{target}.*.json"))]
    if not values or None in values:
        return None  # a load that failed to report
    return aggregate(values)
agui = os.environ["AGUI"]
m, a, f = num(agui), num("aimock"), num("floor")
b = num("baseline") if agui == "mock" else None
baseline = bool(glob.glob(f"{work}/{name}.baseline.*.json"))
def fmt(x):
    if x is None: return "—"
    if unit == "ms": return f"{x/1e6:.2f} ms"
    if unit == "µs": return f"{x/1e3:.2f} µs"
    if unit == "KiB": return f"{x/1024:.1f} KiB"
    return f"{x:,.0f}"
def ratio(x, y):  # none for counts of failures, where only zero is good
    return f"{x/y:.2f}×" if x is not None and y and aggregate is not max else "—"
if baseline:
    print(f"| {label} | {fmt(m)} | {fmt(b)} | {fmt(a)} | {fmt(f)} | {ratio(m, f)} | {ratio(m, a)} | {ratio(m, b)} | {ratio(b, f)} |")
else:
    print(f"| {label} | {fmt(m)} | {fmt(a)} | {fmt(f)} | {ratio(m, f)} | {ratio(m, a)} |")
PY
}

# warm: a load of each kind on every server before anything is measured, so that the
# first round finds them as the others do: the heap grown, and Node's JIT warm
warm() {
  ALSO=quiet workload warm204 burst204 --concurrency 50 --runs "$(scale 200)"
  ALSO=quiet workload warmshort short --concurrency 64 --runs "$(scale 4000)"
}

start_all
warm
echo "${ROUNDS:-3} rounds; each figure is the median of its rounds unless it says otherwise."
echo
if [ -n "${BASELINE:-}" ]; then
  echo "| measure | agui-mock | baseline | aimock | floor | agui-mock ÷ floor | agui-mock ÷ aimock | agui-mock ÷ baseline | baseline ÷ floor |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
else
  echo "| measure | agui-mock | aimock | floor | agui-mock ÷ floor | agui-mock ÷ aimock |"
  echo "| --- | --- | --- | --- | --- | --- |"
fi
rounds burst204 burst204 --concurrency 50 --runs "$(scale 1000)"
rounds burst burst --concurrency 50 --runs "$(scale 500)"
ALSO=quiet rounds short short --concurrency 64 --runs "$(scale 20000)"
row "burst: server CPU per event (204-event runs, 50 at once)" µs burst204 .cpuPerEvent
row "burst: server CPU per event (500-event runs, 50 at once)" µs burst .cpuPerEvent
row "short runs: server CPU per run (5-event runs, 64 at once; floor: one write)" µs short .cpuPerRun
AGUI=quiet row "short runs: server CPU per run, agui-mock at --log-level warn --journal-events 0 (no log line, no run record, as aimock)" µs short .cpuPerRun
row "burst: events/s (204-event runs, 50 at once)" "" burst204 .eventsPerSec
row "burst: events/s (500-event runs, 50 at once)" "" burst .eventsPerSec
row "short runs/s (5-event runs, 64 at once; floor: one write)" "" short .runsPerSec
n=$(scale 1000)
rounds gap1k gap --concurrency "$n" --runs "$n" --ramp 500ms --expect-gap 50ms
row "$n × 50 ms-gap streams (started over 500 ms): time to first event p99" ms gap1k .firstEvent.p99
row "$n × 50 ms-gap streams (started over 500 ms): gap error p99" ms gap1k .gapError.p99
row "$n × 50 ms-gap streams (started over 500 ms): end-of-run drift p99" ms gap1k .drift.p99
rounds gap1kNow gap --concurrency "$n" --runs "$n" --expect-gap 50ms
row "$n × 50 ms-gap streams (started at once): time to first event p99" ms gap1kNow .firstEvent.p99
row "$n × 50 ms-gap streams (started at once): gap error p99" ms gap1kNow .gapError.p99
row "$n × 50 ms-gap streams (started at once): end-of-run drift p99" ms gap1kNow .drift.p99
n=$(scale 5000)
rounds gap5k gap --concurrency "$n" --runs "$n" --expect-gap 50ms
row "$n × 50 ms-gap streams (started at once): wall time" ms gap5k .wall
row "$n × 50 ms-gap streams (started at once): failed runs (most in a round)" "" gap5k .failed max
for held in 9000 10000; do
  n=$(scale $held)
  for _ in $(seq "${ROUNDS:-3}"); do
    start_all # memory is measured from servers just started
    workload "hold$held" hold --hold --concurrency "$n"
  done
  row "$n streams held open: failed (most in a round)" "" "hold$held" .failed max
  row "$n streams held open: memory per stream (fresh servers)" KiB "hold$held" .bytesPerOpenStream
done

# The two transports of agui-mock side by side: the same loads over SSE and over
# protobuf frames, taking turns, on a server started afresh.
# transport_rounds NAME MESSAGE FLAGS...: keeps $work/NAME.TRANSPORT.ROUND.json
transport_rounds() {
  local name=$1 message=$2; shift 2
  local r t
  for r in $(seq "${ROUNDS:-3}"); do
    for t in sse proto; do
      "$bin" load --format json --url "$URL_mock/agui/chat" --message "$message" --transport "$t" "$@" > "$work/$name.$t.$r.json" || true
    done
  done
}
# transport_row LABEL WORKLOAD FIELD: the median of each transport and their ratio
transport_row() {
  python3 - "$work" "$@" <<'PY'
import glob, json, statistics, sys
work, label, name, path = sys.argv[1:5]
def num(t):
    values = []
    for file in sorted(glob.glob(f"{work}/{name}.{t}.*.json")):
        try:
            with open(file) as f:
                v = json.load(f)
            for k in path.strip(".").split("."):
                v = v[k]
            values.append(float(v))
        except (OSError, ValueError, KeyError, TypeError):
            return None
    return statistics.median(values) if values else None
s, p = num("sse"), num("proto")
fmt = lambda x: "—" if x is None else f"{x:,.0f}"
print(f"| {label} | {fmt(s)} | {fmt(p)} | {p/s:.2f}× |" if s and p else f"| {label} | {fmt(s)} | {fmt(p)} | — |")
PY
}

start_all
echo
echo "| agui-mock, by transport | SSE | protobuf | protobuf ÷ SSE |"
echo "| --- | --- | --- | --- |"
transport_rounds tburst burst --concurrency 50 --runs "$(scale 500)"
transport_row "burst: events/s (500-event runs, 50 at once)" tburst .eventsPerSec
transport_rounds tshort short --concurrency 50 --runs "$(scale 20000)"
transport_row "short runs/s (5-event runs, 50 at once)" tshort .runsPerSec
