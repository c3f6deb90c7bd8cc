#!/usr/bin/env python3
"""Compare per-kernel metrics of a gpuscope capture with an Nsight Compute report.

  compare_metrics.py A B LABEL [NAMES]

A and B are each either a gpuscope TSV (`gpuscope query FILE "SELECT kernel, metric, value
FROM kernel_metrics_named"`) or an ncu report (`ncu -o X.ncu-rep --metrics ...`, read at full
precision with ncu's own Python module, found through $NCU_PYTHON). B is the reference.
Per kernel (matched by the demangled name without parameters) and metric, the medians over
the launches are compared: percentages within 1 percentage point, everything else within 2 %
relative. Values too small to mean anything count as equal (documented in docs/metrics.md):
stall ratios below 0.05 warps per issue cycle, DRAM/L2 traffic below 1 MiB (32768 sectors),
and hit rates of a level with less than 1 MiB of traffic. Prints one markdown row per
comparison and "SUMMARY label within/total"; exit 1 if any is outside. NAMES (comma-separated,
the metrics both tools were asked for): one that either side lacks is a failure too (ncu adds
device and launch attributes of its own, which are not compared).
"""
import os
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


def load_ncu_report(path):
    sys.path.insert(0, os.environ["NCU_PYTHON"])
    import ncu_report  # ships with Nsight Compute (extras/python)
    values = {}
    context = ncu_report.load_report(path)
    for r in range(context.num_ranges()):
        rng = context.range_by_idx(r)
        for a in range(rng.num_actions()):
            action = rng.action_by_idx(a)
            kernel = base_name(action.name(ncu_report.IAction.NameBase_DEMANGLED))
            for metric in action.metric_names():
                if '__' not in metric:
                    continue
                m = action.metric_by_name(metric)
                try:
                    value = m.as_double()
                except Exception:
                    continue
                values.setdefault((kernel, metric), []).append(value)
    return values


def load(path):
    if path.endswith('.ncu-rep'):
        return load_ncu_report(path)
    return load_gpuscope(path)


TRAFFIC_FLOOR_BYTES = 1 << 20


def negligible(metric, ours, theirs, kernel_values):
    """True when both values are too small for a relative comparison to mean anything."""
    scale = max(abs(ours), abs(theirs))
    if 'issue_stalled' in metric:
        return scale < 0.05
    if metric.startswith(('dram__bytes', 'lts__t_bytes')):
        return scale < TRAFFIC_FLOOR_BYTES
    if metric.startswith(('dram__sectors', 'lts__t_sectors')):
        return scale * 32 < TRAFFIC_FLOOR_BYTES
    if metric == 'lts__t_sector_hit_rate.pct':
        sectors = sum(kernel_values.get(m, 0) for m in ('lts__t_sectors_srcunit_tex_op_read.sum',
                                                         'lts__t_sectors_srcunit_tex_op_write.sum'))
        return sectors * 32 < TRAFFIC_FLOOR_BYTES
    return False


def within(metric, ours, theirs):
    if 'pct' in metric:
        return abs(ours - theirs) <= 1.0, f'{ours - theirs:+.2f} pp'
    scale = max(abs(ours), abs(theirs))
    if scale == 0:
        return True, '0'
    relative = 100.0 * (ours - theirs) / theirs if theirs else float('inf')
    return abs(ours - theirs) <= 0.02 * scale, f'{relative:+.2f} %'


def main():
    ours, theirs, label = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
    medians = {}
    for (kernel, metric), values in theirs.items():
        medians.setdefault(kernel, {})[metric] = statistics.median(values)
    total = ok = 0
    for key in sorted(theirs):
        if key not in ours:
            continue
        a, b = statistics.median(ours[key]), statistics.median(theirs[key])
        if negligible(key[1], a, b, medians[key[0]]):
            good, delta = True, 'negligible'
        else:
            good, delta = within(key[1], a, b)
        total += 1
        ok += good
        print(f'| {label} | {key[0]} | {key[1]} | {b:.6g} | {a:.6g} | {delta} | {"ok" if good else "OUTSIDE"} |')
    requested = [n for n in (sys.argv[4].split(',') if len(sys.argv) > 4 else []) if n]
    missing = [n for n in requested
               if not any(k[1] == n for k in ours) or not any(k[1] == n for k in theirs)]
    if missing:
        print(f'MISSING {label}: asked for but not reported by both: {", ".join(missing)}')
    print(f'SUMMARY {label} {ok}/{total}')
    return 0 if total > 0 and ok == total and not missing else 1


if __name__ == '__main__':
    sys.exit(main())
