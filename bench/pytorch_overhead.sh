#!/usr/bin/env bash
# Tracing overhead on PyTorch's worst case, the tiny-op loop of issue 14 (samples/pytorch/
# tiny_ops.py: 20,000 x.add_(1) on 16 floats, one kernel each; it prints its own us_per_op,
# timed on the host clock around the loop after a warm-up).
#
#   bench/pytorch_overhead.sh BUILD_DIR [--reps R] [--csv FILE] [--modes a,b,...] [--op add|mm]
#
# --op mm: 16x16 matrix products instead of adds, whose cuBLAS kernels launch through the driver
# API (what the driver-launch records cost). --modes: a subset of the modes below.
# Modes, interleaved in every repetition (order rotated):
#   untraced       python3 tiny_ops.py
#   gpuscope       gpuscope profile (every API call recorded, the default)
#   no_driver_launches  gpuscope profile --no-driver-launches (runtime API only: library kernels
#                  launched through the driver API lose their launch call)
#   api_lean       gpuscope profile --api lean (pure-query calls counted, not recorded)
#   pytorch_ops    gpuscope profile --pytorch=ops (every op named, through torch's emit_nvtx)
#   range_closed   gpuscope profile --capture-range cudaProfilerApi; the program never opens the
#                  range: the cost of being ready to record
#   torch_cuda     torch.profiler, CUDA activity only, in the program
#   torch_cpu_cuda torch.profiler, CPU + CUDA activities, in the program
# Prints a markdown table of medians and ratios to untraced; raw numbers go to the CSV
# (default BUILD_DIR/bench/pytorch_overhead.csv). Exit 2 without python3+torch+CUDA.
set -euo pipefail
die() { echo "pytorch_overhead.sh: $*" >&2; exit 2; }
BUILD_DIR="" REPS=7 CSV="" OP=add ONLY=""
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) REPS=${2:?}; shift 2 ;;
    --csv) CSV=${2:?}; shift 2 ;;
    --modes) ONLY=${2:?}; shift 2 ;;
    --op) OP=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) BUILD_DIR=$1; shift ;;
  esac
done
[ -n "$BUILD_DIR" ] && [ -x "$BUILD_DIR/gpuscope" ] || die "usage: pytorch_overhead.sh BUILD_DIR [--reps R] [--csv FILE]"
[[ "$REPS" =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive integer"
python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null || die "needs python3 with CUDA torch"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
G=$BUILD_DIR/gpuscope
TINY=$(cd "$(dirname "$0")/../samples/pytorch" && pwd)/tiny_ops.py
CSV=${CSV:-$BUILD_DIR/bench/pytorch_overhead.csv}
mkdir -p "$(dirname "$CSV")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
unset CUDA_INJECTION64_PATH GPUSCOPE_INJECT_CONFIG

ALL_MODES="untraced gpuscope no_driver_launches api_lean pytorch_ops range_closed torch_cuda torch_cpu_cuda"
read -r -a MODES <<<"${ONLY//,/ }"
[ ${#MODES[@]} -gt 0 ] || read -r -a MODES <<<"$ALL_MODES"
for m in "${MODES[@]}"; do [[ " $ALL_MODES " == *" $m "* ]] || die "unknown mode $m (modes: $ALL_MODES)"; done
run_mode() {
  local profile=("$G" profile --no-report -f -o "$TMP/cap")
  local tiny=(python3 "$TINY" --op "$OP")
  case $1 in
    untraced) "${tiny[@]}" ;;
    gpuscope) "${profile[@]}" -- "${tiny[@]}" ;;
    no_driver_launches) "${profile[@]}" --no-driver-launches -- "${tiny[@]}" ;;
    api_lean) "${profile[@]}" --api lean -- "${tiny[@]}" ;;
    pytorch_ops) "${profile[@]}" --pytorch=ops -- "${tiny[@]}" ;;
    range_closed) "${profile[@]}" --capture-range cudaProfilerApi -- "${tiny[@]}" ;;
    torch_cuda) "${tiny[@]}" --torch-profiler cuda ;;
    torch_cpu_cuda) "${tiny[@]}" --torch-profiler cpu+cuda ;;
  esac 2>>"$TMP/stderr" | awk '/^us_per_op/ {print $2}'
}

echo "mode,rep,us_per_op" >"$CSV"
for rep in $(seq 1 "$REPS"); do
  n=${#MODES[@]}
  for i in $(seq 0 $((n - 1))); do
    mode=${MODES[$(( (i + rep) % n ))]}
    value=$(run_mode "$mode")
    [ -n "$value" ] || { echo "pytorch_overhead.sh: $mode rep $rep failed (see stderr below)" >&2; tail -3 "$TMP/stderr" >&2; continue; }
    echo "$mode,$rep,$value" >>"$CSV"
    echo "rep $rep $mode $value" >&2
  done
done

echo "### $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), torch $(python3 -c 'import torch; print(torch.__version__)'), --op $OP, $REPS repetitions"
echo
echo "| mode | median µs per op | min | runs (µs) | ratio to untraced |"
echo "|---|---:|---:|---|---:|"
awk -F, 'NR > 1 { v[$1] = v[$1] " " $3 }
  function median(list,   a, n, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    n = split(modes, order, " ")
    base = median(v["untraced"])
    for (k = 1; k <= n; k++) { m = order[k]; if (!(m in v)) continue
      med = median(v[m]); c = split(v[m], r, " "); lo = r[1]; for (i = 2; i <= c; i++) if (r[i] + 0 < lo + 0) lo = r[i]
      printf "| %s | %.2f | %.2f |%s | %.2f |\n", m, med, lo, v[m], (base > 0 ? med / base : 0) }
  }' modes="$ALL_MODES" "$CSV"
