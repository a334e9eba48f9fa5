#!/usr/bin/env bash
# Rewrite the generated files committed for the default config (generated/)
# after a change to the config, the generator or an rtl block. Commit the result.
set -euo pipefail
cd "$(dirname "$0")/.."
PRNIC_BLESS=1 cargo test -q -p prnic-gen --test fresh
git status --short generated docs/regmap.md verif/src/regs.rs
