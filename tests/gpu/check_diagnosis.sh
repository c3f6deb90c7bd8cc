#!/usr/bin/env bash
# The diagnosis benchmark's shortest rows on a real GPU (docs/diagnosis.md): each planted program
# and its fixed twin once untraced, the planted one profiled with the default capture; its #1
# finding must name the planted cause. On two or more GPUs also the DDP compute straggler under
# torchrun: straggler first, its cause "more kernels" within 10 % of the plant's GPU time by CUDA
# events. Exit 77 (CTest: skipped) without a GPU or without PyTorch; the 2-GPU part says it skips.
#
#   tests/gpu/check_diagnosis.sh BUILD_DIR [LOG_DIR]
set -u
build=$(cd "${1:?usage: check_diagnosis.sh BUILD_DIR [LOG_DIR]}" && pwd)
logs=${2:-$(mktemp -d)}
mkdir -p "$logs" && logs=$(cd "$logs" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
bench=$here/../../bench/diagnosis
. "$here/lib.sh"
require_gpu_build "$build"
if ! python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  echo "SKIP: no PyTorch with CUDA for python3; the diagnosis workloads are PyTorch programs"
  exit 77
fi
echo "GPU: $(gpu_name)"
failed=0
# rows OUTDIR NAME...: each row's verdict must start with "right" and not be "wrong"; causes too.
rows() {
  local out=$1; shift
  python3 "$bench/score.py" "$out" >"$out/score.txt" 2>&1 || { echo "FAIL score.py: $(tail -1 "$out/score.txt")"; return 1; }
  python3 - "$out/score.txt" "$@" <<'PY'
import sys
text, names = open(sys.argv[1]).read().splitlines(), sys.argv[2:]
bad = 0
for name in names:
    # The main table's row (10 cells) and the straggler-cause row (7 cells) end with a verdict.
    cells = [c for c in (l.split("|") for l in text if l.startswith("| %s |" % name)) if len(c) in (12, 9)]
    for row in cells:
        verdict = row[-2].strip()
        ok = verdict.startswith("right")
        print("%s %s: %s" % ("PASS" if ok else "FAIL", name, verdict))
        bad += not ok
    if not cells:
        print("FAIL %s: no row" % name)
        bad += 1
sys.exit(1 if bad else 0)
PY
}

one=$logs/one_gpu
"$bench/run.sh" "$build" "$one" --gpus 1 --only fp32_gemm,pageable_input --reps 1 --pytorch-level none \
  --profile-planted-only >"$logs/one_gpu.log" 2>&1
rows "$one" fp32_gemm pageable_input || failed=1

count=$(nvidia-smi -L | grep -c '^GPU')
if [ "$count" -ge 2 ] && command -v torchrun >/dev/null; then
  two=$logs/two_gpus
  "$bench/run.sh" "$build" "$two" --gpus 2 --only ddp_compute_straggler --reps 1 --pytorch-level none \
    --profile-planted-only >"$logs/two_gpus.log" 2>&1
  rows "$two" ddp_compute_straggler || failed=1
else
  echo "SKIP the 2-GPU part (DDP straggler): $count GPU(s) visible, or no torchrun"
fi
echo "logs: $logs"
exit $failed
