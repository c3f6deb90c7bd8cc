#!/usr/bin/env python3
"""gpuscope's Source section against Nsight Compute's source page, kernel by kernel.

    bench/source_vs_ncu.py GPUSCOPE_JSON NCU_SASS_CSV

GPUSCOPE_JSON: `gpuscope report CAPTURE --format json --top 0` of a `profile --source` run.
NCU_SASS_CSV: `ncu --import REPORT --page source --csv --print-source sass` of the same kernels
(bench/source_cost.sh makes both). ncu's addresses become offsets from each kernel's first
instruction; its samples are summed per source line through gpuscope's PC -> line mapping (the
same cubin). For the 10 hottest lines and PCs of each kernel (by gpuscope's samples) it prints
the share of the kernel's samples in each tool; for the row's top stall reason in gpuscope, the
share of the kernel's samples that are that reason on that row (what the issue's 5-point bound is
about: where the kernel's warps wait) and, for information, that reason's share of the row's own
samples (only where both have 1,000 samples or more of the row). Then the largest difference of
each, in percentage points. Exit 1 when a share of the kernel's samples differs by over 5 points.
"""
import csv
import json
import re
import sys

# ncu's source-page column -> the stall reason as gpuscope (and CUPTI's PC sampling) names it.
NCU_REASONS = {
    "stall_barrier": "barrier", "stall_branch_resolving": "branch_resolving", "stall_dispatch": "dispatch_stall",
    "stall_drain": "drain", "stall_imc": "imc_miss", "stall_lg": "lg_throttle", "stall_long_sb": "long_scoreboard",
    "stall_math": "math_pipe_throttle", "stall_membar": "membar", "stall_mio": "mio_throttle", "stall_misc": "misc",
    "stall_no_inst": "no_instructions", "stall_not_selected": "not_selected", "stall_selected": "selected",
    "stall_short_sb": "short_scoreboard", "stall_sleep": "sleeping", "stall_tex": "tex_throttle", "stall_wait": "wait",
    "stall_warpgroup_arrive": "warpgroup_arrive",
}
LIMIT = 5.0  # percentage points
# A stall reason's share of a line or PC is compared only where both tools have this many samples of
# it: the share of 5 samples is noise in either tool.
MIN_SAMPLES = 1000


def kernel_key(name):
    """A kernel's name without its return type, parameters or template casts: how each tool
    spells a signature differs ("float const*" / "const float *", "<0>" / "<(int)0>")."""
    name = re.sub(r"\((?:unsigned )?(?:int|long|char|bool|short)\)", "", name)
    name = re.sub(r"^void ", "", name.strip())
    return name.split("(")[0]


def number(text):
    try:
        return float(text)
    except ValueError:
        return 0.0


def read_ncu(path):
    """kernel name (before the parenthesis) -> {offset: (samples, {reason: samples})}."""
    kernels, header, kernel, base = {}, None, None, None
    for row in csv.reader(open(path)):
        if row and row[0] == "Kernel Name":
            kernel, header, base = kernel_key(row[1]), None, None
        elif row and row[0] == "Address":
            header = row
        elif header and kernel and row:
            address = int(row[0], 16)
            base = address if base is None else base
            cells = dict(zip(header, row))
            reasons = {NCU_REASONS[c]: number(cells[c]) for c in NCU_REASONS if c in cells}
            kernels.setdefault(kernel, {})[address - base] = (number(cells["Warp Stall Sampling (All Samples)"]), reasons)
    return kernels


def source_tables(report):
    section = next(s for s in report["sections"] if s["key"] == "source")
    by_kernel = {}
    for table in section["tables"]:
        for prefix, kind in (("Hottest lines of ", "lines"), ("Hottest instructions of ", "pcs")):
            if table["title"].startswith(prefix):
                name = table["title"][len(prefix):]
                by_kernel.setdefault(kernel_key(name), {})[kind] = table["rows"]
    return by_kernel


def main():
    report, ncu = json.load(open(sys.argv[1])), read_ncu(sys.argv[2])
    worst = worst_row = 0.0
    for kernel, tables in source_tables(report).items():
        if kernel not in ncu:
            print(f"{kernel}: not in ncu's report")
            continue
        pcs = ncu[kernel]
        total = sum(samples for samples, _ in pcs.values()) or 1
        line_of = {int(r["pc"], 16): r["line"] for r in tables.get("pcs", [])}
        by_line = {}
        for offset, (samples, reasons) in pcs.items():
            line = by_line.setdefault(line_of.get(offset, "?"), [0.0, {}])
            line[0] += samples
            for reason, n in reasons.items():
                line[1][reason] = line[1].get(reason, 0.0) + n
        print(f"{kernel}: ncu {total:.0f} samples")
        for kind, rows in (("line", tables.get("lines", [])), ("pc", tables.get("pcs", []))):
            share_diff = reason_diff = stall_diff = 0.0
            for r in rows[:10]:
                if kind == "line":
                    samples, reasons = by_line.get(r["line"], (0.0, {}))
                    place = r["line"]
                else:
                    samples, reasons = pcs.get(int(r["pc"], 16), (0.0, {}))
                    place = f'{r["pc"]} {r["line"]}'
                share = 100 * samples / total
                top = r["top_stall_percent"] or 0.0
                reason_share = 100 * reasons.get(r["top_stall"], 0.0) / total  # of the kernel's samples
                stall = 100 * reasons.get(r["top_stall"], 0.0) / samples if samples else 0.0
                share_diff = max(share_diff, abs(share - r["share"]))
                reason_diff = max(reason_diff, abs(reason_share - r["share"] * top / 100))
                enough = min(samples, r["samples"]) >= MIN_SAMPLES
                if enough:
                    stall_diff = max(stall_diff, abs(stall - top))
                print(f"  {kind:4} {place:32} share {r['share']:6.2f}% ncu {share:6.2f}%   "
                      f"{r['top_stall']} {r['share'] * top / 100:6.2f}% ncu {reason_share:6.2f}% of the kernel, "
                      f"{top:6.2f}% ncu {stall:6.2f}% of the row"
                      + ("" if enough else " (few samples: not compared)"))
            print(f"  top {min(10, len(rows))} {kind}s: largest difference {share_diff:.2f} points in share, "
                  f"{reason_diff:.2f} in the top stall's share of the kernel; {stall_diff:.2f} in its share of the row")
            worst = max(worst, share_diff, reason_diff)
            worst_row = max(worst_row, stall_diff)
    print(f"largest difference: {worst:.2f} percentage points of a kernel's samples (limit {LIMIT}); "
          f"{worst_row:.2f} points of a row's own samples")
    return 0 if worst <= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
