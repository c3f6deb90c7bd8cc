#!/usr/bin/env bash
# The HTML report's benchmarks on a 1M-launch synthetic launch storm (bench/README.md):
#   1. build/bench/timeline_bench: layout, HTML report and exports, in memory (CPU-only);
#   2. `gpuscope report --format html` of the same storm from its capture file: wall time, size;
#   3. tests/browser/bench_paint.mjs: that page in headless chromium, first paint and redraws.
#   bench/html_bench.sh BUILD
# The capture is build/browser/storm_1m.gpuscope, shared with the browser tests (made once).
set -euo pipefail
build="${1:?usage: bench/html_bench.sh BUILD}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
for binary in bench/timeline_bench gpuscope gpuscope_synth; do
  [ -x "$build/$binary" ] || { echo "html_bench: $build/$binary missing (cmake --build $build)" >&2; exit 2; }
done

echo "## timeline_bench"
"$build/bench/timeline_bench"

echo
echo "## gpuscope report --format html, 1M launches"
mkdir -p "$build/browser"
capture="$build/browser/storm_1m.gpuscope"
[ "$capture" -nt "$build/gpuscope_synth" ] || "$build/gpuscope_synth" -o "$capture" --launches 1000000
html="$build/bench/storm_1m.html"
begin=$(date +%s.%N)
if ! "$build/gpuscope" report "$capture" --format html -o "$html"; then
  echo "skipped: gpuscope report --format html failed (is the html format there yet?)"
  exit 0
fi
end=$(date +%s.%N)
awk -v b="$begin" -v e="$end" -v s="$(stat -c %s "$html")" \
  'BEGIN { printf "wall time %.2f s (reading the capture included), %.1f MB\n", e - b, s / 1e6 }'

echo
echo "## bench_paint.mjs, headless chromium"
if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ] || [ ! -d "$repo/tests/browser/node_modules/puppeteer-core" ]; then
  echo "skipped: chromium or tests/browser/node_modules missing (scripts/setup.sh)"
  exit 0
fi
GPUSCOPE_BROWSER_OUT="$build/browser" node "$repo/tests/browser/bench_paint.mjs" "$html"
