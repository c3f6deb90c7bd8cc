#!/usr/bin/env bash
# The report's Critical path section on the planted cases of samples/critical_path.cu, on a real
# GPU: an off-path kernel saves nothing and the on-path one about its length; the blocking
# synchronization and the host work after it are on the path; a hidden copy is off the path and
# an exposed one on it. About 30 s.
#
#   tests/gpu/check_critical_path.sh BUILD_DIR [LOG_DIR]
#
# Exit 0 when every check passes, 1 when one fails, 77 without a GPU (CTest: skipped).
set -u
build=$(cd "${1:?usage: check_critical_path.sh BUILD_DIR [LOG_DIR]}" && pwd)
logs=${2:-$(mktemp -d)}
mkdir -p "$logs"
gpuscope="$build/gpuscope"
sample="$build/samples/critical_path"

. "$(dirname "$0")/lib.sh"
require_gpu_build "$build"
if [ ! -x "$sample" ]; then
  echo "SKIP: $sample not built"
  exit 77
fi

work=$(mktemp -d)
cd "$work" || exit 1
echo "GPU: $(gpu_name)"
echo "logs: $logs"
kernel_us=2000 host_us=1000
failed=0
for case in on-off sync copy-hidden copy-exposed; do
  if ! "$gpuscope" profile -o "$case" -- "$sample" --case "$case" --iters 6 --kernel-us $kernel_us \
      --host-us $host_us >"$logs/$case.out" 2>"$logs/$case.err"; then
    echo "FAIL $case: profile exited non-zero (see $logs/$case.err)"
    failed=1
    continue
  fi
  "$gpuscope" report "$case.gpuscope" --format json --top 0 >"$logs/$case.json" || failed=1
done

# Medians over the steady steps (2..N) of the section's tables; kernel names match by prefix.
python3 - "$logs" $kernel_us $host_us <<'PY' || failed=1
import json, sys
logs, kernel_ns, host_ns = sys.argv[1], int(sys.argv[2]) * 1000, int(sys.argv[3]) * 1000
bad = 0
def check(name, ok, detail):
    global bad
    print(("PASS " if ok else "FAIL ") + name + " (" + detail + ")")
    bad += not ok
def section(case):
    report = json.load(open(f"{logs}/{case}.json"))
    found = [s for s in report["sections"] if s["key"] == "critical_path"]
    check(f"{case}: Critical path section", bool(found), "present")
    return {t["key"]: t["rows"] for t in found[0]["tables"]} if found else {}
def kernel(tables, prefix):
    rows = [r for r in tables.get("critical_path_kernels", []) if r["name"].startswith(prefix)]
    return rows[0] if rows else {"gpu": 0, "on_path": 0, "lost": 0, "verdict": ""}
def kind(tables, name):
    rows = [r for r in tables.get("critical_path_kinds", []) if r["kind"] == name]
    return rows[0] if rows else {"on_path": 0, "lost": 0}

t = section("on-off")
b, c = kernel(t, "kernel_b"), kernel(t, "kernel_c")
check("on-off: kernel_b on the path", b["on_path"] >= 0.9 * kernel_ns, f"{b['on_path']} ns")
check("on-off: kernel_b saves most of its length", b["lost"] >= 0.8 * kernel_ns, f"{b['lost']} ns")
check("on-off: kernel_c saves nothing", c["lost"] <= 0.02 * kernel_ns and c["verdict"].startswith("saves nothing"),
      f"{c['lost']} ns, '{c['verdict']}'")
t = section("sync")
waits = [r for r in t.get("critical_path_segments", []) if r["kind"] == "wait" and r["name"] == "cudaStreamSynchronize"]
check("sync: cudaStreamSynchronize on the path", len(waits) >= 5, f"{len(waits)} steps")
check("sync: host work on the path", kind(t, "host work")["on_path"] >= 0.9 * host_ns, f"{kind(t, 'host work')['on_path']} ns")
t = section("copy-hidden")
check("copy-hidden: the copy is off the path", kind(t, "copy")["on_path"] <= 0.02 * kernel_ns, f"{kind(t, 'copy')['on_path']} ns")
t = section("copy-exposed")
copy = kind(t, "copy")
check("copy-exposed: the copy is on the path", copy["on_path"] >= kernel_ns, f"{copy['on_path']} ns")
# The default capture names the stream of each cudaStreamWaitEvent: one that ran kernels.
import sqlite3
db = sqlite3.connect("copy-exposed.gpuscope")  # in the work directory, where the captures are
waits = [r[0] for r in db.execute("select stream from synchronizations where sync_kind = 'stream_wait_event'")]
streams = {r[0] for r in db.execute("select distinct stream from kernels")}
check("copy-exposed: each stream wait names a stream that ran kernels", bool(waits) and all(w in streams for w in waits),
      f"waits on {sorted(set(waits))}, kernels on {sorted(streams)}")
check("copy-exposed: shortening it saves time", copy["lost"] >= 0.5 * (copy["on_path"] - kernel_ns), f"{copy['lost']} ns")
sys.exit(1 if bad else 0)
PY
exit $failed
