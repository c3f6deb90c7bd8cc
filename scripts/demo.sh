#!/usr/bin/env bash
# The main job, end to end. With a GPU: profile the BSR sparse GEMM sample as the
# seed's baseline did (allocations and pageable copies every iteration), then the
# fixed version (--persistent --pinned), and report both; then the fixed version's kernel
# with hardware metrics (--metrics full). Without a GPU: report on captures of the same
# three runs recorded on real H100/H200s (tests/data), and say so. Each capture is also written
# as an HTML report (timeline, charts) and a Perfetto trace, and the comparison as an HTML page.
# Last, a torch.profiler trace (another profiler's file, read as it is) is reported the same way.
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
  "$gpuscope" profile -f -o "$out/bsr_metrics" --no-report --metrics full -- "$build/samples/bsr_spmm" --persistent --pinned
  baseline="$out/bsr_baseline.gpuscope" fixed="$out/bsr_fixed.gpuscope" metrics="$out/bsr_metrics.gpuscope"
else
  data="$here/tests/data"
  baseline="$data/bsr_spmm_baseline.gpuscope" fixed="$data/bsr_spmm_fixed.gpuscope" metrics="$data/bsr_spmm_metrics.gpuscope"
  card() { "$gpuscope" query "$1" "SELECT name FROM devices LIMIT 1"; }
  echo "== No GPU here: reporting on captures recorded earlier (tests/data), not a live run:"
  echo "   baseline and fixed on a real $(card "$baseline"), hardware metrics on a real $(card "$metrics")."
fi
echo
echo "######## Baseline: bsr_spmm (cudaMalloc + pageable copies every iteration)"
"$gpuscope" report "$baseline"
echo
echo "######## Fixed: bsr_spmm --persistent --pinned"
"$gpuscope" report "$fixed"
echo
echo "######## Hardware metrics: bsr_spmm --persistent --pinned, profiled with --metrics full"
"$gpuscope" report "$metrics"

echo
echo "######## To look at: HTML reports (open in a browser) and Perfetto traces (ui.perfetto.dev)"
for name in baseline fixed metrics; do
  capture=${!name}
  "$gpuscope" report "$capture" --format html -o "$out/bsr_$name.html"
  "$gpuscope" export "$capture" --format perfetto -f -o "$out/bsr_$name.perfetto-trace"
  echo "   $name: $out/bsr_$name.html  $out/bsr_$name.perfetto-trace"
done
"$gpuscope" diff "$baseline" "$fixed" --format html -o "$out/bsr_diff.html"
echo "   baseline vs fixed: $out/bsr_diff.html"

echo
echo "######## Another profiler's file: a torch.profiler trace of an MLP training loop (tests/data/kineto, H100)"
trace="$here/tests/data/kineto/mlp_train.json.gz"
"$gpuscope" report "$trace" --top 5
"$gpuscope" report "$trace" --format html -o "$out/mlp_train.html"
echo "   torch.profiler trace as a page: $out/mlp_train.html"
