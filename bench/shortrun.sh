#!/usr/bin/env bash
# Measures what a short run costs the server at its defaults: server CPU time (user and
# system, read from /proc by the load tool) per 7-event run (short7: RUN_STARTED,
# TEXT_MESSAGE_START, three deltas, TEXT_MESSAGE_END, RUN_FINISHED), for agui-mock as
# `agui-mock serve --scenarios bench/scenarios` starts it (the text log at info, here into
# a file, the journal, the built-in scenarios, the watch, the default -max-streams), and
# for CopilotKit aimock's AGUIMock at its defaults serving the same events
# (e2e/bench/aimock-server.mjs). Quiet loads of QUIET_C runs at a time (1 and 2 unless
# set, a list) and loaded ones of LOADED_C at once (16 unless set). The servers take turns in ROUNDS rounds
# (3 unless set), so that a passing disturbance does not decide a ratio; each figure is
# the median of its rounds, and each round's ratio is printed too. BASELINE=path/to/an/
# older/agui-mock adds that build, started the same way, as a column of its own, measured
# in the same rounds (a before and after). QUICK=1 runs loads of a tenth of the size.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
scale() { if [ "${QUICK:-}" = 1 ]; then echo $(( ($1 + 9) / 10 )); else echo "$1"; fi; }

# Each server as its users start it: agui-mock with nothing but its scenarios and an
# address (the log goes to the file, as a terminal's or a CI job's log would keep it).
start mock "$bin" serve --addr 127.0.0.1:0 --scenarios bench/scenarios
targets=mock
if [ -n "${BASELINE:-}" ]; then
  start baseline "$BASELINE" serve --addr 127.0.0.1:0 --scenarios bench/scenarios
  targets="mock baseline"
fi
start aimock node e2e/bench/aimock-server.mjs 0
targets="$targets aimock"

# load NAME CONCURRENCY RUNS ROUND: one load of short7 runs against each server in turn,
# each result kept as $work/NAME.TARGET.ROUND.json
load() {
  local name=$1 c=$2 runs=$3 round=$4 target url pid
  for target in $targets; do
    case $target in
      aimock) url="$URL_aimock/"; pid=$PID_aimock ;;
      *) v="URL_$target"; url="${!v}/agui/chat"; v="PID_$target"; pid=${!v} ;;
    esac
    "$bin" load --format json --url "$url" --message short7 --pid "$pid" --concurrency "$c" --runs "$runs" > "$work/$name.$target.$round.json" || true
  done
}

quiet=${QUIET_C:-1 2} loaded=${LOADED_C:-16}
# Before the first round every server serves a loaded and a quiet load, so that the first
# round finds them as the later ones do: the heap grown, the threads and the journal
# full, Node's JIT warm.
load warm 16 "$(scale 20000)" 0
load warm 1 "$(scale 2000)" 0
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "${ROUNDS:-3}"); do
  for c in $quiet; do load "quiet$c" "$c" "$(scale $((6000 * c)))" "$round"; done
  for c in $loaded; do load "loaded$c" "$c" "$(scale 20000)" "$round"; done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
python3 - "$work" "$quiet" "$loaded" $targets <<'PY'
import glob, json, statistics, sys
work, quiet, loaded, targets = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4:]
FAILED = "failed"  # a load with failed runs, or runs not of 7 events
def rounds(name, target):
    """Each round's CPU per run in µs, FAILED, or None when the load took less than a
    hundredth of a second of the server's CPU, /proc's unit."""
    out = []
    for file in sorted(glob.glob(f"{work}/{name}.{target}.*.json")):
        try:
            with open(file) as f:
                r = json.load(f)
        except (OSError, ValueError):
            r = {}
        if not r.get("runs") or r.get("failed") or r.get("events") != 7 * r["runs"]:
            out.append(FAILED)
        else:
            out.append(r["cpuPerRun"] / 1e3 if r.get("cpuPerRun") else None)
    return out
def median(values):
    if FAILED in values:
        return FAILED
    return statistics.median(values) if values and None not in values else None
def fmt(x):
    return "—" if x is None else x if x == FAILED else f"{x:.1f} µs"
def ratio(x, y):
    return f"{x / y:.2f}×" if isinstance(x, float) and isinstance(y, float) else "—"
baseline = "baseline" in targets
head = ["server CPU per 7-event run", "agui-mock"] + (["baseline"] if baseline else []) + ["aimock", "agui-mock ÷ aimock", "each round"]
if baseline:
    head += ["agui-mock ÷ baseline"]
print("| " + " | ".join(head) + " |")
print("|" + " --- |" * len(head))
loads = [(f"quiet{c}", f"quiet: {c} run{'s' if c != '1' else ''} at a time") for c in quiet]
loads += [(f"loaded{c}", f"loaded: {c} runs at once") for c in loaded]
for name, label in loads:
    per = {t: rounds(name, t) for t in targets}
    med = {t: median(v) for t, v in per.items()}
    each = ", ".join(ratio(m, a) for m, a in zip(per["mock"], per["aimock"]))
    row = [label, fmt(med["mock"])] + ([fmt(med["baseline"])] if baseline else []) + [fmt(med["aimock"]), ratio(med["mock"], med["aimock"]), each]
    if baseline:
        row += [ratio(med["mock"], med["baseline"])]
    print("| " + " | ".join(row) + " |")
PY
