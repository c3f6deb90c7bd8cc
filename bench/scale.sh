#!/usr/bin/env bash
# Times every post-processing stage of gpuscope on training-shaped synthetic captures.
#   bench/scale.sh BUILD [SIZES] [--svg docs/images/scale.svg]
# SIZES: records per capture, comma-separated, with K/M suffixes (default 1M,3M,10M). Each size
# runs in its own process (build/bench/scale_bench), under nice; the rows go to
# BUILD/bench/scale.csv (rewritten), a markdown table per size to stderr, then the summary table
# (seconds and peak MiB per stage and size) to stdout and, with --svg, the log-log plot.
set -euo pipefail
build=${1:?usage: bench/scale.sh BUILD [SIZES] [--svg FILE]}
sizes=${2:-1M,3M,10M}
svg=""
if [[ ${3:-} == --svg ]]; then svg=${4:?--svg needs a file}; fi
here=$(cd "$(dirname "$0")" && pwd)
bench="$build/bench/scale_bench"
[[ -x $bench ]] || { echo "no $bench: cmake --build $build --target gpuscope_scale_bench" >&2; exit 2; }
csv="$build/bench/scale.csv"
rm -f "$csv"
for size in ${sizes//,/ }; do
  case $size in
    *K) records=$(( ${size%K} * 1000 )) ;;
    *M) records=$(( ${size%M} * 1000000 )) ;;
    *) records=$size ;;
  esac
  echo "== $size records" >&2
  nice "$bench" --records "$records" --csv "$csv" >&2
done
python3 "$here/scale_report.py" "$csv" ${svg:+--svg "$svg"}
