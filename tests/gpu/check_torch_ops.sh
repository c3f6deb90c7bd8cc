#!/usr/bin/env bash
# `profile --pytorch=ops` through the RecordFunction observer, on a real GPU with PyTorch: the
# observer is built against this torch into a fresh cache (the first use, timed), then the tiny-op
# loop and the MLP training loop are profiled. Every add must be an op named aten::add_ that
# launched its kernel; the MLP's backward ops must pair with their forward ops by sequence number,
# and its GPU work must be linked to ops. A second run must take the observer from the cache.
# About 60 s.
#
#   tests/gpu/check_torch_ops.sh BUILD_DIR [LOG_DIR]
#
# Exit 0 when every check passes, 1 when one fails, 77 without a GPU or PyTorch (CTest: skipped).
set -u
build=$(cd "${1:?usage: check_torch_ops.sh BUILD_DIR [LOG_DIR]}" && pwd)
logs=${2:-$(mktemp -d)}
mkdir -p "$logs"
repo=$(cd "$(dirname "$0")/../.." && pwd)
gpuscope="$build/gpuscope"

. "$(dirname "$0")/lib.sh"
require_gpu_build "$build"
python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null || { echo "SKIP: no PyTorch with CUDA"; exit 77; }
work=$(mktemp -d)
cd "$work" || exit 1
echo "GPU: $(gpu_name)"
echo "logs: $logs"
export GPUSCOPE_CACHE_DIR=$work/cache
failed=0
profile() {  # NAME ARGS...: profile --pytorch=ops, stdout and stderr in LOG_DIR/NAME.out
  local name=$1
  shift
  "$gpuscope" profile --pytorch=ops --no-report -o "$name" -- python3 "$@" >"$logs/$name.out" 2>&1 ||
    { echo "FAIL $name: profile exited non-zero (see $logs/$name.out)"; failed=1; }
}
start=$(date +%s.%N)
profile tiny "$repo/samples/pytorch/tiny_ops.py" --ops 2000 --warmup 10
first=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }")
start=$(date +%s.%N)
profile tiny_again "$repo/samples/pytorch/tiny_ops.py" --ops 2000 --warmup 10
again=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }")
echo "first run (observer built) ${first} s, second (cached) ${again} s"
profile mlp "$repo/samples/pytorch/mlp_train.py" --steps 5
"$gpuscope" report mlp.gpuscope --format json --top 0 >"$logs/mlp.json" 2>/dev/null || failed=1

python3 - "$logs" <<'PY' || failed=1
import json, sqlite3, sys
logs = sys.argv[1]
bad = 0
def check(name, ok, detail):
    global bad
    print(("PASS " if ok else "FAIL ") + name + " (" + detail + ")")
    bad += not ok
for name in ("tiny", "tiny_again", "mlp"):
    text = open(f"{logs}/{name}.out").read()
    check(f"{name}: the observer, not emit_nvtx", "op observer unavailable" not in text and "disabled" not in text,
          "no fallback line on stderr")
check("tiny_again: the observer came from the cache", "building the op observer" not in open(f"{logs}/tiny_again.out").read(), "no build line")
db = sqlite3.connect("tiny.gpuscope")
source = db.execute("SELECT host_ops_source FROM run").fetchone()[0]
check("tiny: ops from the observer", source == "torch observer", repr(source))
adds = db.execute("SELECT count(*) FROM host_ops_named WHERE name = 'aten::add_'").fetchone()[0]
check("tiny: every add is an op", adds >= 2010, f"{adds} aten::add_ ops for 2,010 adds")
linked = db.execute("""SELECT count(*) FROM kernels k JOIN external_correlations x
                       ON x.pid = k.pid AND x.correlation_id = k.correlation_id""").fetchone()[0]
kernels = db.execute("SELECT count(*) FROM kernels").fetchone()[0]
check("tiny: every kernel linked to its op", kernels >= 2010 and linked == kernels, f"{linked} of {kernels}")
db = sqlite3.connect("mlp.gpuscope")
backward = db.execute("SELECT count(*) FROM host_ops_named WHERE name LIKE '%Backward%'").fetchone()[0]
paired = db.execute("""SELECT count(DISTINCT b.sequence_number) FROM host_ops_named b JOIN host_ops_named f
                       ON f.pid = b.pid AND f.sequence_number = b.sequence_number AND f.tid != b.tid
                       WHERE b.name LIKE '%Backward%' AND b.sequence_number >= 0""").fetchone()[0]
check("mlp: backward ops recorded", backward > 0, f"{backward} ops named *Backward*")
check("mlp: backward ops pair with forward ops by sequence number", paired > 0, f"{paired} sequence numbers")
report = json.load(open(f"{logs}/mlp.json"))
ops = [s for s in report["sections"] if s["key"] == "ops"]
lines = {l["key"]: l for l in ops[0]["lines"]} if ops else {}
share = lines.get("linked_gpu_percent", {}).get("value")
check("mlp: GPU work linked to ops", share is not None and share >= 95, f"{share} %")
check("mlp: the section says where its ops came from", ops and any("RecordFunction" in n for n in ops[0].get("notes", [])), "note")
sys.exit(1 if bad else 0)
PY
exit $failed
