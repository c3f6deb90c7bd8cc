#!/usr/bin/env bash
# The browser tests (ctest browser_tests): node's test runner drives Debian's chromium headless
# through puppeteer-core over the HTML pages of gpuscope report / diff.
#   tests/browser/run_browser_tests.sh GPUSCOPE GPUSCOPE_SYNTH OUT_DIR [TEST_FILE...]
# Pages, synthetic captures (the 1M-launch one is made once) and screenshots go to OUT_DIR.
# Exit 77 (skipped) with one line when chromium, node or the npm packages are missing
# (scripts/setup.sh installs them).
set -uo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 GPUSCOPE GPUSCOPE_SYNTH OUT_DIR [TEST_FILE...]" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
export GPUSCOPE="$1" GPUSCOPE_SYNTH="$2" GPUSCOPE_BROWSER_OUT="$3"
shift 3
export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  echo "browser tests skipped: no chromium at $CHROMIUM (scripts/setup.sh installs it)"
  exit 77
fi
if ! command -v node >/dev/null || [ ! -d "$here/node_modules/puppeteer-core" ]; then
  echo "browser tests skipped: node or tests/browser/node_modules missing (scripts/setup.sh installs them)"
  exit 77
fi
mkdir -p "$GPUSCOPE_BROWSER_OUT"
files=("$@")
[ ${#files[@]} -eq 0 ] && files=("$here"/*.test.mjs)
# One file at a time: each starts its own chromium, and the 1M-launch page wants the machine.
status=0
for f in "${files[@]}"; do
  node --test "$f" || status=1
done
exit $status
