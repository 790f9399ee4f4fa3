#!/usr/bin/env bash
# Tunes every bundled example with `commute tune` and times, in the same
# run and on the same machine, the baselines a user compares against:
# gcc -O3, clang-22 -O3, clang-22 -O3 with Polly, and Polly's parallel mode
# with the same thread count as the tuned code. Writes a Markdown table.
#
#   benches/tune-examples.sh                 # 200 evaluations each
#   BUDGET=50 EXAMPLES="gemm atax" benches/tune-examples.sh
#   MODE=large benches/tune-examples.sh      # sizes of 0.3 s and more, 10 minutes each
#
# MODE=large builds every example at sizes where clang-22 -O3 takes at
# least 0.3 s on this project's machine (see large_sizes below, measured
# there), tunes each under a time budget (TIME_BUDGET seconds, default
# 600) instead of an evaluation budget, and writes where each search's
# time went (compiling, checking, timed runs, cut-offs, timeouts,
# failures) after the table.
#
# Settings (environment): MODE (default, or large), BUDGET (evaluations
# per example, default 200), TIME_BUDGET (seconds per example in large
# mode, default 600),
# THREADS (default 2), RUNS (timed runs per baseline, default 5),
# ROUNDS (alternating rounds in which the baselines and the tuned program
# are timed again side by side after each search, default 3),
# EXAMPLES (names under examples/, default all), CFLAGS (default
# "-O3 -march=native"), SIZES (extra -D flags for every build, default
# none: the examples' own sizes), OUT (default bench-results/tune.md),
# TUNE_OPTIONS (extra options for every `commute tune`, such as
# `--no-blocked-start`, default none),
# KEEP (set to 1 to keep the work directory with every candidate's build,
# several GB; by default only the logs and tuned sources are kept, next
# to OUT).
# Needs gcc, clang-22 (see .ci/install-clang) and a release build.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=${MODE:-default}
BUDGET=${BUDGET:-200}
TIME_BUDGET=${TIME_BUDGET:-600}
THREADS=${THREADS:-2}
RUNS=${RUNS:-5}
ROUNDS=${ROUNDS:-3}
CFLAGS=${CFLAGS:--O3 -march=native}
SIZES=${SIZES:-}
TUNE_OPTIONS=${TUNE_OPTIONS:-}
OUT=${OUT:-bench-results/tune.md}
EXAMPLES=${EXAMPLES:-$(ls examples/*.c | xargs -n1 basename | sed 's/\.c$//' | tr '\n' ' ')}
WORK=$(mktemp -d /tmp/commute-tune-bench.XXXXXX)
mkdir -p "$(dirname "$OUT")"

command -v clang-22 >/dev/null || { echo "clang-22 not found: run .ci/install-clang" >&2; exit 1; }
cargo build --release --locked --quiet
# A copy: rebuilding the workspace during the run must not change it.
COMMUTE=$WORK/commute
cp target/release/commute "$COMMUTE"

# -D flags that make an example take at least 0.3 s with clang-22 -O3
# -march=native: measured on 2026-11-24 on this project's 2-core machine
# (2mm 0.46 s, abt 1.47, atax 0.33 (its matrix takes 2 GB), covariance
# 0.40, gemm 0.37, jacobi-2d 0.44, lu 0.47, seidel-2d 0.39, syrk 0.43);
# heat-3d and fdtd-2d on 2026-11-27 (about 0.45 and 0.39 s).
large_sizes() {
  case $1 in
    2mm) echo "-DNI=540 -DNJ=570 -DNK=600 -DNL=640" ;;
    atax) echo "-DM=16000 -DN=16000" ;;
    covariance) echo "-DM=720 -DN=800" ;;
    jacobi-2d) echo "-DTSTEPS=400 -DN=1000" ;;
    lu) echo "-DN=1100" ;;
    seidel-2d) echo "-DTSTEPS=60 -DN=1000" ;;
    heat-3d) echo "-DTSTEPS=20 -DN=200" ;;
    fdtd-2d) echo "-DTSTEPS=150 -DNX=1000 -DNY=1200" ;;
    syrk) echo "-DN=900 -DM=800" ;;
    *) echo "" ;; # abt, contraction and gemm: their own sizes
  esac
}

# Options an example needs beside its sizes: the nest of a file with
# several and no `#pragma scop` region.
example_options() {
  case $1 in
    matmul-pointers) echo "--nest matmul" ;;
    *) echo "" ;;
  esac
}

# OpenMP threads bound to places, as commute binds its runs' (see
# HarnessConfig::run_environment), unless the environment says otherwise:
# unbound, 2-thread runs on this 2-core machine were often as slow as
# both threads on one CPU.
if [ -z "${OMP_PROC_BIND:-}" ] && [ -z "${OMP_PLACES:-}" ]; then
  export OMP_PROC_BIND=spread
fi

# The minimum over RUNS timed runs after a warm-up, of the time the
# program prints (-DPOLYBENCH_TIME).
time_binary() {
  local binary=$1 best="" t
  OMP_NUM_THREADS=$THREADS "$binary" >/dev/null 2>&1
  for _ in $(seq "$RUNS"); do
    t=$(OMP_NUM_THREADS=$THREADS "$binary" 2>/dev/null | tail -n1)
    best=$(awk -v a="$t" -v b="$best" 'BEGIN { if (b == "" || a + 0 < b + 0) print a; else print b }')
  done
  echo "$best"
}

# faster A B: the smaller of two times, either of which may be "failed".
faster() {
  awk -v a="$1" -v b="$2" 'BEGIN {
    if (a == "failed" || a == "") print b; else if (b == "failed" || a + 0 < b + 0) print a; else print b }'
}

# build NAME CC FLAGS...: builds examples/NAME.c, prints its time.
build_and_time() {
  local name=$1 label=$2 cc=$3
  shift 3
  local binary="$WORK/$name-$label"
  # shellcheck disable=SC2086
  # Without the dump, as commute times candidates: the examples keep their
  # kernel alive without it (harness.h).
  if ! "$cc" $CFLAGS $SIZES $(example_sizes "$name") "$@" -DPOLYBENCH_TIME -Iexamples "examples/$name.c" -o "$binary" -lm 2>"$binary.log"; then
    echo "failed"
    return
  fi
  time_binary "$binary"
}

# The example's own sizes, or the large ones in large mode.
example_sizes() {
  if [ "$MODE" = large ]; then large_sizes "$1"; fi
}

if [ "$MODE" = large ]; then
  limit=(--time-budget "$TIME_BUDGET")
  budget_label="$TIME_BUDGET s each"
else
  limit=(--budget "$BUDGET")
  budget_label="$BUDGET evaluations"
fi
BREAKDOWN="$WORK/breakdown.md"
: >"$BREAKDOWN"

{
  echo "| example | gcc -O3 | clang-22 -O3 | Polly | Polly parallel ($THREADS threads) | commute tune ($THREADS threads, $budget_label) | tuned vs best baseline | evaluations | the search's own figure |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
} >"$OUT"

for name in $EXAMPLES; do
  echo "== $name" >&2
  gcc_t=$(build_and_time "$name" gcc gcc -fopenmp)
  clang_t=$(build_and_time "$name" clang clang-22 -fopenmp)
  polly_t=$(build_and_time "$name" polly clang-22 -fopenmp -mllvm -polly)
  pollyp_t=$(build_and_time "$name" polly-parallel clang-22 -fopenmp -mllvm -polly -mllvm -polly-parallel)
  log="$WORK/$name-tune.log"
  # shellcheck disable=SC2086
  "$COMMUTE" tune "examples/$name.c" $(example_options "$name") $TUNE_OPTIONS "${limit[@]}" --threads "$THREADS" --cc clang-22 \
    --work-dir "$WORK/$name" -o "$WORK/$name.tuned.c" -- $CFLAGS $SIZES $(example_sizes "$name") >"$log" 2>"$log.err" || true
  tuned_t=$(sed -n 's/^best: \([0-9.]*\) s.*/\1/p' "$log")
  evaluations=$(sed -n 's/.* after \([0-9]*\) evaluations.*/\1/p' "$log" | head -n1)
  {
    echo
    echo "$name ($(example_sizes "$name" | sed 's/^$/its own sizes/')):"
    echo '```'
    grep -E '^lower bound: [0-9]+ of ' "$log" || echo "lower bound: nothing compared"
    sed -n "/^where the search's/,/^  other/p" "$log"
    echo '```'
  } >>"$BREAKDOWN"
  tuned_t=${tuned_t:-failed}
  search_t=$tuned_t
  # Side by side: this machine's speed drifts within minutes (a 2-thread
  # run by 2x or more), so the baselines, timed before a search of
  # minutes, and the tuned program it ends with are timed again in
  # alternating rounds, and each keeps its fastest round: the ratio
  # compares times taken in the same minutes.
  built=$(sed -n 's/^built with: //p' "$log" | sed 's/ -lm$//')
  # shellcheck disable=SC2086
  if [ "$tuned_t" != failed ] && [ -n "$built" ] &&
    $built -Iexamples "$WORK/$name.tuned.c" -o "$WORK/$name-tuned" -lm 2>"$WORK/$name-tuned.log"; then
    gcc_t=failed clang_t=failed polly_t=failed pollyp_t=failed tuned_t=failed
    for _ in $(seq "$ROUNDS"); do
      for label in gcc clang polly polly-parallel tuned; do
        [ -x "$WORK/$name-$label" ] || continue
        t=$(time_binary "$WORK/$name-$label")
        case $label in
          gcc) gcc_t=$(faster "$t" "$gcc_t") ;;
          clang) clang_t=$(faster "$t" "$clang_t") ;;
          polly) polly_t=$(faster "$t" "$polly_t") ;;
          polly-parallel) pollyp_t=$(faster "$t" "$pollyp_t") ;;
          tuned) tuned_t=$(faster "$t" "$tuned_t") ;;
        esac
      done
    done
  fi
  ratio=$(awk -v t="$tuned_t" -v a="$gcc_t" -v b="$clang_t" -v c="$polly_t" -v d="$pollyp_t" 'BEGIN {
    best = ""; n = split(a " " b " " c " " d, v, " ");
    for (i = 1; i <= n; i++) if (v[i] != "failed" && (best == "" || v[i] + 0 < best + 0)) best = v[i];
    if (t == "failed" || best == "") print "-"; else printf "%.2fx\n", best / t }')
  echo "| $name | $gcc_t | $clang_t | $polly_t | $pollyp_t | $tuned_t | $ratio | ${evaluations:-?} | $search_t |" | tee -a "$OUT" >&2
  cp "$log" "$(dirname "$OUT")/$name-tune.txt"
  if [ -f "$WORK/$name.tuned.c" ]; then cp "$WORK/$name.tuned.c" "$(dirname "$OUT")/"; fi
done

{
  echo
  echo "Seconds: the fastest of $ROUNDS alternating rounds run after each search, the baselines'"
  echo "and the tuned program's (each round the minimum of $RUNS runs after a warm-up). The last"
  echo "column is the search's own figure for its best (its verified best, re-measured against the"
  echo "incumbent during the search). CFLAGS: $CFLAGS $SIZES (mode: $MODE). Machine: $(nproc) cores,"
  echo "$(gcc --version | head -n1), $(clang-22 --version | head -n1). $(date -u +%Y-%m-%d)."
  echo
  echo "Where each search's time went:"
  cat "$BREAKDOWN"
} >>"$OUT"
if [ "${KEEP:-0}" = 1 ]; then
  echo "table: $OUT (work files in $WORK)" >&2
else
  rm -rf "$WORK"
  echo "table: $OUT (logs and tuned sources next to it)" >&2
fi
