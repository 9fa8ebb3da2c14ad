# What the bench scripts share, sourced by each after `set -euo pipefail`: the repository's
# root as the working directory, a scratch directory ($work) removed with every server
# started when the script exits, the agui-mock binary built into it ($bin, as `make
# static` builds the released one), and CopilotKit's aimock installed from the end-to-end
# suite's lockfile (once, then reused).
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
make -s static OUT="$work/agui-mock"
bin="$work/agui-mock"
[ -d e2e/node_modules/@copilotkit/aimock ] || (cd e2e && npm ci --no-audit --no-fund --silent)

# start NAME COMMAND...: starts a server, its output into $work/NAME.log (its log
# discarded instead with SERVER_LOG=discard), waits for its "listening on URL" line, and
# sets URL_NAME and PID_NAME
start() {
  local name=$1 url pid; shift
  if [ "${SERVER_LOG:-}" = discard ]; then
    "$@" > "$work/$name.log" 2>/dev/null &
  else
    "$@" > "$work/$name.log" 2>&1 &
  fi
  pid=$!
  for _ in $(seq 100); do
    if url=$(grep -o 'listening on http://[0-9.:]*' "$work/$name.log" 2>/dev/null | head -1) && [ -n "$url" ]; then
      printf -v "URL_$name" '%s' "${url#listening on }"; printf -v "PID_$name" '%s' "$pid"; return
    fi
    sleep 0.1
  done
  echo "$name did not start" >&2; exit 1
}
