#!/usr/bin/env python3
"""The checks of tests/gpu/check_source.sh on its logs: each prints PASS or FAIL lines.

    check_source.py hotspots LOGS SAMPLES/source_hotspots.cu
    check_source.py flash LOGS SAMPLES/flash_attention.cu

Exit 1 when a check fails.
"""
import json
import re
import shutil
import sys

bad = 0


def check(name, ok, detail):
    global bad
    print(("PASS " if ok else "FAIL ") + name + " (" + detail + ")")
    bad += not ok


def hotspots(logs, source):
    out = open(f"{logs}/profile.out").read()
    check("the program's result is unchanged", "check=ok" in out, re.search(r"RESULT .*", out).group(0) if "RESULT" in out else "no RESULT line")
    planted = {}
    for number, line in enumerate(open(source), 1):
        m = re.search(r"PLANTED\((\w+)\)", line)
        if m: planted[m.group(1)] = number
    report = json.load(open(f"{logs}/hot.json"))
    section = next((s for s in report["sections"] if s["key"] == "source"), None)
    check("the report has a Source section", section is not None, "sections: " + ", ".join(s["key"] for s in report["sections"]))
    if section is None:
        return
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


def flash(logs, source):
    planted = {m.group(1): n for n, line in enumerate(open(source), 1) if (m := re.search(r"// PLANTED\((\w+)\)", line))}
    want = {f"flash_attention.cu:{planted[c]}" for c in ("qk", "pv")}
    BANK = {"mio_throttle", "short_scoreboard"}
    runs = {}
    for layout in ("naive", "padded"):
        out = open(f"{logs}/flash_{layout}.out").read()
        m = re.search(r"RESULT .*kernel_ms=([\d.]+) check=(\w+)", out)
        check(f"{layout}: the program's result is unchanged", bool(m) and m.group(2) == "ok", m.group(0) if m else "no RESULT line")
        report = json.load(open(f"{logs}/flash_{layout}.json"))
        sections = {s["key"]: s for s in report["sections"]}
        tables = lambda key, section: [t for t in sections.get(section, {"tables": []})["tables"] if t["key"] == key]
        lines = (tables("source_lines", "source") or [{"rows": []}])[0]["rows"]
        ranked = (tables("recommendations", "recommendations") or [{"rows": []}])[0]["rows"]
        kernel_ns = sum(r["total"] for r in (tables("kernel_time", "kernels") or [{"rows": []}])[0]["rows"] if "flash_forward" in r["name"])
        runs[layout] = {"lines": lines, "ranked": ranked, "kernel_ns": kernel_ns, "sections": sections,
                        "finding": (tables("finding_hot_source_line", "recommendations") or [None])[0]}
    naive, padded = runs["naive"], runs["padded"]
    top2 = {r["line"] for r in naive["lines"][:2]}
    check("naive: the planted lines are the two hottest", top2 == want,
          "; ".join(f"{r['line']} {r['share']:.1f}%" for r in naive["lines"][:3]) + f"; planted {sorted(want)}")
    check("naive: with a shared-memory stall", all(r["top_stall"] in BANK for r in naive["lines"][:2]),
          ", ".join(f"{r['top_stall']} {r['top_stall_percent']:.1f}%" for r in naive["lines"][:2]))
    first = naive["ranked"][0] if naive["ranked"] else {}
    check("naive: the first finding is hot_source_line", first.get("rule") == "hot_source_line",
          "; ".join(f"{r['rule']} {(r['saving'] or 0) / 1e6:.1f} ms" for r in naive["ranked"][:3]))
    notes = naive["finding"]["notes"] if naive["finding"] else []
    check("naive: the finding names both planted lines", all(any(w in n for n in notes) for w in want), notes[0] if notes else "no finding")
    measured = naive["kernel_ns"] - padded["kernel_ns"]
    estimate = next((r["saving"] or 0 for r in naive["ranked"] if r["rule"] == "hot_source_line"), 0)
    check("naive: the estimated saving is within 25% of the twin's", measured > 0 and abs(estimate / measured - 1) <= 0.25,
          f"estimated {estimate / 1e6:.1f} ms, measured {measured / 1e6:.1f} ms ({naive['kernel_ns'] / 1e6:.1f} -> "
          f"{padded['kernel_ns'] / 1e6:.1f} ms of flash_forward), ratio {estimate / measured if measured else 0:.2f}")
    def bank_share(run):  # % of the planted lines' samples with a shared-memory stall
        rows = [r for r in run["lines"] if r["line"] in want]
        total = sum(r["samples"] for r in rows)
        stalls = sum(r["samples"] * r["top_stall_percent"] / 100 for r in rows if r["top_stall"] in BANK)
        return 100 * stalls / total if total else 0
    before, after = bank_share(naive), bank_share(padded)
    check("padded twin: the lines' shared-memory stalls are gone", after < before / 4, f"{before:.1f}% -> {after:.1f}% of their samples")

    diff = json.load(open(f"{logs}/flash_diff.json"))
    section = next((s for s in diff["sections"] if s["key"] == "source_lines"), {"tables": []})
    rows = section["tables"][0]["rows"] if section["tables"] else []
    check("diff: the planted lines changed most, each cheaper", {r["line"] for r in rows[:2]} == want and
          all(r["change"] < 0 for r in rows[:2]),
          "; ".join(f"{r['line']} {r['base'] / 1e6:.1f} -> {r['new'] / 1e6:.1f} ms" for r in rows[:3]))


if __name__ == "__main__":
    {"hotspots": hotspots, "flash": flash}[sys.argv[1]](sys.argv[2], sys.argv[3])
    sys.exit(1 if bad else 0)
