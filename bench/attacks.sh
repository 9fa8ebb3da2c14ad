#!/usr/bin/env bash
# Plays the red team's attacks of resource exhaustion (bench/attack) against agui-mock
# built from this tree, started as the shipped deployment runs it (GOMEMLIMIT=450MiB,
# default limits), and prints, for each attack, the worst latency of /_mock/healthz and
# the process's peak RSS. With BASE=<git revision>, the same attacks against that
# revision first, for a before and after. Linux only; takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'git worktree remove --force "$work/base" 2>/dev/null || true; rm -rf "$work"' EXIT
if [ -n "${BASE:-}" ]; then
  git worktree add --detach "$work/base" "$BASE" >/dev/null
  (cd "$work/base" && go build -o "$work/agui-mock-base" .)
  echo "## before: $BASE"
  go run ./bench/attack -bin "$work/agui-mock-base" "$@"
  echo
  echo "## after: $(git rev-parse --short HEAD)$(git diff --quiet || echo ' with changes')"
fi
go build -o "$work/agui-mock" .
go run ./bench/attack -bin "$work/agui-mock" "$@"
