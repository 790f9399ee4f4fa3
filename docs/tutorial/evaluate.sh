#!/bin/sh
# Evaluates one leaf of tune.space: compiles kernel.c with the leaf's
# tile sizes and unroll factors (commute passes them as COMMUTE_TILE_I,
# COMMUTE_UNROLL_J, ...) and prints the seconds the run took. A failed
# compile or run exits non-zero, which the search records as a failure.
set -eu
here=$(dirname "$0")
binary=$(mktemp "${TMPDIR:-/tmp}/tutorial-kernel.XXXXXX")
trap 'rm -f "$binary"' EXIT
${CC:-cc} -O2 -o "$binary" "$here/kernel.c" \
    -DTILE_I="$COMMUTE_TILE_I" -DTILE_J="$COMMUTE_TILE_J" \
    -DUNROLL_I="$COMMUTE_UNROLL_I" -DUNROLL_J="$COMMUTE_UNROLL_J"
"$binary"
