#!/usr/bin/env bash
# What a `--source` run costs beside Nsight Compute's source counters, on a program (by default
# samples/source_hotspots, three kernels with a planted hot line each): wall seconds of the whole
# run untraced, under gpuscope's default capture, under `gpuscope profile --source`, and under
# `ncu --section SourceCounters` (the section whose warp-state sampling fills ncu's Source page)
# for the same kernels, with `--clock-control none`: the GPU at the clocks it runs at without a
# profiler, as under gpuscope (ncu's default locks base clocks, which changes how many cycles a
# memory access takes, and with them the memory-latency stalls' share). CPUs pinned, modes
# interleaved with their order rotated, medians and minima. Then compares one gpuscope report
# (JSON, every line) with ncu's source page of the same kernels (bench/source_vs_ncu.py), all
# kept in OUT.
#
#   bench/source_cost.sh BUILD OUT [--reps N] [--cpus LIST] [--kernel REGEX] [-- PROGRAM ARGS...]
#
# PROGRAM defaults to BUILD/samples/source_hotspots; ncu profiles the kernels REGEX matches
# (default: hotspot).
set -u
usage="usage: source_cost.sh BUILD OUT [--reps N] [--cpus LIST] [--kernel REGEX] [-- PROGRAM ARGS...]"
BUILD=$(cd "${1:?$usage}" && pwd)
OUT=${2:?$usage}
shift 2
reps=7 cpus=2-5 kernel=hotspot
while [ $# -gt 0 ]; do
  case $1 in
    --reps) reps=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    --kernel) kernel=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT"
if [ $# -gt 0 ]; then program=("$@"); else program=("$BUILD/samples/source_hotspots"); fi
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
work=$(mktemp -d)
modes=(untraced gpuscope source ncu)
run_mode() {  # MODE REP: prints the wall seconds, or "fail"
  local start end
  start=$(date +%s%N)
  case $1 in
    untraced) taskset -c "$cpus" "${program[@]}" >"$work/$1.$2.out" 2>&1 ;;
    gpuscope) taskset -c "$cpus" "$BUILD/gpuscope" profile --no-report -f -o "$work/default" -- "${program[@]}" \
                >"$work/$1.$2.out" 2>&1 ;;
    source) taskset -c "$cpus" "$BUILD/gpuscope" profile --no-report --source -f -o "$work/source" -- "${program[@]}" \
              >"$work/$1.$2.out" 2>&1 ;;
    ncu) taskset -c "$cpus" "$ncu" --section SourceCounters --clock-control none -k "regex:$kernel" -f -o "$work/ncu" \
           "${program[@]}" \
           >"$work/$1.$2.out" 2>&1 ;;
  esac
  local rc=$?
  end=$(date +%s%N)
  if [ $rc -ne 0 ]; then echo fail; else echo $(( (end - start) / 1000000 )); fi
}
echo "mode,rep,ms" >"$OUT/source_cost.csv"
for ((r = 0; r < reps; ++r)); do
  for ((i = 0; i < ${#modes[@]}; ++i)); do
    mode=${modes[$(( (i + r) % ${#modes[@]} ))]}
    echo "$mode,$r,$(run_mode "$mode" "$r")" >>"$OUT/source_cost.csv"
  done
done
python3 - "$OUT/source_cost.csv" "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" \
  "$reps" "$cpus" <<'PY' >"$OUT/source_cost.md"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(f"GPU: {sys.argv[2]}; {sys.argv[3]} interleaved repetitions, CPUs {sys.argv[4]}; wall ms of the whole run")
print("| mode | median ms | min ms | failed |")
print("| --- | ---: | ---: | ---: |")
base = None
for mode in ["untraced", "gpuscope", "source", "ncu"]:
    ms = [float(r["ms"]) for r in rows if r["mode"] == mode and r["ms"] != "fail"]
    fails = sum(1 for r in rows if r["mode"] == mode and r["ms"] == "fail")
    if not ms:
        print(f"| {mode} | - | - | {fails} |"); continue
    print(f"| {mode} | {statistics.median(ms):.0f} | {min(ms):.0f} | {fails} |")
PY
cat "$OUT/source_cost.md"
# One report of each tool for the accuracy comparison.
"$BUILD/gpuscope" report "$work/source.gpuscope" --format json --top 0 >"$OUT/gpuscope_source.json" 2>"$OUT/report.err"
"$ncu" --import "$work/ncu.ncu-rep" --page source --csv --print-source sass >"$OUT/ncu_source_sass.csv" 2>"$OUT/ncu_sass.err"
cp "$work/source.gpuscope" "$OUT/" 2>/dev/null
python3 "$(dirname "$0")/source_vs_ncu.py" "$OUT/gpuscope_source.json" "$OUT/ncu_source_sass.csv" >"$OUT/source_vs_ncu.txt"
echo "source_vs_ncu.py: exit $?" >>"$OUT/source_vs_ncu.txt"
grep "largest" "$OUT/source_vs_ncu.txt"
tail -3 "$work"/ncu.0.out >"$OUT/ncu_run_tail.txt" 2>/dev/null
rm -rf "$work"
