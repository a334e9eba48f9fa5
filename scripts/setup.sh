#!/usr/bin/env bash
# Install the simulation and synthesis toolchain that prnic's tests need, from Debian
# packages (and the SystemRDL compiler from PyPI), only when something is missing. Safe to run again: it does nothing when the
# tools are already present. `prnic generate` itself needs only Rust; this is for tests.
set -euo pipefail

need=()
command -v verilator >/dev/null 2>&1 || need+=(verilator)
command -v yosys     >/dev/null 2>&1 || need+=(yosys)
command -v iverilog  >/dev/null 2>&1 || need+=(iverilog)
# The vendor project scripts are checked in tclsh (gen/tests/project.rs).
command -v tclsh     >/dev/null 2>&1 || need+=(tcl)
# Verilator's FST writer links zlib.
[ -e /usr/include/zlib.h ] || need+=(zlib1g-dev)

# The SystemRDL compiler (PyPI) checks the generated SystemRDL file in the test suite.
if ! python3 -c "import systemrdl" >/dev/null 2>&1; then
  echo "setup: installing systemrdl-compiler (PyPI)" >&2
  python3 -m pip install -q --disable-pip-version-check systemrdl-compiler >/dev/null 2>&1 \
    || python3 -m pip install -q --disable-pip-version-check --break-system-packages systemrdl-compiler
fi

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${need[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
echo "setup: verilator $(verilator --version | awk '{print $2}'), $(yosys -V | awk '{print $1, $2}'), iverilog $(iverilog -V 2>/dev/null | head -1 | awk '{print $4}')" >&2
