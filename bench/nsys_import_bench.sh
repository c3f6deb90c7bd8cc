#!/usr/bin/env bash
# nsys SQLite import throughput (target: >= 1M rows/s on the CPU machine).
#   bench/nsys_import_bench.sh BUILD [FIXTURE] [DOUBLINGS] [RUNS]
# Builds a large export from a real one by doubling every record table DOUBLINGS times (default
# 7: x128, 3.5M rows from h100_2gpu_1s.sqlite), each copy shifted later in time by the span of
# the data and its correlation ids shifted so launches still match their kernels. Then times
# `gpuscope import` (read, finalize, write the capture) RUNS times (default 5) and prints the
# median with rows/s, and BUILD/bench/nsys_read_bench (when built) for the time of each stage.
# The big export is kept in BUILD/bench/ and rebuilt when missing.
set -euo pipefail
build="${1:?usage: bench/nsys_import_bench.sh BUILD [FIXTURE] [DOUBLINGS] [RUNS]}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
fixture="${2:-$repo/../shared/fixtures/nsys/h100_2gpu_1s.sqlite}"
doublings="${3:-7}"
runs="${4:-5}"
[ -x "$build/gpuscope" ] || { echo "nsys_import_bench: $build/gpuscope missing (cmake --build $build)" >&2; exit 2; }
[ -f "$fixture" ] || { echo "nsys_import_bench: $fixture missing (the shared fixtures folder)" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "nsys_import_bench: needs the sqlite3 command" >&2; exit 2; }

mkdir -p "$build/bench"
big="$build/bench/nsys_x$((1 << doublings)).sqlite"
tables=(CUPTI_ACTIVITY_KIND_KERNEL CUPTI_ACTIVITY_KIND_RUNTIME CUPTI_ACTIVITY_KIND_MEMCPY CUPTI_ACTIVITY_KIND_MEMSET
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION CUPTI_ACTIVITY_KIND_OVERHEAD NVTX_EVENTS)
if [ ! -f "$big" ] || [ "$fixture" -nt "$big" ]; then
  echo "building $big from $(basename "$fixture") ($doublings doublings)..." >&2
  cp "$fixture" "$big.tmp" && chmod u+w "$big.tmp"
  # Drop the indexes some tools add: they only slow the inserts down.
  sqlite3 "$big.tmp" "SELECT 'DROP INDEX \"' || name || '\";' FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL" |
    sqlite3 "$big.tmp"
  span=$(sqlite3 "$big.tmp" "SELECT MAX(end) - MIN(start) + 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME")
  sql="PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN;"
  for ((round = 0; round < doublings; ++round)); do
    for table in "${tables[@]}"; do
      columns=$(sqlite3 "$big.tmp" "SELECT group_concat(name, ' ') FROM pragma_table_info('$table')" || true)
      [ -n "$columns" ] || continue
      shift_time="start = start + $span * $((1 << round)), end = end + $span * $((1 << round))"
      shift_corr=""
      [[ " $columns " == *" correlationId "* ]] && shift_corr=", correlationId = correlationId + 10000000 * $((1 << round))"
      sql+="CREATE TEMP TABLE copy AS SELECT * FROM $table;"
      sql+="UPDATE copy SET $shift_time $shift_corr;"
      sql+="INSERT INTO $table SELECT * FROM copy; DROP TABLE copy;"
    done
  done
  sqlite3 "$big.tmp" "$sql COMMIT; VACUUM;"
  mv "$big.tmp" "$big"
fi

rows=0
for table in "${tables[@]}"; do
  n=$(sqlite3 "$big" "SELECT COUNT(*) FROM $table" 2>/dev/null || echo 0)
  rows=$((rows + n))
done
echo "export: $big, $(du -m "$big" | cut -f1) MB, $rows record rows"

times=()
for ((i = 0; i < runs; ++i)); do
  rm -f "$build/bench/nsys_import.gpuscope"
  begin=$(date +%s.%N)
  "$build/gpuscope" import -o "$build/bench/nsys_import" "$big" 2>/dev/null
  end=$(date +%s.%N)
  times+=("$(awk -v b="$begin" -v e="$end" 'BEGIN { printf "%.3f", e - b }')")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }')
echo "gpuscope import, $runs runs: ${times[*]} s"
awk -v t="$median" -v r="$rows" 'BEGIN { printf "median %.3f s: %.2f M rows/s\n", t, r / t / 1e6 }'
if [ -x "$build/bench/nsys_read_bench" ]; then
  echo "stages (build/bench/nsys_read_bench), $runs runs:"
  for ((i = 0; i < runs; ++i)); do "$build/bench/nsys_read_bench" "$big" "$build/bench/nsys_stages.gpuscope"; done
fi
