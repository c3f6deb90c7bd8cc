#!/usr/bin/env python3
"""Compare per-kernel metrics of a gpuscope capture with Nsight Compute's raw CSV.

  compare_metrics.py GPUSCOPE_TSV NCU_CSV LABEL

GPUSCOPE_TSV: `gpuscope query FILE "SELECT kernel, metric, value FROM kernel_metrics_named"`
NCU_CSV:      `ncu --csv --page raw --metrics ...` of the same program.
Per kernel (matched by the demangled name without parameters) and metric, the medians over
the launches of each tool are compared: percentages within 1 percentage point, everything
else within 2 % relative; ratios of stall reasons below 0.05 warps per issue cycle count as
equal (at that size the reason is absent from the picture either way). Prints one markdown
row per comparison and a last line "SUMMARY label within/total"; exit 1 if any is outside.
"""
import csv
import statistics
import sys


def base_name(kernel):
    name = kernel.split('(')[0].strip()
    if name.startswith('void '):
        name = name[5:]
    return name.split('<')[0].split('::')[-1]


def load_gpuscope(path):
    values = {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip('\n').split('\t')
            if len(parts) != 3 or not parts[0]:
                continue
            values.setdefault((base_name(parts[0]), parts[1]), []).append(float(parts[2]))
    return values


def load_ncu(path):
    rows = [r for r in csv.reader(open(path)) if r]
    header_at = next(i for i, r in enumerate(rows) if 'Kernel Name' in r)
    header = rows[header_at]
    name_col = header.index('Kernel Name')
    values = {}
    for row in rows[header_at + 2:]:  # the row after the header holds the units
        if len(row) != len(header):
            continue
        for col, metric in enumerate(header):
            if '__' not in metric:
                continue
            text = row[col].replace(',', '')
            try:
                value = float(text)
            except ValueError:
                continue
            values.setdefault((base_name(row[name_col]), metric), []).append(value)
    return values


def within(metric, ours, theirs):
    if 'pct' in metric:
        return abs(ours - theirs) <= 1.0, f'{ours - theirs:+.2f} pp'
    diff = abs(ours - theirs)
    scale = max(abs(ours), abs(theirs))
    if 'issue_stalled' in metric and scale < 0.05:
        return True, f'{ours - theirs:+.3f} (< 0.05)'
    if scale == 0:
        return True, '0'
    return diff <= 0.02 * scale, f'{100.0 * (ours - theirs) / theirs if theirs else float("inf"):+.2f} %'


def main():
    ours, theirs, label = load_gpuscope(sys.argv[1]), load_ncu(sys.argv[2]), sys.argv[3]
    total = ok = 0
    for key in sorted(theirs):
        if key not in ours:
            continue
        a, b = statistics.median(ours[key]), statistics.median(theirs[key])
        good, delta = within(key[1], a, b)
        total += 1
        ok += good
        print(f'| {label} | {key[0]} | {key[1]} | {b:.6g} | {a:.6g} | {delta} | {"ok" if good else "OUTSIDE"} |')
    missing = sorted({k[1] for k in theirs} - {k[1] for k in ours})
    if missing:
        print(f'NOTE {label}: metrics ncu reported that gpuscope did not: {", ".join(missing)}')
    print(f'SUMMARY {label} {ok}/{total}')
    return 0 if total > 0 and ok == total else 1


if __name__ == '__main__':
    sys.exit(main())
