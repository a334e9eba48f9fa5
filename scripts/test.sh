#!/usr/bin/env bash
# The README's test command: install the toolchain if missing, then run the whole test
# suite (Rust unit tests, golden models, Verilator testbenches, two-simulator agreement,
# lint/synthesis gates, generated-file freshness, CLI behaviour).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo test --workspace --locked "$@"
