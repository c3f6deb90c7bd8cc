#!/usr/bin/env bash
# The C++ and CUDA sources in the style of .clang-format (clang-format 14, Debian's clang-format-14):
#   scripts/format.sh --check  lists the files that differ from it and exits 1 if any does (CI's
#                              step after the set-up, .ci/run; 5 s); nothing is changed
#   scripts/format.sh --fix    rewrites those files in place (`make format`)
# Files: every .cpp/.h/.hpp/.cu/.cuh git tracks or would (not ignored), or the ones given after the option.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
case $mode in
  --check | --fix) shift ;;
  *) echo "usage: scripts/format.sh --check|--fix [FILE...]" >&2; exit 2 ;;
esac
clang_format=${CLANG_FORMAT:-}
if [ -z "$clang_format" ]; then
  for candidate in clang-format-14 clang-format; do
    command -v "$candidate" >/dev/null && { clang_format=$candidate; break; }
  done
fi
[ -n "$clang_format" ] || { echo "format: needs clang-format 14 (apt-get install clang-format-14)" >&2; exit 2; }

files=("$@")
[ ${#files[@]} -gt 0 ] || mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.cpp' '*.h' '*.hpp' '*.cu' '*.cuh')

if [ "$mode" = --fix ]; then
  printf '%s\0' "${files[@]}" | xargs -0 -n 32 -P "$(nproc)" "$clang_format" -i --style=file
  exit 0
fi
# --check: clang-format --dry-run -Werror over batches of 32 files; each difference is a warning
# "FILE:LINE:COL: error: code should be clang-formatted", from which the files are named. A failure
# that names no file (clang-format itself broken) is an error, never a pass.
status=0
out=$(printf '%s\0' "${files[@]}" |
  xargs -0 -n 32 -P "$(nproc)" "$clang_format" --dry-run -Werror --style=file 2>&1 >/dev/null) || status=$?
differ=$(sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' <<<"$out" | sort -u)
if [ "$status" -ne 0 ] && [ -z "$differ" ]; then
  echo "format: $clang_format failed: $(head -n 3 <<<"$out")" >&2
  exit 2
fi
if [ -n "$differ" ]; then
  echo "format: $(wc -l <<<"$differ") files differ from .clang-format (scripts/format.sh --fix rewrites them):"
  echo "$differ"
  exit 1
fi
echo "format: ${#files[@]} files as .clang-format has them"
