#!/usr/bin/env bash
# Runs bench suites with targets (standard, counting) and regenerates each
# one's block of README.md from that run: times, ratios against the
# issues' targets, and the false-positive rates the bench prints.
#
#   scripts/bench.sh standard counting
#
# Each suite's log is kept in $CARGO_TARGET_DIR/bench-SUITE.log. Run it
# on a quiet machine: other load moves the figures.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$#" -eq 0 ]; then
  echo "usage: scripts/bench.sh SUITE... (standard, counting)" >&2
  exit 2
fi
for suite in "$@"; do
  case "$suite" in
    standard | counting) ;;
    *)
      echo "error: unknown suite $suite: one of standard, counting" >&2
      exit 2
      ;;
  esac
done

target="${CARGO_TARGET_DIR:-target}"
# Built first, so that building it does not share the machine with a run.
cargo build -q -p bloomlab-benches --bin bench-report
for suite in "$@"; do
  start=$(date +%s)
  log="$target/bench-$suite.log"
  cargo bench -p bloomlab-benches --bench "$suite" 2>&1 | tee "$log"
  # Only results written since the run started: peers and bloomlab from
  # the same run.
  "$target/debug/bench-report" "$suite" --criterion "$target/criterion" \
    --log "$log" --since "$start" --readme README.md
done
