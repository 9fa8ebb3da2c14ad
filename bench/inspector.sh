#!/usr/bin/env bash
# Measures what a subscriber to the journal stream (an open inspector page) costs a busy
# server: the same loads against one agui-mock, without a subscriber and with one
# (an SSE client reading GET /_mock/journal/stream, as the page does), taking turns
# ROUNDS times (5 unless set, the first of the pair alternating), and prints each
# measure's median and the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
go build -o "$work/agui-mock" .
bin="$work/agui-mock"

"$bin" serve --addr 127.0.0.1:0 --no-builtin --scenarios bench/scenarios --max-streams 0 --log-format json --watch off > "$work/mock.out" 2>/dev/null &
for _ in $(seq 100); do
  url=$(grep -o 'http://[0-9.:]*' "$work/mock.out" 2>/dev/null | head -1) && [ -n "$url" ] && break
  sleep 0.1
done
[ -n "${url:-}" ] || { echo "agui-mock did not start" >&2; exit 1; }

# load NAME ROUND MESSAGE FLAGS...: one load, kept as $work/NAME.ROUND.json
load() {
  local name=$1 round=$2 message=$3; shift 3
  "$bin" load --format json --url "$url/agui/chat" --message "$message" "$@" > "$work/$name.$round.json"
}

for round in $(seq "${ROUNDS:-5}"); do
  order="off on"; [ $((round % 2)) = 0 ] && order="on off" # neither goes first every time
  for subscribed in $order; do
    if [ $subscribed = on ]; then
      curl -sN "$url/_mock/journal/stream" > "$work/stream.$round" &
      sub=$!
      sleep 0.2
    fi
    load "short-$subscribed" "$round" short --concurrency 50 --runs ${SHORT_RUNS:-3000}
    load "burst-$subscribed" "$round" burst --concurrency 50 --runs 200
    if [ $subscribed = on ]; then
      kill $sub; wait $sub 2>/dev/null || true
      grep -c '^event: entry' "$work/stream.$round" > "$work/entries.$round"
    fi
  done
done

python3 - "$work" "${ROUNDS:-5}" <<'PY'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def med(name, field):
    return statistics.median(json.load(open(f"{work}/{name}.{r}.json"))[field] for r in range(1, rounds + 1))
print(f"{rounds} rounds, taking turns; medians")
print("| measure | no subscriber | a subscriber to the journal stream | with ÷ without | per-round ratios: median (range) |")
print("| --- | --- | --- | --- | --- |")
for label, name, field in [("short runs/s (5-event runs, 50 at once)", "short", "runsPerSec"),
                           ("burst events/s (500-event runs, 50 at once)", "burst", "eventsPerSec")]:
    off, on = med(name + "-off", field), med(name + "-on", field)
    pairs = [json.load(open(f"{work}/{name}-on.{r}.json"))[field] / json.load(open(f"{work}/{name}-off.{r}.json"))[field] for r in range(1, rounds + 1)]
    print(f"| {label} | {off:,.0f} | {on:,.0f} | {on / off:.3f}× | {statistics.median(pairs):.3f}× ({min(pairs):.2f}–{max(pairs):.2f}) |")
entries = [int(open(f"{work}/entries.{r}").read()) for r in range(1, rounds + 1)]
print(f"\nentries the subscriber received per round: {entries}")
PY
