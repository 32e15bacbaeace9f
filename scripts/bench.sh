#!/usr/bin/env bash
# Runs bench suites and regenerates each one's block of its README from
# that run: times, ratios against the issues' targets, and the
# false-positive rates the bench prints.
#
#   scripts/bench.sh standard counting counting-floor window partitioned \
#     scalable hash redis
#   BLOOMLAB_SCALABLE_N=1e7 scripts/bench.sh scalable   # the 10^7 block
#   BLOOMLAB_BENCH_RUNS=3 scripts/bench.sh standard counting
#
# With BLOOMLAB_BENCH_RUNS=N (default 1) each suite runs N times, one
# after another, and each figure in its block is the median of the N
# runs' medians (peers' as bloomlab's), so that one run disturbed by
# the host's other tenants decides nothing.
#
# Blocks: standard, counting, counting-floor, window, partitioned, hash
# and redis in benches/README.md; scalable (and scalable-1e7) in
# crates/scalable/README.md; after the suites, the table of every
# target at the top of benches/README.md (bench-report targets). The redis
# bench needs redis-server. Each suite's log is kept in
# $CARGO_TARGET_DIR/bench-SUITE.log. Run it on a quiet machine: other
# load moves the figures.
set -euo pipefail
cd "$(dirname "$0")/.."

suites="standard, counting, counting-floor, window, partitioned, scalable"
suites="$suites, hash, redis"
if [ "$#" -eq 0 ]; then
  echo "usage: scripts/bench.sh SUITE... ($suites)" >&2
  exit 2
fi
for suite in "$@"; do
  case "$suite" in
    standard | counting | counting-floor | window | partitioned | scalable | \
      hash) ;;
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

runs="${BLOOMLAB_BENCH_RUNS:-1}"
case "$runs" in
  [1-9] | [1-9][0-9]) ;;
  *)
    echo "error: BLOOMLAB_BENCH_RUNS must be a number of runs from 1 to 99," \
      "not '$runs'" >&2
    exit 2
    ;;
esac

# Where cargo builds, absolute (criterion, run from benches/, would read
# a relative CARGO_TARGET_DIR from there).
target=$(cargo metadata --format-version 1 --no-deps |
  sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
[ -n "$target" ] || { echo "error: cargo metadata gave no target directory" >&2; exit 1; }
export CARGO_TARGET_DIR="$target"
# Built first, so that building it does not share the machine with a run.
cargo build -q -p bloomlab-benches --bin bench-report
for suite in "$@"; do
  start=$(date +%s)
  log="$target/bench-$suite.log"
  dirs=(--criterion "$target/criterion")
  if [ "$runs" -gt 1 ]; then
    # Criterion keeps only the last run's results: each run's are copied.
    copies="$target/bench-runs/$suite"
    rm -rf "$copies"
    mkdir -p "$copies"
    dirs=()
  fi
  for run in $(seq "$runs"); do
    # The block's rates and notes are the first run's: bloomlab's keys
    # and hashes are seeded, the same in every run, but fastbloom's and
    # bloomfilter's hashers draw a random seed, so theirs move a little.
    run_log="$log"
    [ "$run" -gt 1 ] && run_log="$target/bench-$suite-$run.log"
    cargo bench -p bloomlab-benches --bench "$suite" 2>&1 | tee "$run_log"
    if [ "$runs" -gt 1 ]; then
      cp -rp "$target/criterion" "$copies/$run"
      dirs+=(--criterion "$copies/$run")
    fi
  done
  args=(--write)
  [ "$suite" = scalable ] && args=("${write[@]}")
  # Only results written since the first run started: peers and
  # bloomlab from the same runs.
  "$target/debug/bench-report" "$suite" "${dirs[@]}" \
    --log "$log" --since "$start" "${args[@]}"
done
# The summary of every block's ratios against the targets, read from the
# blocks as they now are.
"$target/debug/bench-report" targets --write
