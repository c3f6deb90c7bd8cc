#!/usr/bin/env bash
# The C++ and CUDA sources in the style of .clang-format (clang-format 14, Debian's clang-format-14):
#   scripts/format.sh --check  lists the files that differ from it and exits 1 if any does (CI's
#                              first step, .ci/run); nothing is changed
#   scripts/format.sh --fix    rewrites those files in place (`make format`)
# Files: every tracked .cpp/.h/.hpp/.cu/.cuh (git ls-files), or the ones given after the option.
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
[ ${#files[@]} -gt 0 ] || mapfile -t files < <(git ls-files -- '*.cpp' '*.h' '*.hpp' '*.cu' '*.cuh')

if [ "$mode" = --fix ]; then
  printf '%s\0' "${files[@]}" | xargs -0 -n 32 -P "$(nproc)" "$clang_format" -i --style=file
  exit 0
fi
# --check: one clang-format --dry-run -Werror per file (exit 1 where it differs), printing the name
# of each file that differs (one short line per write, so parallel runs do not mix their output).
differ=$(printf '%s\0' "${files[@]}" |
  CLANG_FORMAT=$clang_format xargs -0 -n 1 -P "$(nproc)" sh -c \
    '"$CLANG_FORMAT" --dry-run -Werror --style=file "$1" >/dev/null 2>&1 || echo "$1"' check | sort)
if [ -n "$differ" ]; then
  echo "format: $(wc -l <<<"$differ") files differ from .clang-format (scripts/format.sh --fix rewrites them):"
  echo "$differ"
  exit 1
fi
echo "format: ${#files[@]} files as .clang-format has them"
