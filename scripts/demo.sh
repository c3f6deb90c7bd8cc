#!/usr/bin/env bash
# The main job, end to end. With a GPU: profile the BSR sparse GEMM sample as the
# seed's baseline did (allocations and pageable copies every iteration), then the
# fixed version (--persistent --pinned), and report both. Without a GPU: report on
# captures of the same two runs recorded on a real H100, and say so.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
gpuscope="$build/gpuscope"
out=${DEMO_DIR:-$build/demo}
mkdir -p "$out"

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && [ -x "$build/samples/bsr_spmm" ]; then
  echo "== GPU found: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  "$gpuscope" profile -f -o "$out/bsr_baseline" --no-report -- "$build/samples/bsr_spmm"
  "$gpuscope" profile -f -o "$out/bsr_fixed" --no-report -- "$build/samples/bsr_spmm" --persistent --pinned
  baseline="$out/bsr_baseline.gpuscope" fixed="$out/bsr_fixed.gpuscope"
else
  baseline="$here/tests/data/bsr_spmm_baseline.gpuscope" fixed="$here/tests/data/bsr_spmm_fixed.gpuscope"
  card=$("$gpuscope" query "$baseline" "SELECT name FROM devices LIMIT 1")
  echo "== No GPU here: reporting on captures recorded earlier on a real $card (tests/data), not a live run."
fi
echo
echo "######## Baseline: bsr_spmm (cudaMalloc + pageable copies every iteration)"
"$gpuscope" report "$baseline"
echo
echo "######## Fixed: bsr_spmm --persistent --pinned"
"$gpuscope" report "$fixed"
