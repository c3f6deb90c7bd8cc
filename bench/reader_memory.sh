#!/usr/bin/env bash
# Peak memory of each reader against the size of what it reads.
#
#   bench/reader_memory.sh BUILD [SCALE]
#
# For each format, a small and a large input (the large SCALE times the small, default 4), made by
# the generators the other benchmarks use: gpuscope_synth (capture), kineto_trace_gen from
# tests/data/kineto/mlp_train.json (torch.profiler JSON), gpuscope_ncu_import_bench (an ncu raw
# page of `--set full` launch rows, and a details page), nsys_import_bench.sh's doubled export of
# ../shared/fixtures/nsys/h100_2gpu_1s.sqlite (nsys SQLite). Each input is read once under GNU
# time: `gpuscope query FILE 'SELECT 1'` for a capture (the whole file read and checked), `gpuscope
# import` for the others (read, finalize, write the capture). Prints a markdown table: input MB,
# peak RSS MB, and the growth, (peak RSS large - small) / (input large - small): the memory an MB
# of input adds. A reader that streams and bounds what it holds stays near what its records cost
# kept; one that held its input whole would add at least 1 MB per MB on top. Inputs are kept in
# BUILD/bench/reader_memory/ and made again when missing. Exit 2 when a generator is missing.
set -euo pipefail
die() { echo "reader_memory.sh: $*" >&2; exit 2; }
BUILD=${1:?usage: bench/reader_memory.sh BUILD [SCALE]}
SCALE=${2:-4}
[[ "$SCALE" =~ ^[2-9][0-9]*$ ]] || die "SCALE must be an integer of at least 2"
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
BUILD=$(cd "$BUILD" && pwd)
G=$BUILD/gpuscope
for tool in "$G" "$BUILD/gpuscope_synth" "$BUILD/bench/kineto_trace_gen" "$BUILD/bench/gpuscope_ncu_import_bench"; do
  [ -x "$tool" ] || die "$tool missing (build it first)"
done
[ -x /usr/bin/time ] || die "needs GNU time (/usr/bin/time; Debian package time)"
DIR=$BUILD/bench/reader_memory
mkdir -p "$DIR"

# make FORMAT SIZE PATH: the input of FORMAT at relative size SIZE (1 or SCALE).
make_input() {
  local format=$1 size=$2 path=$3
  [ -f "$path" ] && return 0
  case $format in
    capture) "$BUILD/gpuscope_synth" -o "$path" --launches $((250000 * size)) >/dev/null ;;
    kineto) "$BUILD/bench/kineto_trace_gen" "$REPO/tests/data/kineto/mlp_train.json" "$path" --mb $((25 * size)) >/dev/null ;;
    ncu_raw | ncu_details)
      local tmp
      tmp=$(mktemp -d -p "$DIR")
      GPUSCOPE_NCU_BENCH_DIR=$tmp "$BUILD/bench/gpuscope_ncu_import_bench" "$REPO/tests/data/ncu/metrics_kernels_raw.csv" \
        "$REPO/tests/data/ncu/bsr_spmm_full_details.csv" $((2000 * size)) $((200 * size)) >/dev/null
      mv "$tmp/gpuscope_bench_ncu_${format#ncu_}.csv" "$path"
      rm -rf "$tmp" ;;
    nsys)
      local fixture=$REPO/../shared/fixtures/nsys/h100_2gpu_1s.sqlite doublings=2
      [ -f "$fixture" ] || die "$fixture missing (the shared fixtures folder)"
      [ "$size" -gt 1 ] && doublings=$((2 + $(awk -v s="$size" 'BEGIN { printf "%d", log(s) / log(2) + 0.5 }')))
      "$HERE/nsys_import_bench.sh" "$BUILD" "$fixture" "$doublings" 0 >/dev/null
      cp "$BUILD/bench/nsys_x$((1 << doublings)).sqlite" "$path" ;;
  esac
}

# peak_kib FORMAT PATH: the reader's peak RSS in KiB.
peak_kib() {
  local format=$1 path=$2 out=$DIR/out
  local read=("$G" import -f -o "$out" "$path")
  [ "$format" = capture ] && read=("$G" query "$path" "SELECT 1")
  /usr/bin/time -f %M -o "$DIR/time.txt" "${read[@]}" >/dev/null 2>"$DIR/stderr.txt" ||
    die "$format: ${read[*]} failed: $(tail -1 "$DIR/stderr.txt")"
  tail -1 "$DIR/time.txt"
}

echo "| reader | small input | its peak RSS | large input | its peak RSS | growth (MB of RSS per MB of input) |"
echo "|---|---:|---:|---:|---:|---:|"
for format in capture kineto ncu_raw ncu_details nsys; do
  ext=.gpuscope
  case $format in kineto) ext=.json ;; ncu_*) ext=.csv ;; nsys) ext=.sqlite ;; esac
  small=$DIR/$format.1$ext large=$DIR/$format.$SCALE$ext
  make_input "$format" 1 "$small"
  make_input "$format" "$SCALE" "$large"
  small_mb=$(du -m --apparent-size "$small" | cut -f1) large_mb=$(du -m --apparent-size "$large" | cut -f1)
  small_rss=$(($(peak_kib "$format" "$small") / 1024)) large_rss=$(($(peak_kib "$format" "$large") / 1024))
  awk -v f="$format" -v a="$small_mb" -v b="$small_rss" -v c="$large_mb" -v d="$large_rss" \
    'BEGIN { printf "| %s | %d MB | %d MB | %d MB | %d MB | %.2f |\n", f, a, b, c, d, (c > a ? (d - b) / (c - a) : 0) }'
done
rm -f "$DIR/out.gpuscope" "$DIR/time.txt" "$DIR/stderr.txt"
