#!/bin/sh
# Counts every valid configuration of the flat GEMM space
# (spaces/flat/gemm.space) with python-constraint2 and with commute, in
# the same run on the same machine, and prints both counts and times.
# Run by hand from the repository's root: benches/flat_enumeration.sh [RUNS]
# It builds commute in release mode and installs python-constraint2 with
# pip in a virtual environment under target/.
set -eu
runs="${1:-5}"
cargo build --release --quiet
venv=target/flat-enumeration-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet python-constraint2
fi
"$venv/bin/pip" show python-constraint2 | grep -E '^(Name|Version)'
"$venv/bin/python" --version
"$venv/bin/python" benches/flat_enumeration.py target/release/commute "$runs"
