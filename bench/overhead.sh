#!/usr/bin/env bash
# Tracing overhead of gpuscope, measured against running untraced and against the "floor": a
# minimal raw-CUPTI injector that enables the same activity kinds and discards the buffers.
#
#   bench/overhead.sh BUILD_DIR [--reps R] [--csv FILE]
#
# Workloads (built by cmake/samples.cmake):
#   launch_storm --launches 200000               its own ns_per_launch (host clock, loop + sync)
#   bsr_spmm --persistent --pinned --iters 20    its steady-state iteration time (first excluded)
# Modes, interleaved in every repetition (order rotated so none always runs first):
#   untraced   the command as is
#   gpuscope   BUILD_DIR/gpuscope profile -o TMP -- CMD
#   floor      CUDA_INJECTION64_PATH=BUILD_DIR/libgpuscope_floor_inject.so CMD
# Writes a markdown report to stdout, progress to stderr, raw numbers to the CSV
# (default BUILD_DIR/bench/overhead.csv). Exit 0 when every run succeeded, 1 if any failed
# (the table still shows the rest), 2 for bad arguments or missing binaries. Missing targets are
# reported, not failures: this is a measurement, not a timed test. bash + awk only.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "overhead.sh: $*" >&2; exit 2; }

BUILD_DIR="" REPS=5 CSV=""
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) [ $# -ge 2 ] || die "--reps needs a value"; REPS=$2; shift 2 ;;
    --reps=*) REPS=${1#*=}; shift ;;
    --csv) [ $# -ge 2 ] || die "--csv needs a value"; CSV=$2; shift 2 ;;
    --csv=*) CSV=${1#*=}; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$BUILD_DIR" ] || die "one BUILD_DIR only"; BUILD_DIR=$1; shift ;;
  esac
done
[ -n "$BUILD_DIR" ] || { usage >&2; exit 2; }
[[ "$REPS" =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive integer"
[ -d "$BUILD_DIR" ] || die "no such build directory: $BUILD_DIR"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
SRC_DIR=$(cd "$(dirname "$0")/.." && pwd)

GPUSCOPE=$BUILD_DIR/gpuscope
FLOOR_LIB=$BUILD_DIR/libgpuscope_floor_inject.so
STORM=$BUILD_DIR/samples/launch_storm
SPMM=$BUILD_DIR/samples/bsr_spmm
for exe in "$STORM" "$SPMM"; do
  [ -x "$exe" ] || die "missing $exe (build the samples: ninja -C $BUILD_DIR samples)"
done

# The untraced baseline must really be untraced.
if [ -n "${CUDA_INJECTION64_PATH:-}" ]; then
  echo "overhead.sh: ignoring CUDA_INJECTION64_PATH from the environment" >&2
fi
unset CUDA_INJECTION64_PATH GPUSCOPE_INJECT_CONFIG

MODES=(untraced)
if [ -x "$GPUSCOPE" ]; then MODES+=(gpuscope); else echo "overhead.sh: no $GPUSCOPE; gpuscope mode skipped" >&2; fi
if [ -f "$FLOOR_LIB" ]; then MODES+=(floor); else echo "overhead.sh: no $FLOOR_LIB; floor mode skipped" >&2; fi

WORKLOADS=(launch_storm bsr_spmm)
workload_cmd() {  # fills CMD for workload $1
  case "$1" in
    launch_storm) CMD=("$STORM" --launches 200000) ;;
    bsr_spmm) CMD=("$SPMM" --persistent --pinned --iters 20) ;;
  esac
}
workload_metric() {  # the RESULT key each workload reports its own timing under
  case "$1" in
    launch_storm) echo ns_per_launch ;;
    bsr_spmm) echo iter_ms_steady_mean ;;
  esac
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
[ -n "$CSV" ] || CSV=$BUILD_DIR/bench/overhead.csv
mkdir -p "$(dirname "$CSV")"
echo "rep,workload,mode,rc,metric,value,wall_ms,note" >"$CSV"

# Microseconds since the epoch; bash 5 has it without forking (strip the locale's decimal point).
now_us() {
  if [ -n "${EPOCHREALTIME:-}" ]; then echo "${EPOCHREALTIME//[!0-9]/}"
  else echo $(( $(date +%s%N) / 1000 )); fi
}

FAILED=0
# A run that hangs (a tracer deadlock, a stuck GPU) must not stall the whole benchmark.
TIMEOUT=()
if command -v timeout >/dev/null; then TIMEOUT=(timeout --kill-after=10 600); fi
# run_one WORKLOAD MODE REP: runs once, appends a CSV row (REP "warmup" is not recorded).
run_one() {
  local workload=$1 mode=$2 rep=$3 note="" rc=0
  local log=$WORK/$workload.$mode.$rep.log capture=$WORK/capture_${workload}_$rep
  workload_cmd "$workload"
  case "$mode" in
    untraced) ;;
    gpuscope) CMD=("$GPUSCOPE" profile -o "$capture" -- "${CMD[@]}") ;;
    floor) CMD=(env "CUDA_INJECTION64_PATH=$FLOOR_LIB" "GPUSCOPE_INJECT_CONFIG=spool=$WORK/floor.spool" "${CMD[@]}") ;;
  esac
  local t0 t1
  t0=$(now_us)
  if "${TIMEOUT[@]}" "${CMD[@]}" >"$log" 2>&1 </dev/null; then rc=0; else rc=$?; fi
  t1=$(now_us)
  local wall_ms value key
  wall_ms=$(awk -v us=$((t1 - t0)) 'BEGIN { printf "%.3f", us / 1000 }')
  key=$(workload_metric "$workload")
  value=$(awk -v key="$key" '$1 == "RESULT" {
            for (i = 2; i <= NF; i++) { n = index($i, "="); if (substr($i, 1, n - 1) == key) v = substr($i, n + 1) }
          } END { print v }' "$log")
  # A gpuscope run that captured nothing (fail-open) would look like zero overhead: flag it.
  if [ "$mode" = gpuscope ] && [ $rc -eq 0 ] && ! compgen -G "$capture*" >/dev/null; then
    note=no_capture_file
  fi
  [ -n "$value" ] || note="${note:+$note;}no_RESULT_line"
  if [ "$rep" = warmup ]; then :
  else
    if [ $rc -ne 0 ] || [ -n "$note" ]; then
      FAILED=$((FAILED + 1))
      { echo "overhead.sh: $workload/$mode rep $rep: exit $rc ${note}; last lines of its output:"
        tail -n 5 "$log"; } >&2
      value=""  # a failed run contributes no number
    fi
    echo "$rep,$workload,$mode,$rc,$key,$value,$wall_ms,$note" >>"$CSV"
  fi
  if [ "$workload/$mode/$rep" = launch_storm/untraced/warmup ]; then cp "$log" "$WORK/device.log"; fi
  rm -rf "$capture"* "$WORK/floor.spool"*
  echo "  $workload $mode rep $rep: $key=${value:-n/a} wall_ms=$wall_ms${note:+ ($note)}" >&2
}

echo "overhead.sh: modes: ${MODES[*]}; $REPS repetitions; CSV: $CSV" >&2
for workload in "${WORKLOADS[@]}"; do  # warm-up: caches, clocks, first-load costs
  for mode in "${MODES[@]}"; do run_one "$workload" "$mode" warmup; done
done
for ((rep = 1; rep <= REPS; rep++)); do
  for workload in "${WORKLOADS[@]}"; do
    for ((i = 0; i < ${#MODES[@]}; i++)); do
      run_one "$workload" "${MODES[(i + rep) % ${#MODES[@]}]}" "$rep"
    done
  done
done

GPU=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 || true)
SEEN=$(sed -n 's/^launch_storm: device 0: //p' "$WORK/device.log" 2>/dev/null | head -n 1 || true)
COMMIT=$(git -C "$SRC_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)

echo "## gpuscope tracing overhead"
echo
echo "- GPU (nvidia-smi): ${GPU:-unknown (nvidia-smi not available)}"
echo "- Device used by the samples: ${SEEN:-unknown}"
echo "- Host: $(uname -n), $(date -u '+%Y-%m-%d %H:%M UTC'), gpuscope commit $COMMIT"
echo "- $REPS interleaved repetitions per mode after one warm-up each; medians; raw numbers in \`$(basename "$CSV")\`"
echo

awk -F, -v failed="$FAILED" '
  function median(key,   n, i, j, t, a) {
    n = cnt[key]; if (n == 0) return ""
    for (i = 1; i <= n; i++) a[i] = val[key, i]
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  function add(key, v) { cnt[key]++; val[key, cnt[key]] = v + 0 }
  function fmt(v, digits) { return v == "" ? "n/a" : sprintf("%." digits "f", v) }
  NR > 1 && $6 != "" { add($2 SUBSEP $3 SUBSEP "metric", $6); add($2 SUBSEP $3 SUBSEP "wall", $7) }
  END {
    for (i = 1; i <= 3; i++) { name[i] = (i == 1) ? "untraced" : (i == 2) ? "gpuscope" : "floor" }
    print "| workload | measure | untraced | gpuscope | floor |"
    print "|---|---|---:|---:|---:|"
    split("launch_storm bsr_spmm", w, " ")
    label["launch_storm"] = "`launch_storm --launches 200000`"
    label["bsr_spmm"] = "`bsr_spmm --persistent --pinned --iters 20`"
    unit["launch_storm"] = "ns per launch"; unit["bsr_spmm"] = "steady iteration ms"
    for (k = 1; k <= 2; k++) {
      line1 = "| " label[w[k]] " | " unit[w[k]]; line2 = "| | process wall ms"
      for (i = 1; i <= 3; i++) {
        med[w[k], name[i]] = median(w[k] SUBSEP name[i] SUBSEP "metric")
        line1 = line1 " | " fmt(med[w[k], name[i]], w[k] == "bsr_spmm" ? 3 : 1)
        line2 = line2 " | " fmt(median(w[k] SUBSEP name[i] SUBSEP "wall"), 1)
      }
      print line1 " |"; print line2 " |"
    }
    print ""
    print "| result | value | target | verdict |"
    print "|---|---:|---|---|"
    u = med["launch_storm", "untraced"]; g = med["launch_storm", "gpuscope"]; f = med["launch_storm", "floor"]
    ag = (u != "" && g != "") ? g - u : ""; af = (u != "" && f != "") ? f - u : ""
    print "| launch_storm: ns added per launch, gpuscope | " fmt(ag, 1) " | | |"
    print "| launch_storm: ns added per launch, floor | " fmt(af, 1) " | | |"
    if (ag == "" || af == "") print "| gpuscope added / floor added | n/a | <= 1.10 | not measured |"
    else if (af <= 0) print "| gpuscope added / floor added | n/a (floor adds no measurable time) | <= 1.10 | " (ag <= 0 ? "PASS" : "FAIL") " |"
    else print "| gpuscope added / floor added | " fmt(ag / af, 3) " | <= 1.10 | " (ag <= 1.10 * af ? "PASS" : "FAIL") " |"
    u = med["bsr_spmm", "untraced"]; g = med["bsr_spmm", "gpuscope"]; f = med["bsr_spmm", "floor"]
    sg = (u > 0 && g != "") ? (g / u - 1) * 100 : ""; sf = (u > 0 && f != "") ? (f / u - 1) * 100 : ""
    print "| bsr_spmm slowdown, gpuscope | " (sg == "" ? "n/a" : fmt(sg, 2) " %") " | < 2 % | " (sg == "" ? "not measured" : (sg < 2 ? "PASS" : "FAIL")) " |"
    print "| bsr_spmm slowdown, floor | " (sf == "" ? "n/a" : fmt(sf, 2) " %") " | | |"
    print ""
    print "Process wall time includes start-up and, for gpuscope, writing the .gpuscope file and its report."
    if (failed > 0) print "**" failed " run(s) failed and are left out; see the rc and note columns of the CSV.**"
  }' "$CSV"

echo "overhead.sh: raw numbers in $CSV" >&2
[ "$FAILED" -eq 0 ] || exit 1
