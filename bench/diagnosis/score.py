#!/usr/bin/env python3
"""Scores a diagnosis benchmark run (bench/diagnosis/run.sh): for every workload, the planted
run's #1 ranked finding against the expected rule, and its estimated saving per step against the
measured planted - fixed step-time difference. Writes OUTDIR/table.md and prints it.

    python3 bench/diagnosis/score.py OUTDIR [--card NAME] [--workloads workloads.json]

Per step: a finding's saving is over the judged window (steps 2..N of the planted capture,
docs/rules.md), so the estimate per step is saving / (N - 1). Measured: the median over the
untraced reps of each run's median block time, planted minus fixed; in brackets the same from
the fastest blocks. Verdicts: "right" (expected rule ranked first, estimate within 0.75-1.25 of
the measured difference), "right cause, estimate off", "wrong #1"; for the control ("none"):
right when no finding with a time estimate saves more than 2 % of a step. For the straggler
workloads, also the Ranks section's likely cause: its kind and ms per step against the planted
amount the planted run printed (expected_cause in workloads.json), right within 10 %.
Standard library only.
"""
import argparse
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RATIO_LOW, RATIO_HIGH = 0.75, 1.25
NONE_THRESHOLD_PERCENT = 2.0
SMALL_PLANT_PERCENT = 10.0  # a measured difference below this share of the fixed step is noise-prone


def section(report, key):
    return next((s for s in report.get("sections", []) if s.get("key") == key), None)


def line_value(sec, key):
    if not sec:
        return None
    return next((l.get("value") for l in sec.get("lines", []) if l.get("key") == key), None)


def table(sec, key):
    if not sec:
        return None
    return next((t for t in sec.get("tables", []) if t.get("key") == key), None)


def ranked_findings(report):
    """The Recommendations ranking as dicts (rank, rule, saving ns or None, steady_percent, title)."""
    t = table(section(report, "recommendations"), "recommendations")
    return sorted(t["rows"], key=lambda r: r.get("rank", 0)) if t else []


def judged_steps(report):
    """Steps in the window the savings were judged over: 2..N, so N - 1; None when unknown."""
    judged = line_value(section(report, "recommendations"), "judged")
    m = re.search(r"steps 2\D(\d+)", judged or "")
    if m:
        return int(m.group(1)) - 1
    steady = line_value(section(report, "steps"), "steady_steps")
    if steady:
        return int(steady)
    count = line_value(section(report, "steps"), "count")
    return int(count) - 1 if count and count > 1 else None


def per_step_ms(finding, steps):
    if finding.get("saving") is None or not steps:
        return None
    return finding["saving"] / 1e6 / steps


def load_timings(outdir):
    """{(workload, variant): [untraced rows]}, {(workload, variant): traced row}."""
    untraced, traced = {}, {}
    path = os.path.join(outdir, "timings.jsonl")
    if not os.path.exists(path):
        return untraced, traced
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        row = json.loads(line)
        key = (row.get("workload"), row.get("variant"))
        if row.get("traced"):
            traced[key] = row
        else:
            untraced.setdefault(key, []).append(row)
    return untraced, traced


def measured(untraced, name):
    """(planted ms, fixed ms, diff median, diff min) from the untraced reps, or a reason string."""
    p = [r for r in untraced.get((name, "planted"), []) if "step_ms_median" in r]
    f = [r for r in untraced.get((name, "fixed"), []) if "step_ms_median" in r]
    skipped = [r["skipped"] for r in untraced.get((name, "planted"), []) if "skipped" in r]
    if skipped:
        return "skipped: " + skipped[0]
    if not p:
        return "no planted timing"
    planted = statistics.median(r["step_ms_median"] for r in p)
    if not f:
        return planted, None, None, None
    fixed = statistics.median(r["step_ms_median"] for r in f)
    diff_min = min(r["step_ms_min"] for r in p) - min(r["step_ms_min"] for r in f)
    return planted, fixed, planted - fixed, diff_min


def judge(workload, report, timing):
    """One table row's cells (dict) for a workload."""
    name, expected = workload["name"], workload["expected_rule"]
    row = {"workload": name, "planted": workload["planted"], "expected": expected,
           "top": "-", "estimate": None, "measured": None, "measured_min": None, "ratio": None,
           "planted_ms": None, "fixed_ms": None, "rank": "-", "verdict": ""}
    if isinstance(timing, str):
        row["verdict"] = timing
        return row
    row["planted_ms"], row["fixed_ms"], row["measured"], row["measured_min"] = timing
    if report is None:
        row["verdict"] = "no report"
        return row
    findings = ranked_findings(report)
    steps = judged_steps(report)
    timed = [f for f in findings if f.get("saving") is not None]
    if findings:
        top = findings[0]
        row["top"] = "%s: %s" % (top["rule"], top.get("title", ""))
        row["estimate"] = per_step_ms(top, steps)
    if expected == "none":
        def percent_of_step(f):
            if f.get("steady_percent") is not None:
                return f["steady_percent"]
            est = per_step_ms(f, steps)
            return 100.0 * est / row["planted_ms"] if est is not None and row["planted_ms"] else None
        over = [(f, percent_of_step(f)) for f in timed]
        over = [(f, p) for f, p in over if p is not None and p > NONE_THRESHOLD_PERCENT]
        row["verdict"] = "right" if not over else "wrong #1 (%s saves %.1f%% of a step)" % (
            over[0][0]["rule"], over[0][1])
        return row
    ranks = [f.get("rank") for f in findings if f.get("rule") == expected]
    if ranks:
        row["rank"] = str(ranks[0])
    if not findings:
        row["verdict"] = "wrong #1 (nothing ranked)"
    elif findings[0]["rule"] != expected:
        row["verdict"] = "wrong #1 (%s ranked first)" % findings[0]["rule"]
    else:
        if row["estimate"] is not None and row["measured"]:
            row["ratio"] = row["estimate"] / row["measured"]
        ok = row["ratio"] is not None and RATIO_LOW <= row["ratio"] <= RATIO_HIGH
        row["verdict"] = "right" if ok else "right cause, estimate off"
    if row["measured"] is not None and row["fixed_ms"] and \
            row["measured"] < SMALL_PLANT_PERCENT / 100 * row["fixed_ms"]:
        row["verdict"] += "; plant costs < %d%% of a step" % SMALL_PLANT_PERCENT
    return row


# The ms figure of each straggler cause's text (straggler_cause.cpp).
CAUSE_MS = {"host gaps": r"host gaps: \+([0-9.]+) ms", "more kernels": r"([0-9.]+) ms of GPU time",
            "slower kernels": r"slower kernels: \+([0-9.]+) ms"}
CAUSE_TOLERANCE = 0.10


def judge_cause(workload, report, untraced):
    """For a straggler workload: the report's likely cause and its ms per step against the
    planted amount the planted run printed (e.g. monitor_ms, the plant's GPU time by CUDA
    events). None for other workloads."""
    want = workload.get("expected_cause")
    if not want:
        return None
    row = {"workload": workload["name"], "expected": want["kind"], "kind": "-", "ms": None,
           "reference": None, "ratio": None, "verdict": "no report"}
    refs = [r[want["reference"]] for r in untraced.get((workload["name"], "planted"), [])
            if r.get(want["reference"])]
    row["reference"] = statistics.median(refs) if refs else None
    ranks = section(report, "ranks") if report else None
    kind = next((l for l in (ranks or {}).get("lines", []) if l.get("key") == "straggler_cause"), None)
    if kind is None:
        return row
    row["kind"] = kind.get("value") or "-"
    m = re.search(CAUSE_MS.get(row["kind"], r"$^"), kind.get("note") or "")
    row["ms"] = float(m.group(1)) if m else None
    if row["ms"] is not None and row["reference"]:
        row["ratio"] = row["ms"] / row["reference"]
    ok = row["kind"] == want["kind"] and row["ratio"] is not None and abs(row["ratio"] - 1) <= CAUSE_TOLERANCE
    row["verdict"] = "right" if ok else ("wrong cause" if row["kind"] != want["kind"] else "amount off")
    return row


def cause_lines(causes):
    if not causes:
        return []
    out = ["", "Straggler's likely cause against the planted amount (right: the expected kind, within "
           "%d %%):" % round(CAUSE_TOLERANCE * 100), "",
           "| workload | expected | cause | ms/step | planted ms/step | ratio | verdict |",
           "| --- | --- | --- | ---: | ---: | ---: | --- |"]
    for c in causes:
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            c["workload"], c["expected"], c["kind"], fmt_ms(c["ms"], 1), fmt_ms(c["reference"]),
            fmt_ms(c["ratio"]), c["verdict"]))
    return out


def fmt_ms(x, digits=2):
    return "-" if x is None else "%.*f" % (digits, x)


def traced_lines(rows, traced):
    """How much profiling slowed each planted run: estimates come from the traced run, so a
    large slow-down (e.g. --pytorch's per-op ranges on a launch-bound loop) explains a ratio."""
    out = []
    for r in rows:
        t = traced.get((r["workload"], "planted"), {})
        if t.get("step_ms_median") and r["planted_ms"]:
            out.append("| %s | %s | %s | %.2f |" % (r["workload"], fmt_ms(r["planted_ms"]),
                                                  fmt_ms(t["step_ms_median"]),
                                                  t["step_ms_median"] / r["planted_ms"]))
    if not out:
        return []
    return ["", "Planted step time untraced vs under gpuscope profile (median ms):", "",
            "| workload | untraced | traced | traced / untraced |", "| --- | ---: | ---: | ---: |"] + out


def markdown(rows, card, traced=None, causes=None):
    out = ["Card: %s" % (card or "unknown"), "",
           "| workload | planted cause | expected | #1 finding | est. ms/step | measured ms/step "
           "median (min) | est./meas. | planted / fixed ms | expected's rank | verdict |",
           "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in rows:
        cells = [r["workload"], r["planted"], r["expected"], r["top"], fmt_ms(r["estimate"]),
                 "%s (%s)" % (fmt_ms(r["measured"]), fmt_ms(r["measured_min"])),
                 fmt_ms(r["ratio"]), "%s / %s" % (fmt_ms(r["planted_ms"]), fmt_ms(r["fixed_ms"])),
                 r["rank"], r["verdict"]]
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    right = sum(1 for r in rows if r["verdict"].startswith("right") and "off" not in r["verdict"])
    out += ["", "%d of %d right." % (right, len(rows))]
    out += cause_lines(causes or [])
    out += traced_lines(rows, traced or {})
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("--card", help="the GPU, for the table's header (default: from the timings)")
    parser.add_argument("--workloads", default=os.path.join(HERE, "workloads.json"))
    args = parser.parse_args()
    workloads = json.load(open(args.workloads))["workloads"]
    untraced, traced = load_timings(args.outdir)
    rows, causes = [], []
    for w in workloads:
        path = os.path.join(args.outdir, w["name"] + ".report.json")
        ran = any(k[0] == w["name"] for k in list(untraced) + list(traced)) or os.path.exists(path)
        if not ran:
            continue  # not part of this run (other GPU count, --only)
        report = json.load(open(path)) if os.path.exists(path) else None
        rows.append(judge(w, report, measured(untraced, w["name"])))
        cause = judge_cause(w, report, untraced)
        if cause:
            causes.append(cause)
    card = args.card or next((r.get("device") for rs in untraced.values() for r in rs
                              if r.get("device")), None)
    text = markdown(rows, card, traced, causes)
    with open(os.path.join(args.outdir, "table.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
