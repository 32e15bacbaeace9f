#!/usr/bin/env bash
# Runs bench suites and regenerates each one's block of its README from
# that run: times, ratios against the issues' targets, and the
# false-positive rates the bench prints.
#
#   scripts/bench.sh standard counting window partitioned scalable hash redis
#   BLOOMLAB_SCALABLE_N=1e7 scripts/bench.sh scalable   # the 10^7 block
#
# Blocks: standard, counting, window, partitioned, hash and redis in
# README.md; scalable (and scalable-1e7) in crates/scalable/README.md. The redis
# bench needs redis-server. Each suite's log is kept in
# $CARGO_TARGET_DIR/bench-SUITE.log. Run it on a quiet machine: other
# load moves the figures.
set -euo pipefail
cd "$(dirname "$0")/.."

suites="standard, counting, window, partitioned, scalable, hash, redis"
if [ "$#" -eq 0 ]; then
  echo "usage: scripts/bench.sh SUITE... ($suites)" >&2
  exit 2
fi
for suite in "$@"; do
  case "$suite" in
    standard | counting | window | partitioned | scalable | hash) ;;
    redis)
      # Without it the bench skips itself and leaves no results: say so
      # before any suite runs.
      if ! command -v redis-server >/dev/null; then
        echo "error: the redis bench needs redis-server" \
          "(apt-get install -y redis-server)" >&2
        exit 2
      fi
      ;;
    *)
      echo "error: unknown suite $suite: one of $suites" >&2
      exit 2
      ;;
  esac
done
# The scalable bench's size: 10^6 by default, or 10^7; other sizes are
# printed, not written into a README.
write=(--write)
case "${BLOOMLAB_SCALABLE_N:-}" in
  "") ;;
  1e7 | 10000000) write=(--write --block scalable-1e7) ;;
  *) write=() ;;
esac

target="${CARGO_TARGET_DIR:-target}"
# Built first, so that building it does not share the machine with a run.
cargo build -q -p bloomlab-benches --bin bench-report
for suite in "$@"; do
  start=$(date +%s)
  log="$target/bench-$suite.log"
  cargo bench -p bloomlab-benches --bench "$suite" 2>&1 | tee "$log"
  args=(--write)
  [ "$suite" = scalable ] && args=("${write[@]}")
  # Only results written since the run started: peers and bloomlab from
  # the same run.
  "$target/debug/bench-report" "$suite" --criterion "$target/criterion" \
    --log "$log" --since "$start" "${args[@]}"
done
