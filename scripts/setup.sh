#!/usr/bin/env bash
# Installs the Debian packages gpuscope builds with, if any are missing.
# The CUDA 13 toolkit (/usr/local/cuda) is optional: without it, the capture
# library and the samples are skipped and everything else still builds.
set -euo pipefail
packages=(cmake ninja-build g++ make libsqlite3-dev libcli11-dev libfmt-dev
          nlohmann-json3-dev libgtest-dev libtomlplusplus-dev zlib1g-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "setup: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
