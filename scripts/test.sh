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
    if [ "$(id -u)" = 0 ]; then SUDO=(); else SUDO=(sudo); fi
    # `env` inside sudo (which resets the environment), and a wait for
    # the dpkg lock, which a freshly booted machine's unattended upgrades
    # may hold for a few minutes.
    apt=(apt-get -o DPkg::Lock::Timeout=600)
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive "${apt[@]}" update -qq
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive "${apt[@]}" \
        install -y -qq redis-server
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
# Wherever cargo builds (CARGO_TARGET_DIR, a config's target-dir), as an
# absolute path: never a stale binary from another target directory.
target=$(cargo metadata --format-version 1 --no-deps --locked |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
[ -n "$target" ] || { echo "error: cargo metadata gave no target directory" >&2; exit 1; }
for experiment in experiments/*.toml; do
    echo "verify $experiment"
    "$target/release/bloomlab" verify -q "$experiment"
done

step "cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --all-features --locked

step "all checks passed"
