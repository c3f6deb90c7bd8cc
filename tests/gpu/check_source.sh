#!/usr/bin/env bash
# The Source section on a real GPU: samples/source_hotspots runs three kernels with a planted hot
# line each under `gpuscope profile --source`; in the report, each kernel's hottest line must be
# its planted line (the "PLANTED(<case>)" comment in the sample; for the barrier, the line after it,
# naming the barrier it waits at) with the stall reason the plant causes, the program's results must be unchanged, and with nvdisasm on the host the planted
# line's hottest instruction must be disassembled. About 20 s.
#
#   tests/gpu/check_source.sh BUILD_DIR [LOG_DIR]
#
# Exit 0 when every check passes, 1 when one fails, 77 without a GPU (CTest: skipped).
set -u
build=$(cd "${1:?usage: check_source.sh BUILD_DIR [LOG_DIR]}" && pwd)
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
"$build/samples/source_hotspots" >"$logs/untraced.out" 2>&1 || { echo "FAIL: the sample fails untraced"; failed=1; }
if "$gpuscope" profile --source -o hot -- "$build/samples/source_hotspots" >"$logs/profile.out" 2>&1; then
  "$gpuscope" report hot.gpuscope --format json --top 0 >"$logs/hot.json" 2>"$logs/report.err" || failed=1
  "$gpuscope" report hot.gpuscope --top 5 >"$logs/hot.txt" 2>&1 || failed=1
  cp hot.gpuscope "$logs/"
else
  echo "FAIL: profile --source exited non-zero (see $logs/profile.out)"
  failed=1
fi

python3 - "$logs" "$repo/samples/source_hotspots.cu" <<'PY' || failed=1
import json, re, shutil, sys
logs, source = sys.argv[1], sys.argv[2]
bad = 0
def check(name, ok, detail):
    global bad
    print(("PASS " if ok else "FAIL ") + name + " (" + detail + ")")
    bad += not ok
out = open(f"{logs}/profile.out").read()
check("the program's result is unchanged", "check=ok" in out, re.search(r"RESULT .*", out).group(0) if "RESULT" in out else "no RESULT line")
planted = {}
for number, line in enumerate(open(source), 1):
    m = re.search(r"PLANTED\((\w+)\)", line)
    if m: planted[m.group(1)] = number
report = json.load(open(f"{logs}/hot.json"))
section = next((s for s in report["sections"] if s["key"] == "source"), None)
check("the report has a Source section", section is not None, "sections: " + ", ".join(s["key"] for s in report["sections"]))
if section is None: sys.exit(1)
tables = {t["title"]: t for t in section["tables"]}
expected = {"barrier": ("barrier_hotspot", {"barrier"}),
            "bank": ("bank_hotspot", {"mio_throttle", "short_scoreboard", "lg_throttle"}),
            "load": ("load_hotspot", {"long_scoreboard"})}
has_nvdisasm = shutil.which("nvdisasm") or shutil.os.path.exists("/usr/local/cuda/bin/nvdisasm")
for case, (kernel, stalls) in expected.items():
    lines = next((t for title, t in tables.items() if title.startswith("Hottest lines of " + kernel)), None)
    if lines is None or not lines["rows"]:
        check(f"{case}: lines of {kernel}", False, "no line table or no rows")
        continue
    top = lines["rows"][0]
    want = f"source_hotspots.cu:{planted[case]}"
    if case == "barrier":  # sampled at the line after the barrier; the row names the barrier it waits at
        check(f"{case}: the hottest line waits at the planted barrier", top["waits_at"] == want,
              f"hottest {top['line']} with {top['share']:.1f}% of samples, waits at {top['waits_at'] or '-'}, planted {want}")
    else:
        check(f"{case}: the planted line is the hottest", top["line"] == want,
              f"hottest {top['line']} with {top['share']:.1f}% of samples, planted {want}")
    check(f"{case}: with the plant's stall reason", top["top_stall"] in stalls,
          f"{top['top_stall']} {top['top_stall_percent']:.1f}% (expected one of {sorted(stalls)})")
    if has_nvdisasm:
        sass = next((t for title, t in tables.items() if title.startswith("Hottest instructions of " + kernel)), None)
        ok = sass is not None and sass["rows"] and all(r["sass"] for r in sass["rows"][:3])
        check(f"{case}: the hottest instructions are disassembled", bool(ok),
              (sass["rows"][0]["pc"] + " " + sass["rows"][0]["sass"]) if ok else "no SASS")
sys.exit(1 if bad else 0)
PY
exit $failed
