#!/usr/bin/env bash
# The Source section on a real GPU: samples/source_hotspots runs three kernels with a planted hot
# line each under `gpuscope profile --source`; in the report, each kernel's hottest line must be
# its planted line (the "PLANTED(<case>)" comment in the sample; for the barrier, the line after it,
# naming the barrier it waits at) with the stall reason the plant causes, the program's results must be unchanged, and with nvdisasm on the host the planted
# line's hottest instruction must be disassembled. Then samples/flash_attention, a FlashAttention-
# style kernel with bank conflicts planted in its QK^T and PV loops, and its padded twin: the naive
# run's two hottest lines must be the planted ones with a shared-memory stall, its first finding
# hot_source_line naming both, with an estimated saving within 25 % of the twin's measured one
# (the kernels' traced time), the twin's lines free of those stalls, and `gpuscope diff` of the two
# putting the planted lines first, each cheaper. About 45 s.
#
#   tests/gpu/check_source.sh BUILD_DIR [LOG_DIR]
#
# Exit 0 when every check passes, 1 when one fails, 77 without a GPU (CTest: skipped).
set -u
build=$(cd "${1:?usage: check_source.sh BUILD_DIR [LOG_DIR]}" && pwd)
logs=${2:-$(mktemp -d)}
mkdir -p "$logs"
repo=$(cd "$(dirname "$0")/../.." && pwd)
gpuscope="$build/gpuscope"

. "$(dirname "$0")/lib.sh"
require_gpu_build "$build"
work=$(mktemp -d)
cd "$work" || exit 1
echo "GPU: $(gpu_name)"
echo "logs: $logs"
failed=0
"$build/samples/source_hotspots" >"$logs/untraced.out" 2>&1 || { echo "FAIL: the sample fails untraced"; failed=1; }
if "$gpuscope" profile --source -o hot -- "$build/samples/source_hotspots" >"$logs/profile.out" 2>&1; then
  "$gpuscope" report hot.gpuscope --format json --top 0 >"$logs/hot.json" 2>"$logs/report.err" || failed=1
  "$gpuscope" report hot.gpuscope --top 5 >"$logs/hot.txt" 2>&1 || failed=1
  cp hot.gpuscope "$logs/"
else
  echo "FAIL: profile --source exited non-zero (see $logs/profile.out)"
  failed=1
fi

python3 "$repo/tests/gpu/check_source.py" hotspots "$logs" "$repo/samples/source_hotspots.cu" || failed=1

# The FlashAttention-style twins.
for layout in naive padded; do
  if "$gpuscope" profile --source -o "flash_$layout" -- "$build/samples/flash_attention" --layout "$layout" \
      >"$logs/flash_$layout.out" 2>&1; then
    "$gpuscope" report "flash_$layout.gpuscope" --format json --top 0 >"$logs/flash_$layout.json" 2>>"$logs/report.err" ||
      failed=1
    "$gpuscope" report "flash_$layout.gpuscope" --top 5 >"$logs/flash_$layout.txt" 2>&1 || failed=1
  else
    echo "FAIL: profile --source of flash_attention --layout $layout exited non-zero (see $logs/flash_$layout.out)"
    failed=1
  fi
done
"$gpuscope" diff flash_naive.gpuscope flash_padded.gpuscope --format json >"$logs/flash_diff.json" 2>>"$logs/report.err" ||
  failed=1
"$gpuscope" diff flash_naive.gpuscope flash_padded.gpuscope --top 5 >"$logs/flash_diff.txt" 2>&1 || failed=1
python3 "$repo/tests/gpu/check_source.py" flash "$logs" "$repo/samples/flash_attention.cu" || failed=1
exit $failed
