#!/usr/bin/env bash
# Import speed and memory on a large torch.profiler trace (targets: >= 100 MB/s of JSON,
# peak RSS <= 2x the capture written). Generates a trace of --mb MiB from a real one
# (build/bench/kineto_trace_gen: its events repeated, shifted in time and ids), then times
# `gpuscope import` --runs times and `gpuscope report` (in memory, JSON to /dev/null) once, each
# under /usr/bin/time -v. Prints a markdown table of medians; deletes the generated files.
#
#   bench/kineto_import_bench.sh build [--mb 1024] [--runs 3] [--input tests/data/kineto/mlp_train.json] [--gzip]
#
# --gzip: time the trace gzipped (gzip -6, as torch's .json.gz); MB/s still counts the JSON's bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: bench/kineto_import_bench.sh BUILD_DIR [--mb N] [--runs N] [--input TRACE]}
shift
mb=1024 runs=3 input=tests/data/kineto/mlp_train.json gz=0
while [ $# -gt 0 ]; do
  case "$1" in
    --mb) mb=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --input) input=$2; shift 2 ;;
    --gzip) gz=1; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
gpuscope=$build/gpuscope gen=$build/bench/kineto_trace_gen
for tool in "$gpuscope" "$gen" /usr/bin/time; do
  [ -x "$tool" ] || { echo "missing $tool (build the gpuscope and gpuscope_kineto_trace_gen targets; apt install time)" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/kineto-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT  # the trace is large: never leave it behind
trace=$work/trace.json
"$gen" "$input" "$trace" --mb "$mb" >&2
bytes=$(stat -c %s "$trace")
if [ "$gz" = 1 ]; then
  gzip -6 "$trace"
  trace=$trace.gz
  echo "gzipped: $(stat -c %s "$trace") bytes" >&2
fi

# One timed command: "wall_seconds max_rss_kib cpu_seconds" on stdout. CPU time (user + system)
# says what the machine's other load does not: on a shared machine wall time varies by 2x.
timed() {
  /usr/bin/time -v "$@" 2> "$work/time.txt" > /dev/null
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i] }
              /User time|System time/ { cpu += $2 }
              /Maximum resident set size/ { rss = $2 } END { print s, rss, cpu }' "$work/time.txt"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: > "$work/import.txt"
for ((r = 1; r <= runs; r++)); do
  timed "$gpuscope" import -o "$work/capture" --force "$trace" >> "$work/import.txt"
  echo "import run $r: $(tail -1 "$work/import.txt") (wall s, KiB, CPU s)" >&2
done
capture=$(stat -c %s "$work/capture.gpuscope")
read -r report_s report_kib report_cpu < <(timed "$gpuscope" report "$trace" --format json -o /dev/null)

import_s=$(cut -d' ' -f1 "$work/import.txt" | median)
import_kib=$(cut -d' ' -f2 "$work/import.txt" | median)
import_cpu=$(cut -d' ' -f3 "$work/import.txt" | median)
awk -v b="$bytes" -v c="$capture" -v s="$import_s" -v k="$import_kib" -v rs="$report_s" -v rk="$report_kib" -v n="$runs" -v gz="$gz" -v ic="$import_cpu" -v rc="$report_cpu" '
BEGIN {
  printf "| trace | runs | import: wall | MB/s | CPU | MB per CPU s | peak RSS | capture | RSS / capture | report (in memory): wall | MB/s | CPU | peak RSS |\n"
  printf "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
  printf "| %.0f MB%s | %d | %.2f s | %.0f | %.2f s | %.0f | %.0f MB | %.0f MB | %.2f | %.2f s | %.0f | %.2f s | %.0f MB |\n",
         b / 1e6, gz ? " (gzip)" : "", n, s, b / 1e6 / s, ic, b / 1e6 / ic, k * 1024 / 1e6, c / 1e6, k * 1024 / c,
         rs, b / 1e6 / rs, rc, rk * 1024 / 1e6
}'
