#!/usr/bin/env bash
# What tracing costs the program, side by side with torch.profiler, on CPUs pinned for the run.
#
#   bench/pytorch_overhead.sh BUILD_DIR [--op add|mm|storm] [--reps R] [--cpus LIST]
#                             [--ops N] [--blocks B] [--modes a,b,...] [--csv FILE]
#
# Workloads (--op):
#   add    samples/pytorch/tiny_ops.py: N x.add_(1) on 16 floats, one kernel each, PyTorch's
#          worst case. The loop is timed in B equal blocks after a warm-up; a run's value is the
#          median block's µs per op (one slow block does not move it).
#   mm     the same with 16x16 torch.mm, whose cuBLAS kernels launch through the driver API.
#   storm  BUILD_DIR/samples/launch_storm --launches N (default 1,000,000): its ns per launch.
# Modes, interleaved in every repetition with the order rotated:
#   untraced        the program alone
#   gpuscope        gpuscope profile (the default capture: the core API trace)
#   api_full        gpuscope profile --api full (every API call, CUPTI's runtime records)
#   api_lean        gpuscope profile --api lean (pure-query calls counted, not recorded)
#   pytorch_ops     gpuscope profile --pytorch=ops (every op named by the RecordFunction observer)
#   pytorch_nvtx    the same with the observer made unavailable (no compiler, empty cache): ops
#                   named through torch's emit_nvtx, the fallback
#   ops_full        gpuscope profile --pytorch=ops --api full
#   no_driver_launches  gpuscope profile --no-driver-launches
#   range_closed    gpuscope profile --capture-range cudaProfilerApi; the range never opens
#   torch_cuda      torch.profiler, CUDA activity only, in the program (add, mm)
#   torch_cpu_cuda  torch.profiler, CPU + CUDA activities, in the program (add, mm)
#   torch_cpu       torch.profiler, CPU activity only, in the program (torch 2.11 still traces
#                   CUDA in this mode: its trace holds the kernels and their launch calls)
#   gpuscope_torch_cpu  gpuscope profile with torch.profiler's CPU activity in the program: what
#                   gpuscope's default plus torch's own op records cost together (add, mm)
#   observer        the program with a RecordFunction observer of every op that keeps each op's
#                   name pointer and entry/exit times in a per-thread ring
#                   (bench/torch_observer_floor.cpp, built here against the torch that runs):
#                   the floor of op names taken from torch's observers instead of emit_nvtx
#   gpuscope_observer  gpuscope profile (default capture) with that observer in the program
#   floor:KINDS[:CALLBACKS]  the raw-CUPTI floor (libgpuscope_floor_inject.so) with only these
#                   activity kinds, '+'-separated (CONCURRENT_KERNEL+MEMCPY+MEMSET, RUNTIME, ...;
#                   "-" for none) and callbacks (runtime_launches+driver_launches): what each
#                   part of tracing costs (bench/floor_injector.cpp)
# --cpus: the CPUs every run is pinned to with taskset (default 4-7; "" for none). Unpinned, or on
# two CPUs, traced runs on the GPU hosts are bimodal (docs/performance.md).
# Prints a markdown table (median and minimum per mode, each against untraced's, and for the
# PyTorch loops the 25th percentile of every timed block of every run: the host switches between
# a fast and a slow state, and this follows the fast one); raw values go to the CSV (default
# BUILD_DIR/bench/pytorch_overhead.csv; its blocks column lists each run's block values). Exit 2 for bad arguments or a
# missing python3+torch+CUDA, 1 if a run gave no value.
set -euo pipefail
die() { echo "pytorch_overhead.sh: $*" >&2; exit 2; }
BUILD_DIR="" REPS=7 CSV="" OP=add ONLY="" CPUS=4-7 OPS="" BLOCKS=8
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) REPS=${2:?}; shift 2 ;;
    --csv) CSV=${2:?}; shift 2 ;;
    --modes) ONLY=${2:?}; shift 2 ;;
    --op) OP=${2:?}; shift 2 ;;
    --cpus) CPUS=${2?}; shift 2 ;;
    --ops) OPS=${2:?}; shift 2 ;;
    --blocks) BLOCKS=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) BUILD_DIR=$1; shift ;;
  esac
done
[ -n "$BUILD_DIR" ] && [ -x "$BUILD_DIR/gpuscope" ] || die "usage: pytorch_overhead.sh BUILD_DIR [options] (--help)"
[[ "$REPS" =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive integer"
[[ "$BLOCKS" =~ ^[1-9][0-9]*$ ]] || die "--blocks must be a positive integer"
[[ -z "$OPS" || "$OPS" =~ ^[1-9][0-9]*$ ]] || die "--ops must be a positive integer"
[[ " add mm storm " == *" $OP "* ]] || die "--op must be add, mm or storm"
PIN=()
if [ -n "$CPUS" ]; then
  command -v taskset >/dev/null || die "--cpus needs taskset"
  PIN=(taskset -c "$CPUS")
  "${PIN[@]}" true 2>/dev/null || die "cannot pin to CPUs $CPUS"
fi
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
G=$BUILD_DIR/gpuscope
FLOOR=$BUILD_DIR/libgpuscope_floor_inject.so
if [ "$OP" = storm ]; then
  STORM=$BUILD_DIR/samples/launch_storm
  [ -x "$STORM" ] || die "no $STORM (build the samples)"
  PROGRAM=("$STORM" --launches "${OPS:-1000000}")
else
  python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null || die "needs python3 with CUDA torch"
  TINY=$(cd "$(dirname "$0")/../samples/pytorch" && pwd)/tiny_ops.py
  PROGRAM=(python3 "$TINY" --op "$OP" --ops "${OPS:-40000}" --blocks "$BLOCKS")
fi
CSV=${CSV:-$BUILD_DIR/bench/pytorch_overhead.csv}
mkdir -p "$(dirname "$CSV")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
unset CUDA_INJECTION64_PATH GPUSCOPE_INJECT_CONFIG GPUSCOPE_FLOOR_KINDS GPUSCOPE_FLOOR_CALLBACKS

NAMED="untraced gpuscope api_full api_lean pytorch_ops pytorch_nvtx ops_full no_driver_launches range_closed torch_cuda torch_cpu_cuda"
NAMED+=" torch_cpu gpuscope_torch_cpu observer gpuscope_observer"
read -r -a MODES <<<"${ONLY//,/ }"
[ ${#MODES[@]} -gt 0 ] || MODES=(untraced gpuscope api_full pytorch_ops ops_full torch_cuda torch_cpu_cuda)
for m in "${MODES[@]}"; do
  case $m in
    floor:*) [ -f "$FLOOR" ] || die "mode $m needs $FLOOR" ;;
    torch_* | gpuscope_torch_* | *observer) [ "$OP" != storm ] || die "mode $m runs only with --op add or mm" ;;
    *) [[ " $NAMED " == *" $m "* ]] || die "unknown mode $m (modes: $NAMED floor:KINDS[:CALLBACKS])" ;;
  esac
done

OBSERVER=$TMP/torch_observer_floor.so
if [[ " ${MODES[*]} " == *observer* ]]; then
  TORCH_INCLUDE=$(python3 -c "import torch.utils.cpp_extension as c; print(c.include_paths()[0])")
  TORCH_LIB=$(python3 -c "import torch.utils.cpp_extension as c; print(c.library_paths()[0])")
  ABI=$(python3 -c "import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))")
  g++ -O2 -std=c++17 -shared -fPIC -D_GLIBCXX_USE_CXX11_ABI="$ABI" -I"$TORCH_INCLUDE" \
    "$(dirname "$0")/torch_observer_floor.cpp" -L"$TORCH_LIB" -lc10 -ltorch_cpu -Wl,-rpath,"$TORCH_LIB" \
    -o "$OBSERVER" || die "cannot build the observer against this torch"
fi

run_mode() {
  local profile=("$G" profile --no-report -f -o "$TMP/cap")
  case $1 in
    untraced) "${PIN[@]}" "${PROGRAM[@]}" ;;
    gpuscope) "${PIN[@]}" "${profile[@]}" -- "${PROGRAM[@]}" ;;
    api_lean) "${PIN[@]}" "${profile[@]}" --api lean -- "${PROGRAM[@]}" ;;
    api_full) "${PIN[@]}" "${profile[@]}" --api full -- "${PROGRAM[@]}" ;;
    pytorch_ops) "${PIN[@]}" "${profile[@]}" --pytorch=ops -- "${PROGRAM[@]}" ;;
    pytorch_nvtx) CXX=false GPUSCOPE_CACHE_DIR=$TMP/no_observer "${PIN[@]}" "${profile[@]}" --pytorch=ops -- "${PROGRAM[@]}" ;;
    ops_full) "${PIN[@]}" "${profile[@]}" --pytorch=ops --api full -- "${PROGRAM[@]}" ;;
    no_driver_launches) "${PIN[@]}" "${profile[@]}" --no-driver-launches -- "${PROGRAM[@]}" ;;
    range_closed) "${PIN[@]}" "${profile[@]}" --capture-range cudaProfilerApi -- "${PROGRAM[@]}" ;;
    torch_cuda) "${PIN[@]}" "${PROGRAM[@]}" --torch-profiler cuda ;;
    torch_cpu_cuda) "${PIN[@]}" "${PROGRAM[@]}" --torch-profiler cpu+cuda ;;
    torch_cpu) "${PIN[@]}" "${PROGRAM[@]}" --torch-profiler cpu ;;
    gpuscope_torch_cpu) "${PIN[@]}" "${profile[@]}" -- "${PROGRAM[@]}" --torch-profiler cpu ;;
    observer) "${PIN[@]}" "${PROGRAM[@]}" --op-observer "$OBSERVER" ;;
    gpuscope_observer) "${PIN[@]}" "${profile[@]}" -- "${PROGRAM[@]}" --op-observer "$OBSERVER" ;;
    floor:*)
      local kinds callbacks=""
      IFS=: read -r _ kinds callbacks <<<"$1"
      [ "$kinds" = - ] && kinds=""
      CUDA_INJECTION64_PATH=$FLOOR GPUSCOPE_FLOOR_KINDS=${kinds//+/,} GPUSCOPE_FLOOR_CALLBACKS=${callbacks//+/,} \
        "${PIN[@]}" "${PROGRAM[@]}" ;;
  esac 2>>"$TMP/stderr" | awk '/^us_per_op/ { value = $2 } /^block_us_per_op/ { $1 = ""; blocks = substr($0, 2) }
    /ns_per_launch=/ { for (i = 1; i <= NF; i++) if ($i ~ /^ns_per_launch=/) { sub(/^ns_per_launch=/, "", $i); value = $i } }
    END { if (value != "") print value "," blocks }'
}

failed=0
echo "mode,rep,value,blocks" >"$CSV"
for rep in $(seq 1 "$REPS"); do
  n=${#MODES[@]}
  for i in $(seq 0 $((n - 1))); do
    mode=${MODES[$(( (i + rep) % n ))]}
    value=$(run_mode "$mode" | head -1) || true
    if [ -z "$value" ]; then
      echo "pytorch_overhead.sh: $mode rep $rep gave no value (its stderr ends:)" >&2
      tail -3 "$TMP/stderr" >&2
      failed=1
      continue
    fi
    echo "$mode,$rep,$value" >>"$CSV"
    echo "rep $rep $mode ${value%%,*}" >&2
  done
done

unit="µs per op"; [ "$OP" = storm ] && unit="ns per launch"
card=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || true)
torch=$([ "$OP" = storm ] || python3 -c 'import torch; print(", torch " + torch.__version__)')
echo "### $card$torch, --op $OP (${PROGRAM[*]##*/}), $REPS repetitions, CPUs ${CPUS:-not pinned}"
echo
echo "| mode | median $unit | min | median ×untraced | min ×untraced | blocks p25 | p25 ×untraced | runs |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
awk -F, 'NR > 1 { if (!($1 in v)) order[++n] = $1; v[$1] = v[$1] " " $3; b[$1] = b[$1] " " $4 }
  function p25(list,   a, c, i, j, t) {
    c = split(list, a, " ")
    if (c == 0) return 0
    for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return a[int((c - 1) / 4) + 1]
  }
  function median(list,   a, c, i, j, t) {
    c = split(list, a, " ")
    for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
  }
  function least(list,   a, c, i, lo) {
    c = split(list, a, " "); lo = a[1]
    for (i = 2; i <= c; i++) if (a[i] + 0 < lo + 0) lo = a[i]
    return lo
  }
  END {
    base = ("untraced" in v) ? median(v["untraced"]) : 0
    base_min = ("untraced" in v) ? least(v["untraced"]) : 0
    base_p25 = ("untraced" in b) ? p25(b["untraced"]) : 0
    for (k = 1; k <= n; k++) { m = order[k]
      med = median(v[m]); lo = least(v[m]); q = p25(b[m])
      printf "| %s | %.2f | %.2f | %s | %s | %s | %s |%s |\n", m, med, lo,
        (base > 0 ? sprintf("%.2f", med / base) : ""), (base_min > 0 ? sprintf("%.2f", lo / base_min) : ""),
        (q > 0 ? sprintf("%.2f", q) : ""), (q > 0 && base_p25 > 0 ? sprintf("%.2f", q / base_p25) : ""), v[m] }
  }' "$CSV"
exit $failed
