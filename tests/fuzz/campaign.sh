#!/usr/bin/env bash
# A fuzzing campaign over the libFuzzer targets of a GPUSCOPE_FUZZ build (docs/fuzzing.md):
#   tests/fuzz/campaign.sh BUILD_DIR SECONDS CORES OUT_DIR [TARGET...]
# Runs every target of tests/fuzz/seeds.txt (or the TARGETs named) for SECONDS on CORES cores:
# with at least one core per target all run at once, the cores shared out as workers (libFuzzer
# processes sharing one corpus); with fewer, the targets take turns, CORES at a time.
# OUT_DIR/TARGET/ keeps the corpus (seeded from seeds.txt, grown by the run; a later campaign with
# the same OUT_DIR goes on from it), crashes/ (libFuzzer's artifacts: crash-, leak-, timeout-,
# oom-), and worker-N.log. OUT_DIR/summary.txt: target, seconds, workers, executions, exec/s,
# crashes. Exit 1 when any target has a crash artifact.
# Needs only bash and coreutils: the binaries are self-contained (ASan/UBSan and libFuzzer linked
# statically by clang, SQLite and zlib statically by gpuscope's CMake).
set -euo pipefail

if [ $# -lt 4 ]; then
  sed -n '2,3p' "$0" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
seconds=$2
cores=$3
mkdir -p "$4"
out=$(cd "$4" && pwd)
shift 4
repo=$(cd "$(dirname "$0")/../.." && pwd)
# @shared/ in seeds.txt: GPUSCOPE_SHARED_DIR, else the build's setting, else the folder beside the
# repository (where tests/CMakeLists.txt looks by default).
shared=${GPUSCOPE_SHARED_DIR:-$(sed -n 's/^GPUSCOPE_SHARED_DIR:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null || true)}
shared=${shared:-$repo/../shared}
# UBSan reports and goes on by default, which libFuzzer would not see: stop at the first.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

targets=()
declare -A seeds
while read -r name paths; do
  [[ $name =~ ^[a-z] ]] || continue
  [ $# -eq 0 ] || [[ " $* " == *" $name "* ]] || continue
  [ -x "$build/tests/gpuscope_${name}_fuzzer" ] || {
    echo "campaign: no $build/tests/gpuscope_${name}_fuzzer (build with -DGPUSCOPE_FUZZ=ON)" >&2
    exit 2
  }
  targets+=("$name")
  seeds[$name]=$paths
done <"$repo/tests/fuzz/seeds.txt"
[ ${#targets[@]} -gt 0 ] || { echo "campaign: no such target: $*" >&2; exit 2; }

# OUT_DIR/NAME/corpus gets a copy of every seed file (the repository's files stay untouched).
prepare() {
  local dir=$out/$1 path file n=0
  mkdir -p "$dir/corpus" "$dir/crashes" "$dir/tmp"
  rm -f "$dir"/worker-*.log
  for path in ${seeds[$1]}; do
    path=${path/#@shared\//$shared/}
    [[ $path == /* ]] || path=$repo/$path
    [ -e "$path" ] || continue
    while IFS= read -r -d '' file; do
      cp "$file" "$dir/corpus/seed-$((n += 1))-${file##*/}"
    done < <(find "$path" -type f -print0)
  done
}

# One libFuzzer process after another until the deadline: a crash ends a run (its input is kept in
# crashes/), the next run goes on from the corpus. A crash while libFuzzer reads the corpus (before
# its INITED line) would end every later run too: it ends the worker.
worker() {
  local name=$1 n=$2 deadline=$3 dir=$out/$1 log=$out/$1/worker-$2.log left inited rc
  while left=$((deadline - $(date +%s))); [ "$left" -gt 0 ]; do
    inited=$(grep -c INITED "$log" 2>/dev/null || true)
    rc=0
    TMPDIR=$dir/tmp timeout -k 10 $((left + 120)) "$build/tests/gpuscope_${name}_fuzzer" \
      -max_total_time="$left" -print_final_stats=1 -timeout=10 -rss_limit_mb=4096 \
      -artifact_prefix="$dir/crashes/" "$dir/corpus" >>"$log" 2>&1 || rc=$?
    if [ "$rc" -ne 0 ] && [ "$(grep -c INITED "$log" || true)" = "${inited:-0}" ]; then
      echo "campaign: $name worker $n stopped: an input of the corpus fails (see above)" >>"$log"
      return
    fi
  done
}

run_target() {
  local name=$1 workers=$2 began n
  prepare "$name"
  began=$(date +%s)
  for ((n = 0; n < workers; n++)); do worker "$name" "$n" $((began + seconds)) & done
  wait
  echo "$(($(date +%s) - began)) $workers" >"$out/$name/took"
  echo "campaign: $name done"
}

echo "campaign: ${targets[*]} for ${seconds} s on $cores cores, in $out"
count=${#targets[@]}
if [ "$cores" -ge "$count" ]; then
  for i in "${!targets[@]}"; do
    run_target "${targets[i]}" $((cores / count + (i < cores % count ? 1 : 0))) &
  done
else
  for name in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$cores" ]; do wait -n; done
    run_target "$name" 1 &
  done
fi
wait

# The table: executions summed over each target's libFuzzer runs (their final stats).
found=0
summary=$(printf '%-8s %8s %8s %14s %10s %8s' target seconds workers executions exec/s crashes)
for name in "${targets[@]}"; do
  dir=$out/$name
  read -r took workers <"$dir/took"
  execs=0
  for n in $(sed -n 's/^stat::number_of_executed_units: *//p' "$dir"/worker-*.log); do execs=$((execs + n)); done
  crashes=$(find "$dir/crashes" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  found=$((found + crashes))
  summary+=$'\n'$(printf '%-8s %8d %8d %14d %10d %8d' "$name" "$took" "$workers" "$execs" \
                   $((execs / (took > 0 ? took : 1))) "$crashes")
done
echo "$summary" | tee "$out/summary.txt"
[ "$found" -eq 0 ] || { echo "campaign: $found crash artifacts under $out/*/crashes"; exit 1; }
