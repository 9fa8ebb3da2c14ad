#!/usr/bin/env bash
# Measures agui-mock with a large recorded suite, beside CopilotKit's aimock serving the
# equivalent fixtures where it has an equivalent: for each size of SIZES ("10 1000 5000"
# unless set), a suite written by bench/suite (45 % recorded files, 55 % hand-written,
# one example each), and
# - load: from the server's start to ready (/_mock/readyz answering 200; aimock: its
#   "listening on" line), wall time and the server's CPU time (utime + stime from
#   /proc/PID/stat), agui-mock with --no-builtin --watch off and with its defaults, the
#   median of LOAD_ROUNDS (3) starts (one when a start takes longer than 30 s), and the
#   CPU of the largest size over the one before it;
# - one edit served: agui-mock watching the suite, the last file rewritten to answer
#   another text, then run requests until the new text is answered: from the write to
#   that answer, the median of EDITS (5) edits, each given EDIT_TIMEOUT (300) seconds and
#   none started after EDIT_BUDGET (600) seconds of them (aimock has no reload);
# - selection: the server's CPU time per run (agui-mock load --pid) of the scenario
#   each server tries last (the last file's, hand-written; aimock's last fixture), RUNS
#   (2000) runs CONCURRENCY (16) at a time, ROUNDS (5) rounds with the servers taking
#   turns, the median of the rounds; the largest size over the smallest, and agui-mock
#   over aimock.
# QUICK=1 runs a small version (sizes 10 100 300, fewer runs and edits).
# BASELINE=path/to/an/older/agui-mock measures that build too, in rows of its own.
# ROWS="load edit selection" picks the measures. START_TIMEOUT (600) bounds a start.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
if [ "${QUICK:-}" = 1 ]; then
  : "${SIZES:=10 100 300}" "${ROUNDS:=2}" "${RUNS:=300}" "${EDITS:=2}" "${LOAD_ROUNDS:=1}"
fi
export SIZES="${SIZES:-10 1000 5000}" ROUNDS="${ROUNDS:-5}" RUNS="${RUNS:-2000}" CONCURRENCY="${CONCURRENCY:-16}" \
  EDITS="${EDITS:-5}" EDIT_TIMEOUT="${EDIT_TIMEOUT:-300}" EDIT_BUDGET="${EDIT_BUDGET:-600}" \
  LOAD_ROUNDS="${LOAD_ROUNDS:-3}" START_TIMEOUT="${START_TIMEOUT:-600}" ROWS="${ROWS:-load edit selection}"
go build -o "$work/suite" ./bench/suite
for n in $SIZES; do
  "$work/suite" -n "$n" -dir "$work/suite-$n" -aimock "$work/aimock-$n.json"
done
echo "agui-mock $(git describe --always --dirty 2>/dev/null || echo '(no git)'), aimock $(node -p "require('./e2e/node_modules/@copilotkit/aimock/package.json').version"), Node.js $(node --version), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo

python3 - "$work" "$work/agui-mock" "${BASELINE:-}" <<'PY' &
import ctypes, json, os, re, shutil, signal, statistics, subprocess, sys, threading, time, urllib.request

work, this, baseline = sys.argv[1:4]
env = os.environ
sizes = [int(n) for n in env["SIZES"].split()]
rows = env["ROWS"].split()
binaries = [("agui-mock", this)] + ([("baseline", os.path.abspath(baseline))] if baseline else [])
tick = os.sysconf("SC_CLK_TCK")
libc = ctypes.CDLL(None, use_errno=True)
servers = []  # every server started and not yet stopped

signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the finally below stops the servers

def note(*args):  # progress, on stderr
    print(*args, file=sys.stderr, flush=True)

def cpu(pid):
    """The process's CPU time so far, user and system, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick

class Server:
    """A server process: started, its URL read from its "listening on" line."""
    def __init__(self, argv, ready_path=None):
        self.ready_path, self.url = ready_path, None
        self.seen = threading.Event()
        self.started = time.monotonic()
        # it dies with this script, whatever ends it
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     preexec_fn=lambda: libc.prctl(1, signal.SIGKILL))
        servers.append(self)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            if self.url is None and b"listening on" in line:
                if m := re.search(rb"http://[0-9.:]+", line):
                    self.url = m.group(0).decode()
                    self.seen.set()
        self.seen.set()  # it ended

    def ready(self, timeout):
        """Waits until the server is ready; returns the wall and CPU time from its start, or None."""
        deadline = self.started + timeout
        self.seen.wait(max(0, deadline - time.monotonic()))
        while self.url and self.proc.poll() is None and time.monotonic() < deadline:
            if self.ready_path is None or status(self.url + self.ready_path) == 200:
                return time.monotonic() - self.started, cpu(self.proc.pid)
            time.sleep(0.005)
        return None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        servers.remove(self)

def status(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status
    except Exception:
        return None

def agui(binary, n, *flags, scenarios=None):
    return Server([binary, "serve", "--addr", "127.0.0.1:0", "--scenarios", scenarios or f"{work}/suite-{n}",
                   "--log-format", "json", *flags], "/_mock/readyz")

def aimock(n):
    return Server(["node", "e2e/bench/aimock-fixtures.mjs", f"{work}/aimock-{n}.json", "0"])

def last(n):
    """The last file of the suite of n, and the message of its example (the last fixture's)."""
    with open(f"{work}/aimock-{n}.json") as f:
        fixture = json.load(f)[-1]
    return sorted(os.listdir(f"{work}/suite-{n}"))[-1], fixture["example"]

def count(n): return f"{n:,}"
def secs(x): return f"{x:.2f} s" if x >= 0.1 else f"{x * 1000:.0f} ms"
def ratio(a, b): return f"{a / b:.2f}×" if a is not None and b else "—"
def table(head, lines):
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for line in lines:
        print("| " + " | ".join(line) + " |")
    print(flush=True)

def measure_load():
    configs = []
    for name, binary in binaries:
        configs.append((f"{name} --no-builtin --watch off", lambda n, b=binary: agui(b, n, "--no-builtin", "--watch", "off")))
        configs.append((f"{name} (defaults: built-ins, watching)", lambda n, b=binary: agui(b, n)))
    configs.append(("aimock", aimock))
    results = {}  # (config, n): [(wall, cpu) or None]
    for n in sizes:
        for r in range(int(env["LOAD_ROUNDS"])):
            for label, start in configs:
                got = results.setdefault((label, n), [])
                if got and (got[0] is None or got[0][0] > 30):
                    continue  # one slow start is enough
                note(f"load: {count(n)} files, {label}, round {r + 1}")
                s = start(n)
                got.append(s.ready(float(env["START_TIMEOUT"])))
                s.stop()
    def cell(label, n):
        got = results[(label, n)]
        if None in got:
            return f"timeout (> {env['START_TIMEOUT']} s)", None
        wall, cpu_s = statistics.median(w for w, _ in got), statistics.median(c for _, c in got)
        return f"{secs(wall)} ({secs(cpu_s)} CPU)", cpu_s
    head = ["load: start to ready, wall (CPU)"] + [f"{count(n)} files" for n in sizes]
    if len(sizes) > 1:
        head.append(f"CPU {count(sizes[-1])} ÷ {count(sizes[-2])}")
    lines = []
    for label, _ in configs:
        cells = [cell(label, n) for n in sizes]
        line = [label] + [c for c, _ in cells]
        if len(sizes) > 1:
            line.append(ratio(cells[-1][1], cells[-2][1]))
        lines.append(line)
    table(head, lines)

def run_text(url, message):
    body = json.dumps({"threadId": "edit", "runId": "edit", "messages": [{"id": "u1", "role": "user", "content": message}],
                       "tools": [], "context": [], "state": {}, "forwardedProps": {}}).encode()
    req = urllib.request.Request(url + "/agui/chat", data=body, headers={"Content-Type": "application/json", "Accept": "text/event-stream"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.read().decode(errors="replace")
    except Exception:
        return ""

def measure_edit():
    head = [f"one edit served: write → new text answered, median of {env['EDITS']} (CPU meanwhile)"] + [f"{count(n)} files" for n in sizes]
    lines = []
    for name, binary in binaries:
        line = [name]
        for n in sizes:
            d = f"{work}/edit-{name}-{n}"
            shutil.copytree(f"{work}/suite-{n}", d)
            file, message = last(n)
            path = os.path.join(d, file)
            with open(path) as f:
                original = f.read()
            s = agui(binary, n, "--no-builtin", "--speed", "0", scenarios=d)
            if s.ready(float(env["START_TIMEOUT"])) is None:
                line.append(f"did not start in {env['START_TIMEOUT']} s")
                s.stop()
                continue
            took, cpus, timed_out, spent = [], [], False, 0.0
            for k in range(1, int(env["EDITS"]) + 1):
                if spent > float(env["EDIT_BUDGET"]):
                    break
                time.sleep(0.5)  # past the watcher's quiet time after the last change
                marker = f"edit-{k} "
                note(f"edit: {count(n)} files, {name}, edit {k}")
                tmp = os.path.join(d, f".{file}.tmp")  # as editors save: a new file renamed over the old
                with open(tmp, "w") as f:
                    f.write(original.replace("  - text: '", "  - text: '" + marker, 1))
                before, written = cpu(s.proc.pid), time.monotonic()
                os.replace(tmp, path)
                while marker not in run_text(s.url, message):
                    if time.monotonic() - written > float(env["EDIT_TIMEOUT"]):
                        timed_out = True
                        break
                    time.sleep(0.01)
                spent += time.monotonic() - written
                if timed_out:
                    break
                took.append(time.monotonic() - written)
                cpus.append(cpu(s.proc.pid) - before)
            s.stop()
            shutil.rmtree(d)
            if timed_out:
                line.append(f"timeout (> {env['EDIT_TIMEOUT']} s)" + (f" after {len(took)} of {secs(statistics.median(took))}" if took else ""))
            else:
                of = f", {len(took)} edits" if len(took) != int(env["EDITS"]) else ""
                line.append(f"{secs(statistics.median(took))} ({secs(statistics.median(cpus))} CPU{of})")
        lines.append(line)
    lines.append(["aimock"] + ["— (no reload)"] * len(sizes))
    table(head, lines)

def load_tool(url, message, pid, runs):
    out = subprocess.run([this, "load", "--format", "json", "--url", url, "--message", message, "--pid", str(pid),
                          "--concurrency", env["CONCURRENCY"], "--runs", str(runs)],
                         capture_output=True, text=True, timeout=900)
    try:
        result = json.loads(out.stdout)
    except ValueError:
        return None
    return None if result.get("failed") else result.get("cpuPerRun", 0) / 1000  # µs

def measure_selection():
    targets = []  # (name, n, server, url)
    for n in sizes:
        for name, binary in binaries:
            targets.append((name, n, agui(binary, n, "--no-builtin", "--watch", "off", "--speed", "0"), "/agui/chat"))
        targets.append(("aimock", n, aimock(n), "/"))
    for name, n, s, _ in targets:
        note(f"selection: starting {name} with {count(n)} files")
        if s.ready(float(env["START_TIMEOUT"])) is None:
            raise SystemExit(f"{name} with {count(n)} files did not start")
    per_run = {}  # (name, n): [µs per run]
    for name, n, s, path in targets:  # warm: Node's JIT, the heaps grown
        load_tool(s.url + path, last(n)[1], s.proc.pid, min(int(env["RUNS"]), 300))
    for r in range(int(env["ROUNDS"])):
        note(f"selection: round {r + 1}")
        for n in sizes:
            group = [t for t in targets if t[1] == n]
            group = group[r % len(group):] + group[:r % len(group)]  # none goes first every round
            for name, _, s, path in group:
                per_run.setdefault((name, n), []).append(load_tool(s.url + path, last(n)[1], s.proc.pid, int(env["RUNS"])))
    for _, _, s, _ in targets:
        s.stop()
    def med(name, n):
        got = per_run.get((name, n), [])
        return None if not got or None in got else statistics.median(got)
    names = [name for name, _ in binaries] + ["aimock"]
    head = [f"selection: server CPU per run of the scenario tried last ({env['RUNS']} runs, {env['CONCURRENCY']} at once, median of {env['ROUNDS']} rounds)"] + \
           [f"{count(n)} files" for n in sizes] + ([f"{count(sizes[-1])} ÷ {count(sizes[0])}"] if len(sizes) > 1 else [])
    us = lambda x: "failed runs" if x is None else f"{x:,.0f} µs"
    lines = []
    for name in names:
        line = [name] + [us(med(name, n)) for n in sizes]
        if len(sizes) > 1:
            line.append(ratio(med(name, sizes[-1]), med(name, sizes[0])))
        lines.append(line)
    for name in [name for name, _ in binaries]:
        lines.append([f"{name} ÷ aimock"] + [ratio(med(name, n), med("aimock", n)) for n in sizes] + ([""] if len(sizes) > 1 else []))
    if baseline:
        lines.append(["agui-mock ÷ baseline"] + [ratio(med("agui-mock", n), med("baseline", n)) for n in sizes] + ([""] if len(sizes) > 1 else []))
    table(head, lines)

try:
    if "load" in rows:
        measure_load()
    if "edit" in rows:
        measure_edit()
    if "selection" in rows:
        measure_selection()
finally:
    for s in list(servers):
        s.stop()
PY
wait $!
