#!/usr/bin/env python3
"""The scale bench's CSV (bench/scale.sh) as a markdown table and a log-log SVG plot.

    bench/scale_report.py build/bench/scale.csv [--svg docs/images/scale.svg]

Table: one row per stage, seconds and peak MiB per capture size, and the growth exponent of the
time between the smallest and the largest size (1.0 = linear; log(t2/t1) / log(n2/n1)).
Plot: time (s) and peak memory (MiB) against records, log-log, for the stages a user waits on.
Plain SVG written by hand: no plotting library needed.
"""
import csv
import math
import sys
from collections import OrderedDict

# The stages drawn, with their colours (the table lists them all).
PLOTTED = OrderedDict([
    ("import spools", "#1f77b4"),
    ("write capture (SQLite)", "#ff7f0e"),
    ("read capture (SQLite)", "#2ca02c"),
    ("gpuscope report, text (after the read)", "#d62728"),
    ("render html (timeline included)", "#9467bd"),
    ("export perfetto (layout excluded)", "#8c564b"),
    ("export chrome (layout excluded)", "#e377c2"),
    ("diff (analysis + text)", "#7f7f7f"),
    ("check (3 gates, baseline included)", "#bcbd22"),
])


def load(path):
    rows = OrderedDict()  # stage -> {records: (seconds, peak, bytes)}
    for r in csv.DictReader(open(path)):
        rows.setdefault(r["stage"], {})[int(r["records"])] = (
            float(r["seconds"]), float(r["peak_mib"]), int(r["bytes"]))
    sizes = sorted({n for per in rows.values() for n in per})
    return rows, sizes


def label(n):
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.0f}K"


def table(rows, sizes):
    head = "| stage | " + " | ".join(f"{label(n)} s | {label(n)} MiB" for n in sizes) + " | time growth |"
    out = [head, "|---|" + "---:|" * (2 * len(sizes) + 1)]
    for stage, per in rows.items():
        cells = []
        for n in sizes:
            s, m, _ = per.get(n, (None, None, None))
            cells += [f"{s:.3f}" if s is not None else "", f"{m:.0f}" if m is not None else ""]
        growth = ""
        a, b = sizes[0], sizes[-1]
        if a != b and a in per and b in per and per[a][0] > 0.01 and per[b][0] > 0:
            growth = f"{math.log(per[b][0] / per[a][0]) / math.log(b / a):.2f}"
        out.append(f"| {stage} | " + " | ".join(cells) + f" | {growth} |")
    for what in ("write spools (capture's SpoolWriter)", "write capture (SQLite)"):
        if what in rows:
            per = rows[what]
            out.append("")
            out.append(f"{what}: " + ", ".join(f"{label(n)}: {per[n][2] / n:.1f} bytes/record" for n in sizes if n in per))
    return "\n".join(out)


def panel(x0, title, unit, rows, sizes, index):
    """One log-log panel at x offset x0 (index 0: seconds, 1: peak MiB); returns SVG text."""
    w, h, left, top = 420, 300, 60, 40
    values = [per[n][index] for s, per in rows.items() if s in PLOTTED for n in per if per[n][index] > 0]
    lo_y, hi_y = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    lo_x, hi_x = math.log10(sizes[0]), math.log10(sizes[-1])
    if hi_x == lo_x:
        lo_x, hi_x = lo_x - 0.5, hi_x + 0.5
    if hi_y == lo_y:
        hi_y += 1
    px = lambda n: x0 + left + (math.log10(n) - lo_x) / (hi_x - lo_x) * w
    py = lambda v: top + h - (math.log10(v) - lo_y) / (hi_y - lo_y) * h
    out = [f'<text x="{x0 + left + w / 2}" y="20" text-anchor="middle" font-weight="bold">{title}</text>',
           f'<rect x="{x0 + left}" y="{top}" width="{w}" height="{h}" fill="none" stroke="#444"/>']
    for e in range(lo_y, hi_y + 1):
        y = py(10 ** e)
        out.append(f'<line x1="{x0 + left}" y1="{y:.1f}" x2="{x0 + left + w}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{x0 + left - 6}" y="{y + 4:.1f}" text-anchor="end">{10 ** e:g}</text>')
    for n in sizes:
        x = px(n)
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + h}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{top + h + 16}" text-anchor="middle">{label(n)}</text>')
    out.append(f'<text x="{x0 + left + w / 2}" y="{top + h + 34}" text-anchor="middle">records (log)</text>')
    out.append(f'<text x="{x0 + 14}" y="{top + h / 2}" transform="rotate(-90 {x0 + 14} {top + h / 2})" '
               f'text-anchor="middle">{unit} (log)</text>')
    # A slope-1 guide through the top right corner: a stage growing linearly runs parallel to it.
    span = sizes[-1] / sizes[0]
    if span > 1:
        x1, y1, x2, y2 = px(sizes[0]), py(10 ** hi_y / span), px(sizes[-1]), py(10 ** hi_y)
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#999" '
                   'stroke-dasharray="5,4"/>')
        out.append(f'<text x="{x2 - 4:.1f}" y="{y2 + 14:.1f}" text-anchor="end" fill="#777">linear</text>')
    for stage, colour in PLOTTED.items():
        per = rows.get(stage, {})
        pts = [(px(n), py(per[n][index])) for n in sizes if n in per and per[n][index] > 0]
        if not pts:
            continue
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="'
                   + " ".join(f"{x:.1f},{y:.1f}" for x, y in pts) + '"/>')
        out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>' for x, y in pts]
    return "\n".join(out)


def svg(rows, sizes):
    legend = []
    for i, (stage, colour) in enumerate(PLOTTED.items()):
        x, y = 70 + (i % 3) * 330, 400 + (i // 3) * 18
        legend.append(f'<rect x="{x}" y="{y - 9}" width="12" height="10" fill="{colour}"/>'
                      f'<text x="{x + 18}" y="{y}">{stage}</text>')
    body = [panel(0, "Time per stage", "seconds", rows, sizes, 0),
            panel(500, "Peak memory during the stage", "MiB", rows, sizes, 1)] + legend
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="460" font-family="sans-serif" '
            'font-size="11">\n<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n")


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    rows, sizes = load(argv[1])
    print(table(rows, sizes))
    if "--svg" in argv:
        with open(argv[argv.index("--svg") + 1], "w") as f:
            f.write(svg(rows, sizes))


if __name__ == "__main__":
    main(sys.argv)
