#!/usr/bin/env bash
# Measures what refusing a scenario file whose run is past the event limit costs: a
# 3.9 MiB scenario of 95,000 subagent steps, whose run would stream 475,002 events
# (100,000 is the limit of one run). It times `agui-mock validate` on it, with the
# process's peak resident memory; then a server watching its directory: from the file's
# save to its refusal (the server's peak resident memory meanwhile), and from each of
# SAVES (5 unless set) saves of another file of the directory to the file's refusal
# again (the collections meanwhile, from GODEBUG=gctrace=1, and the most heap one
# started with). With BASELINE=<revision>, the agui-mock of that revision, built from a
# worktree of it, is measured first.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
cleanup() {
  [ -n "${BASELINE:-}" ] && git worktree remove --force "$work/baseline" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
bins=()
if [ -n "${BASELINE:-}" ]; then
  git worktree add --detach -q "$work/baseline" "$BASELINE"
  (cd "$work/baseline" && go build -o "$work/agui-mock-baseline" .)
  bins+=("baseline=$work/agui-mock-baseline")
fi
go build -o "$work/agui-mock" .
bins+=("this tree=$work/agui-mock")

python3 - "$work" "${SAVES:-5}" "${bins[@]}" <<'PY'
import json, os, re, statistics, subprocess, sys, threading, time, urllib.request

work, saves, bins = sys.argv[1], int(sys.argv[2]), [b.split("=", 1) for b in sys.argv[3:]]
fanout = "id: fanout\nmatch: {message: fanout}\nsteps:\n" + "  - subagent: {name: a, steps: [{text: x}]}\n" * 95_000
alpha = lambda marker: "match: {message: alpha}\nsteps:\n  - text: served-%s\n" % marker

def save(path, content):  # as editors do: a new file renamed over the old
    with open(path + ".tmp", "w") as f:
        f.write(content)
    os.rename(path + ".tmp", path)

def status(url):
    with urllib.request.urlopen(url + "/_mock/status") as r:
        return json.load(r)

def wait_for(url, check):
    while True:
        st = status(url)
        if check(st):
            return st
        time.sleep(0.005)

def kib(pid, field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])

gc_line = re.compile(r"^gc \d+ @[\d.]+s .*?, (\d+)->\d+->\d+ MB")

def measure(name, binary):
    path = os.path.join(work, "fanout.yaml")
    save(path, fanout)
    started = time.monotonic()
    p = subprocess.Popen([binary, "validate", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read().decode()
    _, code, usage = os.wait4(p.pid, 0)
    validate = (time.monotonic() - started, usage.ru_maxrss / 1024, "more than 100000 events" in out)
    os.remove(path)

    d = os.path.join(work, "served-" + name.replace(" ", "-"))
    os.mkdir(d)
    save(os.path.join(d, "alpha.yaml"), alpha("v0"))
    srv = subprocess.Popen([binary, "serve", "--addr", "127.0.0.1:0", "--no-builtin", "--scenarios", d, "--poll-interval", "1h"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, GODEBUG="gctrace=1"))
    gcs = []  # (when, heap at the collection's start in MB)
    def read_gcs():
        for line in srv.stderr:
            if m := gc_line.match(line.decode(errors="replace")):
                gcs.append((time.monotonic(), int(m.group(1))))
    threading.Thread(target=read_gcs, daemon=True).start()
    url = None
    for line in srv.stdout:
        if m := re.search(r"http://[0-9.:]+", line.decode()):
            url = m.group(0)
            break
    threading.Thread(target=lambda: [None for _ in srv.stdout], daemon=True).start()
    try:
        with open(f"/proc/{srv.pid}/clear_refs", "w") as f:
            f.write("5")  # the peak resident memory starts again from what is resident
        before = kib(srv.pid, "VmRSS")
        started = time.monotonic()
        save(os.path.join(d, "fanout.yaml"), fanout)
        st = wait_for(url, lambda st: st["failed"])
        first = (time.monotonic() - started, (kib(srv.pid, "VmHWM") - before) / 1024, st["errors"][0]["message"])
        again = []
        for i in range(saves):
            time.sleep(0.3)  # past the watcher's debounce
            since = st["failedAt"]
            started = time.monotonic()
            save(os.path.join(d, "alpha.yaml"), alpha(f"v{i + 1}"))
            st = wait_for(url, lambda st: st["failedAt"] != since)
            ended = time.monotonic()
            window = [heap for when, heap in gcs if started <= when <= ended]
            again.append((ended - started, len(window), max(window, default=0)))
    finally:
        srv.terminate()
        srv.wait()
    return validate, first, again

print("A 3.9 MiB scenario of 95,000 subagent steps (a run of 475,002 events)\n")
print("| agui-mock | validate: time | validate: peak RSS | served: save to refusal | served: RSS grown meanwhile | another file saved: to the refusal again (median) | collections meanwhile (median) | most heap at a collection's start |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for name, binary in bins:
    validate, first, again = measure(name, binary)
    assert validate[2], "validate did not refuse the file"
    print(f"| {name} | {validate[0]:.2f} s | {validate[1]:.0f} MiB | {first[0]:.2f} s | {first[1]:.0f} MiB "
          f"| {statistics.median(a[0] for a in again) * 1000:.0f} ms | {statistics.median(a[1] for a in again):.0f} "
          f"| {max(a[2] for a in again)} MB |")
print(f"\nthe refusal ({bins[-1][0]}): {first[2]}")
PY
