#!/usr/bin/env bash
# Installs the Debian packages gpuscope builds and tests with, if any are missing, and the browser
# tests' npm packages (tests/browser/node_modules) if they are missing or older than the lock file.
# The CUDA 13 toolkit (/usr/local/cuda) is optional: without it, the capture
# library and the samples are skipped and everything else still builds.
# Quiet when everything is present; without npm's registry the browser tests skip.
set -euo pipefail
cd "$(dirname "$0")/.."
# chromium: the browser tests drive it headless; protobuf-compiler: the export tests decode
# Perfetto traces with protoc --decode_raw; python3, python3-pandas: the Python reader's tests
# (tests/python), DataFrames included; ccache: the Makefile and scripts/sanitize.sh compile through
# it; clang-format-14: scripts/format.sh (CI's format check).
packages=(cmake ninja-build g++ make libsqlite3-dev libcli11-dev libfmt-dev
          nlohmann-json3-dev libgtest-dev libtomlplusplus-dev zlib1g-dev
          chromium protobuf-compiler python3 python3-pandas ccache clang-format-14)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node may come from elsewhere (NodeSource's nodejs bundles npm); Debian's only where it is absent.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# npm's hidden lock file (node_modules/.package-lock.json) is written by every install: a lock
# file newer than it means the packages changed since.
browser=tests/browser
if [ ! -f "$browser/node_modules/.package-lock.json" ] ||
   [ "$browser/package-lock.json" -nt "$browser/node_modules/.package-lock.json" ]; then
  # npm's own timeouts are per request: a registry that answers slowly could hold the set-up for
  # hours over a package tree, so the whole install has 10 minutes (19 s here on 2026-11-29).
  if (cd "$browser" && PUPPETEER_SKIP_DOWNLOAD=1 timeout 600 npm ci --no-audit --no-fund --loglevel=error \
        --fetch-retries=1 --fetch-timeout=60000 >/dev/null 2>&1); then
    echo "setup: installed the browser tests' npm packages ($browser/node_modules)"
  else
    rm -rf "$browser/node_modules"
    echo "setup: npm ci in $browser failed or ran past 10 minutes (is the npm registry reachable?); the browser tests will skip"
  fi
fi
