#!/usr/bin/env bash
# The MSRV gate: the workspace's `rust-version` (Cargo.toml, inherited by every crate)
# must be a Rust that builds it. When the active rustc is that release, the rest of CI
# is the MSRV build and nothing more is needed; otherwise the workspace is checked with
# that toolchain (`cargo +<version> check`), which must be installed: rustup cannot
# fetch one on a machine without network access, so a missing one fails here with the
# field named rather than passing unchecked.
set -euo pipefail
cd "$(dirname "$0")/.."
msrv=$(sed -n 's/^rust-version = "\([0-9.]*\)"$/\1/p' Cargo.toml)
if [ -z "$msrv" ]; then
    echo "msrv: Cargo.toml [workspace.package] has no rust-version" >&2
    exit 2
fi
active=$(rustc --version | awk '{print $2}')
case "$active" in
"$msrv" | "$msrv".*)
    echo "msrv: rust-version $msrv is the active rustc ($active): CI builds with the MSRV"
    exit 0
    ;;
esac
tc=""
for t in "$msrv" "$msrv.0"; do
    if rustup run "$t" rustc --version >/dev/null 2>&1; then
        tc=$t
        break
    fi
done
if [ -z "$tc" ]; then
    echo "msrv: rust-version $msrv (Cargo.toml) is not the active rustc ($active) and no $msrv toolchain is installed" >&2
    exit 1
fi
echo "msrv: checking the workspace with rustc $(rustup run "$tc" rustc --version | awk '{print $2}') (rust-version $msrv; active $active)"
PRNIC_MODELS=sprayer CARGO_TARGET_DIR=target/msrv cargo "+$tc" check --locked --workspace --all-targets
