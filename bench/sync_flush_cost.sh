#!/usr/bin/env bash
# What the flush at synchronizations (src/capture/sync_flush.h) costs a program, on its worst
# case: samples/crash --mode none with --step-us 0 launches one small kernel and synchronizes
# after each, ~13 us a step, so every step ends with a synchronization the capture may flush at.
#
#   bench/sync_flush_cost.sh BUILD_DIR [--reps R] [--kernels N]
#
# Modes, interleaved in every repetition: the program untraced, and under gpuscope profile with
# --sync-flush-ms 60000 (one flush at the first synchronization: the cost of tracing alone), 10
# (the default), 1 and 0 (a flush after every synchronization). Prints a markdown table of the
# median elapsed_ms the sample reports (its own host clock around the loop) and the ratio to
# untraced. Exit 2 without a GPU build.
set -euo pipefail
die() { echo "sync_flush_cost.sh: $*" >&2; exit 2; }
BUILD_DIR="" REPS=5 KERNELS=20000
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) REPS=${2:?}; shift 2 ;;
    --kernels) KERNELS=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) BUILD_DIR=$1; shift ;;
  esac
done
[ -n "$BUILD_DIR" ] && [ -x "$BUILD_DIR/gpuscope" ] && [ -x "$BUILD_DIR/samples/crash" ] ||
  die "usage: sync_flush_cost.sh BUILD_DIR [--reps R] [--kernels N] (a GPU build with samples)"
[[ "$REPS" =~ ^[1-9][0-9]*$ && "$KERNELS" =~ ^[1-9][0-9]*$ ]] || die "--reps and --kernels must be positive integers"
G=$BUILD_DIR/gpuscope
SAMPLE=("$BUILD_DIR/samples/crash" --mode none --kernels "$KERNELS" --step-us 0)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
MODES=(untraced 60000 10 1 0)

elapsed() { sed -n 's/.*elapsed_ms=\([0-9.]*\).*/\1/p' "$1" | tail -1; }
for rep in $(seq 1 "$REPS"); do
  for mode in "${MODES[@]}"; do
    out=$TMP/$mode.$rep.out
    if [ "$mode" = untraced ]; then
      "${SAMPLE[@]}" >"$out" 2>/dev/null
    else
      "$G" profile --no-report --sync-flush-ms "$mode" -o "$TMP/cap" -f -- "${SAMPLE[@]}" >"$out" 2>/dev/null
    fi
    elapsed "$out" >>"$TMP/$mode.ms"
  done
done

median() { sort -g "$1" | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
base=$(median "$TMP/untraced.ms")
echo "| mode | median elapsed (ms) | us per step | x untraced |"
echo "| --- | ---: | ---: | ---: |"
for mode in "${MODES[@]}"; do
  m=$(median "$TMP/$mode.ms")
  label=$mode; [ "$mode" = untraced ] || label="--sync-flush-ms $mode"
  awk -v l="$label" -v m="$m" -v b="$base" -v k="$KERNELS" 'BEGIN {printf "| %s | %.1f | %.2f | %.2f |\n", l, m, m * 1000 / k, m / b}'
done
echo "($REPS repetitions, $KERNELS kernels each, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
