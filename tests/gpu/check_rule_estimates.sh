#!/usr/bin/env bash
# Estimates vs measured: profile each sample pair (planted anti-pattern, fixed
# variant), take the estimated saving of the relevant rule(s) from the
# baseline report's JSON, measure what the fixed variant actually saves, and
# print a table with the ratio estimate / measured (docs/rules.md pastes it).
#
#   tests/gpu/check_rule_estimates.sh BUILD_DIR [REPEATS]         profile on this GPU (exit 77 without one)
#   tests/gpu/check_rule_estimates.sh BUILD_DIR --compare BASE FIXED RULES LOOP_START LOOP_END
#                                                                 one pair from existing captures (CPU);
#                                                                 LOOP_END "-": LOOP_START's own duration;
#                                                                 kernel:NAME for both: a metric-rule pair
#                                                                 (BASE's NAME vs FIXED's NAME, see below)
#
# Measured = loop time of the baseline - loop time of the fixed variant, where the loop is
# the time from the end of NVTX range LOOP_START to the start of NVTX range LOOP_END (for
# bsr_spmm: host_setup .. verify), each minus the context creation inside that window
# (report JSON, Bottleneck: context creation and where): neither fix removes context
# creation, a fix only moves it (--pinned moves it into cudaMallocHost before the loop).
# The wall-time difference is printed too. Needs python3 (JSON) and REPEATS runs per
# variant (default 3; the median of each is used).
#
# Metric-rule pairs (far_from_roofline, shared_bank_conflicts; samples/metrics_kernels): those
# rules estimate kernel time, not loop time, and need hardware metrics. The estimate comes from
# captures made with `--metrics full --launch-count 3` (the first 3 launches replayed, ~22 passes
# each; the rule multiplies their median metrics by the traced time of all launches); measured =
# total traced time of the planted kernel in plain captures (no --metrics, so no replay) minus
# that of its fixed twin (kernels_named, summed over the launches; medians over the repeats). The
# wall-time column is the plain captures' wall-time difference, as for every other row (mostly
# start-up noise here: the saving is tens of ms in a process of 1-2 s). Both variants must print the
# same RESULT line (the fix changes no output). With --compare, LOOP_START kernel:NAME and
# LOOP_END kernel:NAME measure NAME's kernel time in BASE and in FIXED (BASE then carries the
# metrics: the estimate and the measurement come from the same files).
set -u
build=$(cd "${1:?usage: check_rule_estimates.sh BUILD_DIR [REPEATS | --compare ...]}" && pwd)
gpuscope="$build/gpuscope"
samples="$build/samples"

# estimate_ns FILE RULE[,RULE...]: summed estimated saving of those rules (0 when none fired).
estimate_ns() {
  "$gpuscope" report --format json "$1" | python3 -c '
import json, sys
rules = set(sys.argv[1].split(","))
rep = json.load(sys.stdin)
total = 0
for s in rep["sections"]:
    if s["key"] == "recommendations":
        for t in s["tables"]:
            if t["key"] == "recommendations":
                total += sum(r["saving"] or 0 for r in t["rows"] if r["rule"] in rules)
print(int(total))' "$2"
}

# loop_ns FILE START_RANGE END_RANGE: window length minus the context creation inside it.
loop_ns() {
  local win
  win=$("$gpuscope" query "$1" "SELECT (SELECT MIN(start_ns) FROM nvtx_ranges_named WHERE name = '$3') - (SELECT MAX(end_ns) FROM nvtx_ranges_named WHERE name = '$2'), (SELECT MAX(end_ns) FROM nvtx_ranges_named WHERE name = '$2') - (SELECT start_ns FROM run), (SELECT MIN(start_ns) FROM nvtx_ranges_named WHERE name = '$3') - (SELECT start_ns FROM run)")
  if [ "$(echo "$win" | wc -w)" -ne 3 ]; then
    echo "FAIL: NVTX range '$2' or '$3' is missing in $1" >&2; echo 0; return
  fi
  "$gpuscope" report --format json "$1" | python3 -c '
import json, sys
length, lo, hi = (int(x) for x in sys.argv[1].split())
rep = json.load(sys.stdin)
lines = {l["key"]: l["value"] for s in rep["sections"] if s["key"] == "bottleneck" for l in s["lines"]}
ctx, at = lines.get("context_creation") or 0, lines.get("context_creation_at")
if at is not None and lo <= at < hi:
    length -= ctx
print(int(length))' "$(echo "$win" | tr '\t' ' ')"
}

wall_ns() { "$gpuscope" query "$1" "SELECT end_ns - start_ns FROM run"; }

# kernel_ns FILE NAME: total traced time of kernel NAME (demangled, without its parameter list).
kernel_ns() { "$gpuscope" query "$1" "SELECT COALESCE(SUM(end_ns - start_ns), 0) FROM kernels_named WHERE name = '$2' OR name LIKE '$2(%'"; }

# range_ns FILE NAME: total duration of an NVTX range (for fixes that shorten the setup itself).
range_ns() { "$gpuscope" query "$1" "SELECT COALESCE(SUM(end_ns - start_ns), 0) FROM nvtx_ranges_named WHERE name = '$2'"; }

# measure_ns FILE FROM TO: the loop between NVTX ranges FROM and TO, or with TO = "-" the
# duration of range FROM (for fixes that shorten the setup itself).
measure_ns() { if [ "$3" = "-" ]; then range_ns "$1" "$2"; else loop_ns "$1" "$2" "$3"; fi; }

median() { sort -n | awk '{v[NR] = $1} END {if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print int((v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }

row() {  # NAME RULES EST_NS MEASURED_NS WALL_DIFF_NS
  awk -v n="$1" -v r="$2" -v e="$3" -v m="$4" -v w="$5" 'BEGIN {
    ratio = (m > 0) ? sprintf("%.2f", e / m) : "-"
    printf "| %s | %s | %.1f | %.1f | %s | %.1f |\n", n, r, e / 1e6, m / 1e6, ratio, w / 1e6 }'
}

# kernel_diff BASE_FILE FIXED_FILE BASE_KERNEL FIXED_KERNEL: measured saving of a metric pair.
kernel_diff() { echo $(( $(kernel_ns "$1" "$3") - $(kernel_ns "$2" "$4") )); }

header() {
  echo "| pair | rule(s) | estimated ms | measured ms | estimate / measured | wall-time diff ms |"
  echo "| --- | --- | ---: | ---: | ---: | ---: |"
}

if [ "${2:-}" = "--compare" ]; then
  base=${3:?BASE} fixed=${4:?FIXED} rules=${5:?RULES} from=${6:?LOOP_START} to=${7:?LOOP_END}
  case "$from$to" in
    kernel:*kernel:*) meas=$(kernel_diff "$base" "$fixed" "${from#kernel:}" "${to#kernel:}") ;;
    *kernel:*) echo "FAIL: kernel:NAME goes in both LOOP_START and LOOP_END" >&2; exit 1 ;;
    *) meas=$(( $(measure_ns "$base" "$from" "$to") - $(measure_ns "$fixed" "$from" "$to") )) ;;
  esac
  header
  row "$(basename "$base") vs $(basename "$fixed")" "$rules" "$(estimate_ns "$base" "$rules")" \
    "$meas" $(( $(wall_ns "$base") - $(wall_ns "$fixed") ))
  exit 0
fi

repeats=${2:-3}
. "$(dirname "$0")/lib.sh"
require_gpu_build "$build"
command -v python3 >/dev/null || { echo "FAIL: python3 needed to read the report JSON"; exit 1; }
work=$(mktemp -d)
cd "$work" || exit 1
echo "GPU: $(gpu_name); $repeats runs per variant; captures in $work"

# profile [--metrics] NAME ARGS...: REPEATS captures NAME.N.gpuscope, plain or with the metric
# rules' metrics (--metrics full, first 3 launches); exits on failure.
profile() {
  local opts=() name
  if [ "$1" = --metrics ]; then opts=(--metrics full --launch-count 3); shift; fi
  name=$1; shift
  for i in $(seq 1 "$repeats"); do
    "$gpuscope" profile ${opts[@]+"${opts[@]}"} -o "$name.$i" -- "$@" >"$name.$i.out" 2>&1 || { echo "FAIL: $name run $i (see $work/$name.$i.out)"; exit 1; }
  done
}

# pair NAME RULES BASE FIXED FROM TO: medians over the repeats (TO as in measure_ns).
pair() {
  local name=$1 rules=$2 base=$3 fixed=$4 from=$5 to=$6 est meas wall
  measure() { measure_ns "$1" "$from" "$to"; }
  est=$(for i in $(seq 1 "$repeats"); do estimate_ns "$base.$i.gpuscope" "$rules"; done | median)
  meas=$(( $(for i in $(seq 1 "$repeats"); do measure "$base.$i.gpuscope"; done | median) -
           $(for i in $(seq 1 "$repeats"); do measure "$fixed.$i.gpuscope"; done | median) ))
  wall=$(( $(for i in $(seq 1 "$repeats"); do wall_ns "$base.$i.gpuscope"; done | median) -
           $(for i in $(seq 1 "$repeats"); do wall_ns "$fixed.$i.gpuscope"; done | median) ))
  row "$name" "$rules" "$est" "$meas" "$wall"
}

# kpair NAME RULES BASE FIXED BASE_KERNEL FIXED_KERNEL: a metric-rule pair. Estimate from the
# metrics captures BASE_mx.N, measured and wall time from the plain captures BASE.N and FIXED.N.
kpair() {
  local name=$1 rules=$2 base=$3 fixed=$4 kb=$5 kf=$6 est meas wall
  est=$(for i in $(seq 1 "$repeats"); do estimate_ns "${base}_mx.$i.gpuscope" "$rules"; done | median)
  meas=$(( $(for i in $(seq 1 "$repeats"); do kernel_ns "$base.$i.gpuscope" "$kb"; done | median) -
           $(for i in $(seq 1 "$repeats"); do kernel_ns "$fixed.$i.gpuscope" "$kf"; done | median) ))
  wall=$(( $(for i in $(seq 1 "$repeats"); do wall_ns "$base.$i.gpuscope"; done | median) -
           $(for i in $(seq 1 "$repeats"); do wall_ns "$fixed.$i.gpuscope"; done | median) ))
  row "$name" "$rules" "$est" "$meas" "$wall"
}

profile bsr_base "$samples/bsr_spmm"
profile bsr_fixed "$samples/bsr_spmm" --persistent --pinned
profile bsr_pinned "$samples/bsr_spmm" --pinned
profile bsr_persistent "$samples/bsr_spmm" --persistent
# pattern:rule (rule_patterns' --pattern and the rule its fix addresses)
patterns="sync:excessive_sync launch:launch_bound gaps:gpu_idle_gaps synccopy:sync_copies startup:startup_cost tinycopy:many_tiny_transfers result:large_result_copy overlap:copies_not_overlapped tail:tail_effect"
if [ -x "$samples/rule_patterns" ]; then
  for p in $patterns; do
    profile "rp_${p%%:*}" "$samples/rule_patterns" --pattern "${p%%:*}"
    profile "rp_${p%%:*}_fixed" "$samples/rule_patterns" --pattern "${p%%:*}" --fixed
  done
fi
# Metric-rule pairs, family:rule:planted kernel:fixed kernel:launches (metrics_kernels --only
# FAMILY --variant planted|fixed --iters LAUNCHES). A finding is reported from 0.5 % of wall time:
# the transpose process lasts ~1-2 s (256 MiB of input made and hashed on the host) and
# transpose_conflicts' estimate is ~0.25 ms a launch, hence 200 launches; fmachain_latency's is
# ~1.85 ms a launch of a shorter process.
mk="$samples/metrics_kernels"
mpairs="fmachain:far_from_roofline:fmachain_latency:fmachain_ilp:20 transpose:shared_bank_conflicts:transpose_conflicts:transpose_padded:200"
if [ -x "$mk" ]; then
  for m in $mpairs; do
    IFS=: read -r fam rule kb kf n <<<"$m"
    profile "mk_$fam" "$mk" --only "$fam" --variant planted --iters "$n"
    profile "mk_${fam}_fixed" "$mk" --only "$fam" --variant fixed --iters "$n"
    profile --metrics "mk_${fam}_mx" "$mk" --only "$fam" --variant planted --iters "$n"
    profile --metrics "mk_${fam}_fixed_mx" "$mk" --only "$fam" --variant fixed --iters "$n"
    # The fix changes no output: every run of both variants, with or without metrics, prints the
    # same RESULT line (output hash).
    want=$(grep '^RESULT' "mk_$fam.1.out")
    for f in "mk_$fam".*.out "mk_${fam}"_*.out; do
      if [ -z "$want" ] || [ "$(grep '^RESULT' "$f")" != "$want" ]; then
        echo "FAIL: $work/$f: RESULT line differs from mk_$fam.1.out's ($want)"; exit 1
      fi
    done
  done
fi

header
pair "bsr_spmm vs --persistent --pinned" "pageable_copies,allocation_in_loop" bsr_base bsr_fixed host_setup verify
pair "bsr_spmm vs --pinned" "pageable_copies" bsr_base bsr_pinned host_setup verify
pair "bsr_spmm vs --persistent" "allocation_in_loop" bsr_base bsr_persistent host_setup verify
if [ -x "$samples/rule_patterns" ]; then
  for p in $patterns; do
    # startup's fix shortens host_setup itself; the others shorten the loop after it.
    if [ "${p%%:*}" = startup ]; then to=-; else to=verify; fi
    pair "rule_patterns --pattern ${p%%:*} vs --fixed" "${p#*:}" "rp_${p%%:*}" "rp_${p%%:*}_fixed" host_setup "$to"
  done
fi
if [ -x "$mk" ]; then
  for m in $mpairs; do
    IFS=: read -r fam rule kb kf n <<<"$m"
    kpair "metrics_kernels --only $fam --iters $n, $kb vs $kf" "$rule" "mk_$fam" "mk_${fam}_fixed" "$kb" "$kf"
  done
fi

# No false positives: the fixed variant must not trigger the rules it fixes.
fp=$(for rule in pageable_copies allocation_in_loop; do
  [ "$(estimate_ns bsr_fixed.1.gpuscope "$rule")" -gt 0 ] && echo "$rule(bsr_spmm fixed)"; done)
if [ -x "$samples/rule_patterns" ]; then
  for p in $patterns; do
    [ "$(estimate_ns "rp_${p%%:*}_fixed.1.gpuscope" "${p#*:}")" -gt 0 ] && fp="$fp ${p#*:}(rule_patterns --fixed)"
  done
fi
if [ -x "$mk" ]; then
  for m in $mpairs; do
    IFS=: read -r fam rule kb kf n <<<"$m"
    [ "$(estimate_ns "mk_${fam}_fixed_mx.1.gpuscope" "$rule")" -gt 0 ] && fp="$fp $rule(metrics_kernels $kf)"
  done
fi
if [ -n "$fp" ]; then echo "FAIL: fixed variants trigger: $fp"; exit 1; fi
echo "PASS: no fixed variant triggers the rule its fix addresses"
