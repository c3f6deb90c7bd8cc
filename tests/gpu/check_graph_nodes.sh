#!/usr/bin/env bash
# Kernels replayed from CUDA graphs, attributed to the code that captured them, on a real GPU:
# samples/rule_patterns --pattern launch --fixed captures 1000 launches into a graph once and
# replays it; every replayed kernel must find its node in graph_nodes, made by a captured
# cudaLaunchKernel. With PyTorch (and torch.compile working), the diagnosis benchmark's compiled
# model under torch.compile(mode="reduce-overhead"), profiled with --pytorch=ops: its replayed
# kernels must be linked to the ops that captured them. About 90 s.
#
#   tests/gpu/check_graph_nodes.sh BUILD_DIR [LOG_DIR]
#
# Exit 0 when every check passes, 1 when one fails, 77 without a GPU (CTest: skipped).
set -u
build=$(cd "${1:?usage: check_graph_nodes.sh BUILD_DIR [LOG_DIR]}" && pwd)
logs=${2:-$(mktemp -d)}
mkdir -p "$logs"
repo=$(cd "$(dirname "$0")/../.." && pwd)
gpuscope="$build/gpuscope"

. "$(dirname "$0")/lib.sh"
require_gpu_build "$build"
work=$(mktemp -d)
cd "$work" || exit 1
echo "GPU: $(gpu_name)"
echo "logs: $logs"
failed=0
"$gpuscope" profile -o launch -- "$build/samples/rule_patterns" --pattern launch --fixed >"$logs/launch.out" 2>&1 ||
  { echo "FAIL launch: profile exited non-zero (see $logs/launch.out)"; failed=1; }
"$gpuscope" export launch.gpuscope --format chrome -o launch.json >>"$logs/launch.out" 2>&1 ||
  { echo "FAIL launch: export exited non-zero"; failed=1; }
torch_ok=0
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  if "$gpuscope" profile --pytorch=ops -o compiled -- python3 "$repo/bench/diagnosis/compiled.py" --fixed --steps 60 \
      >"$logs/compiled.out" 2>&1; then
    grep -q '"skipped"' "$logs/compiled.out" || torch_ok=1
    "$gpuscope" report compiled.gpuscope --format json --top 0 >"$logs/compiled.json" 2>/dev/null || failed=1
    "$gpuscope" export compiled.gpuscope --format chrome -o compiled.trace.json >>"$logs/compiled.out" 2>&1 || failed=1
  else
    echo "FAIL compiled: profile exited non-zero (see $logs/compiled.out)"
    failed=1
  fi
else
  echo "SKIP compiled: no PyTorch with CUDA"
fi

python3 - "$logs" $torch_ok <<'PY' || failed=1
import json, sqlite3, sys
logs, torch_ok = sys.argv[1], sys.argv[2] == "1"
bad = 0
def check(name, ok, detail):
    global bad
    print(("PASS " if ok else "FAIL ") + name + " (" + detail + ")")
    bad += not ok
# Per replayed kernel: its node's row and the name of the call that made the node.
SITES = """SELECT count(*), count(n.node_id), sum(a.name = 'cudaLaunchKernel'), count(DISTINCT k.correlation_id)
           FROM kernels k LEFT JOIN graph_nodes n ON n.pid = k.pid AND n.node_id = k.graph_node_id
           LEFT JOIN api_calls_named a ON a.pid = n.pid AND a.correlation_id = n.correlation_id AND n.correlation_id != 0
           WHERE k.graph_node_id != 0"""
db = sqlite3.connect("launch.gpuscope")
kernels, with_node, by_launch, replays = db.execute(SITES).fetchone()
check("launch: the graph's kernels were replayed", kernels >= 1000 and replays >= 2, f"{kernels} kernels, {replays} replays")
check("launch: every replayed kernel has its node", with_node == kernels, f"{with_node} of {kernels}")
check("launch: made by a captured cudaLaunchKernel", by_launch == kernels, f"{by_launch or 0} of {kernels}")
# Each replay is a "cuda_graph" span in the Chrome export, one per stream its nodes ran on, from
# that stream's first node start to its last node end, with its nodes' correlation id.
NODES = """SELECT graph_id, correlation_id, stream, min(start_ns), max(end_ns), count(*) FROM (
             SELECT graph_id, correlation_id, stream, start_ns, end_ns FROM kernels WHERE graph_id != 0
             UNION ALL SELECT graph_id, correlation_id, stream, start_ns, end_ns FROM memcpys WHERE graph_id != 0
             UNION ALL SELECT graph_id, correlation_id, stream, start_ns, end_ns FROM memsets WHERE graph_id != 0)
           WHERE correlation_id != 0 AND start_ns > 0 AND end_ns >= start_ns GROUP BY 1, 2, 3"""
def check_spans(name, db, export):
    trace = json.load(open(export))
    base = trace["baseTimeNanoseconds"]
    spans = {(e["args"]["graph id"], e["args"]["correlation"], e["tid"]): e for e in trace["traceEvents"]
             if e.get("ph") == "X" and e.get("cat") == "cuda_graph"}
    expected = db.execute(NODES).fetchall()
    exact = sum(1 for g, c, stream, first, last, n in expected
                if (g, c, stream) in spans and abs(round(spans[(g, c, stream)]["ts"] * 1000) + base - first) <= 1
                and abs(round((spans[(g, c, stream)]["ts"] + spans[(g, c, stream)]["dur"]) * 1000) + base - last) <= 1)
    check(f"{name}: each replay is a span over its nodes on each stream", expected and exact == len(expected) == len(spans),
          f"{exact} of {len(expected)} replay-streams exact, {len(spans)} spans")
check_spans("launch", db, "launch.json")
if torch_ok:
    db = sqlite3.connect("compiled.gpuscope")
    kernels, with_node, by_launch, replays = db.execute(SITES).fetchone()
    check("compiled: reduce-overhead replays CUDA graphs", kernels > 0 and replays >= 10, f"{kernels} kernels, {replays} replays")
    check("compiled: every replayed kernel has its node", kernels > 0 and with_node == kernels, f"{with_node} of {kernels}")
    report = json.load(open(f"{logs}/compiled.json"))
    ops = [s for s in report["sections"] if s["key"] == "ops"]
    lines = {l["key"]: l for l in ops[0]["lines"]} if ops else {}
    share = lines.get("linked_gpu_percent", {}).get("value")
    check("compiled: GPU work linked to the ops that captured it", share is not None and share >= 90, f"{share} %")
    check_spans("compiled", db, "compiled.trace.json")
sys.exit(1 if bad else 0)
PY
exit $failed
