#!/usr/bin/env bash
# The one test command: formatting, lints, every test, and the docs.
# README and .ci/run both call this script; keep them in step.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

# bloomlab-redis tests start their own redis-server on 127.0.0.1; install
# it when this machine lacks it (fresh CI machines do).
if ! command -v redis-server >/dev/null 2>&1; then
    step "installing redis-server (needed by bloomlab-redis tests)"
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server
fi

step "cargo fmt --check"
cargo fmt --all -- --check

# Optional features (`serde`) are linted both off and on, and tested on.
step "cargo clippy (warnings are errors; default features, then all)"
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy --workspace --all-targets --all-features --locked -- -D warnings

step "cargo test (all features)"
cargo test --workspace --all-features --locked

step "scalable growth 1,000 -> 1e6 at its target FPR (release: slow in debug)"
cargo test --release --locked -p bloomlab-scalable --test integration -- \
    --ignored

step "bloomlab verify: every shipped experiment, run small, invariants held"
cargo build --release --locked -q -p bloomlab-runner
for experiment in experiments/*.toml; do
    echo "verify $experiment"
    "${CARGO_TARGET_DIR:-target}/release/bloomlab" verify -q "$experiment"
done

step "cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --all-features --locked

step "all checks passed"
