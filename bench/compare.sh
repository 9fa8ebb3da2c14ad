#!/usr/bin/env bash
# Runs the same loads, in one sitting on this machine, against agui-mock, CopilotKit
# aimock's AGUIMock (from npm) serving equivalent fixtures, and a minimal net/http SSE
# server (the floor), then prints each measure and its ratios. QUICK=1 runs small loads.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
make -s static OUT="$work/agui-mock"
(cd e2e && npm ci --no-audit --no-fund --silent)
bin="$work/agui-mock"

scale() { if [ "${QUICK:-}" = 1 ]; then echo $(( ($1 + 19) / 20 )); else echo "$1"; fi; }

# start NAME COMMAND...: starts a server, waits for its "listening on URL" line, and
# sets URL_NAME and PID_NAME
start() {
  local name=$1; shift
  "$@" > "$work/$name.out" 2>/dev/null &
  local pid=$!
  for _ in $(seq 100); do
    if url=$(grep -o 'http://[0-9.:]*' "$work/$name.out" 2>/dev/null | head -1) && [ -n "$url" ]; then
      printf -v "URL_$name" '%s' "$url"; printf -v "PID_$name" '%s' "$pid"; return
    fi
    sleep 0.1
  done
  echo "$name did not start" >&2; exit 1
}

start mock "$bin" serve --addr 127.0.0.1:0 --no-builtin --scenarios bench/scenarios --max-streams 0 --log-format json --watch off
start aimock node e2e/bench/aimock-server.mjs 0
start floor_burst "$bin" load-floor --addr 127.0.0.1:0 --events 500
start floor_short "$bin" load-floor --addr 127.0.0.1:0 --events 5
start floor_gap "$bin" load-floor --addr 127.0.0.1:0 --events 20 --gap 50ms

# load TARGET MESSAGE FLAGS...: one load run, its JSON result on stdout
load() {
  local target=$1 message=$2; shift 2
  local url pid
  case $target in
    mock) url="$URL_mock/agui/chat"; pid=$PID_mock ;;
    aimock) url="$URL_aimock/"; pid=$PID_aimock ;;
    floor) local v="URL_floor_$message"; url="${!v}/"; v="PID_floor_$message"; pid=${!v} ;;
  esac
  "$bin" load --format json --url "$url" --message "$message" --pid "$pid" "$@" || true
}

# field JSON PATH: a number from a result, e.g. .eventsPerSec or .gapError.p99
field() { python3 -c "import json,sys; v=json.load(sys.stdin); [v:=v[k] for k in sys.argv[1].strip('.').split('.')]; print(v)" "$1"; }

row() { # row LABEL UNIT mock aimock floor: prints values and the ratios to the floor and to aimock
  python3 - "$@" <<'PY'
import sys
label, unit, m, a, f = sys.argv[1:6]
def num(x):
    try: return float(x)
    except ValueError: return None
m, a, f = num(m), num(a), num(f)
def fmt(x):
    if x is None: return "—"
    if unit == "ms": return f"{x/1e6:.2f} ms"
    if unit == "KiB": return f"{x/1024:.1f} KiB"
    return f"{x:,.0f}"
def ratio(x, y): return f"{x/y:.2f}×" if x is not None and y else "—"
print(f"| {label} | {fmt(m)} | {fmt(a)} | {fmt(f)} | {ratio(m, f)} | {ratio(m, a)} |")
PY
}

measure() { # measure LABEL UNIT FIELD MESSAGE FLAGS...
  local label=$1 unit=$2 path=$3 message=$4; shift 4
  local m a f
  m=$(load mock "$message" "$@" | field "$path")
  a=$(load aimock "$message" "$@" | field "$path")
  f=$(load floor "$message" "$@" | field "$path")
  row "$label" "$unit" "$m" "$a" "$f"
}

echo "| measure | agui-mock | aimock | floor | agui-mock ÷ floor | agui-mock ÷ aimock |"
echo "| --- | --- | --- | --- | --- | --- |"
measure "burst: events/s (500-event runs, 50 at once)" "" .eventsPerSec burst --concurrency 50 --runs "$(scale 500)"
measure "short runs/s (5-event runs, 50 at once)" "" .runsPerSec short --concurrency 50 --runs "$(scale 20000)"
n=$(scale 1000)
measure "$n × 50 ms-gap streams: time to first event p99" ms .firstEvent.p99 gap --concurrency "$n" --runs "$n" --expect-gap 50ms
measure "$n × 50 ms-gap streams: gap error p99" ms .gapError.p99 gap --concurrency "$n" --runs "$n" --expect-gap 50ms
measure "$n × 50 ms-gap streams: end-of-run drift p99" ms .drift.p99 gap --concurrency "$n" --runs "$n" --expect-gap 50ms
n=$(scale 5000)
measure "$n × 50 ms-gap streams: wall time" ms .wall gap --concurrency "$n" --runs "$n" --expect-gap 50ms
measure "$n × 50 ms-gap streams: failed runs" "" .failed gap --concurrency "$n" --runs "$n" --expect-gap 50ms
n=$(scale 10000)
measure "$n streams held open: failed" "" .failed gap --hold --concurrency "$n"
measure "$n streams held open: memory per stream" KiB .bytesPerOpenStream gap --hold --concurrency "$n"
