#!/usr/bin/env bash
# gpuscope vs Nsight Compute on the same kernels, and what metric collection costs.
#
#   tests/gpu/check_metrics_vs_ncu.sh BUILD_DIR [OUT_DIR]
#
# 1. Agreement: each sample is profiled by gpuscope (--metrics sol,memory,stalls) and by
#    `ncu --metrics <the same names>`; compare_metrics.py compares the medians per kernel and
#    metric (1 percentage point for percentages, 2 % relative otherwise). ncu runs with
#    --cache-control none --clock-control none: gpuscope measures the program as it runs (no
#    cache flush between replay passes, no clock locking), and ncu's defaults would measure
#    a different thing (base clocks change durations; flushed caches change hit rates).
# 2. Bit-identical results: each sample's RESULT line (with its output hashes) is the same
#    with and without `--metrics full`.
# 3. Cost: wall time of `gpuscope profile --metrics sol` vs `ncu --section SpeedOfLight` on
#    bsr_spmm, and of the plain program (docs/performance.md).
# Needs ncu on PATH (skips without it) and python3. Prints the tables docs/metrics.md pastes.
set -u
build=$(cd "${1:?usage: check_metrics_vs_ncu.sh BUILD_DIR [OUT_DIR]}" && pwd)
out=${2:-$(mktemp -d)}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_gpu_build "$build"
if ! command -v ncu >/dev/null 2>&1; then echo "SKIP: ncu not on PATH"; exit 77; fi
gpuscope="$build/gpuscope"
samples="$build/samples"
echo "GPU: $(gpu_name); $(ncu --version | tail -1)"

# The metric names of the compared sets, from gpuscope's own table.
names=$("$gpuscope" metrics --sets --format json | python3 -c '
import json, sys
sets = json.load(sys.stdin)["sets"]
seen = []
for s in sets:
    if s["name"] in ("sol", "memory", "stalls"):
        for m in s["metrics"]:
            if m["name"] not in seen: seen.append(m["name"])
print(",".join(seen))')

# ncu's Python module reads its reports at full precision (the CSV prints 2 decimals).
ncu_bin=$(readlink -f "$(command -v ncu)")
NCU_PYTHON=$(dirname "$(find "$(dirname "$ncu_bin")" "$(dirname "$ncu_bin")/.." /usr/local/cuda*/ /opt/nvidia \
                 -name ncu_report.py -print -quit 2>/dev/null)")
export NCU_PYTHON
[ -f "$NCU_PYTHON/ncu_report.py" ] || { echo "SKIP: ncu_report.py (ncu's Python module) not found"; exit 77; }

failures=0
compare() {  # compare LABEL CMD...: gpuscope vs ncu, and ncu vs a second ncu run (its own spread)
  local label=$1; shift
  "$gpuscope" profile --no-report -f -o "$out/$label.gpuscope" --metrics sol,memory,stalls -- "$@" > "$out/$label.gpuscope.log" 2>&1
  "$gpuscope" query "$out/$label.gpuscope" "SELECT kernel, metric, value FROM kernel_metrics_named" > "$out/$label.tsv"
  for run in a b; do
    ncu -f -o "$out/$label.$run" --cache-control none --clock-control none --metrics "$names" "$@" \
      > "$out/$label.$run.ncu.log" 2>&1
  done
  python3 "$here/compare_metrics.py" "$out/$label.tsv" "$out/$label.a.ncu-rep" "$label" "$names" || failures=$((failures + 1))
  python3 "$here/compare_metrics.py" "$out/$label.b.ncu-rep" "$out/$label.a.ncu-rep" "$label, ncu run 2 vs 1" "$names" \
    > "$out/$label.ncu_vs_ncu.md"
  grep -E "OUTSIDE|MISSING|SUMMARY" "$out/$label.ncu_vs_ncu.md"
}

echo "| sample | kernel | metric | ncu | gpuscope | difference | verdict |"
echo "|---|---|---|---|---|---|---|"
compare metrics_kernels "$samples/metrics_kernels" --iters 5
compare bsr_spmm "$samples/bsr_spmm" --m 4096 --n 4096 --k 4096 --iters 3

echo
echo "Bit-identical results with and without --metrics full:"
identical() {  # identical LABEL CMD...
  local label=$1; shift
  local plain profiled
  plain=$("$@" 2>/dev/null | grep '^RESULT' | sed 's/ \(wall_ms\|loop_ms\|kernel_ms_median\|tflops_median\|iter_ms_[a-z_]*\)=[0-9.]*//g')
  profiled=$("$gpuscope" profile --no-report -f -o "$out/$label.full.gpuscope" --metrics full -- "$@" 2>/dev/null |
             grep '^RESULT' | sed 's/ \(wall_ms\|loop_ms\|kernel_ms_median\|tflops_median\|iter_ms_[a-z_]*\)=[0-9.]*//g')
  if [ -n "$plain" ] && [ "$plain" = "$profiled" ]; then
    echo "  $label: identical ($plain)"
  else
    echo "  $label: DIFFERENT"; echo "    plain:    $plain"; echo "    profiled: $profiled"
    failures=$((failures + 1))
  fi
}
identical metrics_kernels "$samples/metrics_kernels" --iters 2
identical bsr_spmm "$samples/bsr_spmm" --m 2048 --n 2048 --k 2048 --iters 2

echo
echo "Cost on bsr_spmm (wall seconds, median of 3):"
wall() {  # wall CMD...: median wall seconds of 3 runs
  local TIMEFORMAT=%R
  for i in 1 2 3; do { time "$@" > /dev/null 2>&1; } 2>&1; done | sort -n | sed -n 2p
}
bsr=("$samples/bsr_spmm" --iters 5)
plain_s=$(wall "${bsr[@]}")
ours_s=$(wall "$gpuscope" profile --no-report -f -o "$out/cost.gpuscope" --metrics sol -- "${bsr[@]}")
ncu_s=$(wall ncu --section SpeedOfLight "${bsr[@]}")
echo "  plain program           $plain_s"
echo "  gpuscope --metrics sol  $ours_s"
echo "  ncu --section SOL       $ncu_s"
python3 -c "
p, g, n = $plain_s, $ours_s, $ncu_s
print(f'  wall ratio gpuscope/ncu {g / n:.3f}; added time ratio (minus the plain run) {(g - p) / (n - p):.3f}')
print('  target (wall ratio <= 1/3):', 'met' if g / n <= 1 / 3 else 'MISSED')"

echo
[ "$failures" -eq 0 ] && echo "ALL OK" || echo "FAILURES: $failures"
[ "$failures" -eq 0 ]
