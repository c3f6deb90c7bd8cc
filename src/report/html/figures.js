// figures.js: the report's charts, each from the report model or the timeline, never from
// numbers of its own making: kernel time breakdown, duration distribution of the top kernels,
// memory in use and GPU utilization over time, NVTX range durations over the run, the
// roofline, and diff's forest plot.
GS.figures = {
  kernel_breakdown(container, report) {
    const rows = GS.table(report, "kernel_time").filter((r) => r.total > 0);
    if (!rows.length) return;
    const W = 620, bar = 18, H = rows.length * (bar + 6) + 30, left = 250;
    const svg = GS.figure(container, "kernel_breakdown", "Kernel time breakdown (share of all kernel time)", W, H);
    const x = GS.scale(0, Math.max(...rows.map((r) => r.time_percent || 0), 1), left, W - 140);
    GS.rowLabels(svg, rows.map((r, k) => ({ name: r.name, y: 10 + k * (bar + 6) + 13 })), left - 6, left - 12);
    rows.forEach((r, k) => {
      const y = 10 + k * (bar + 6);
      GS.mark("rect", { x: left, y, width: Math.max(x(r.time_percent || 0) - left, 1), height: bar, fill: `hsl(${GS.hue(r.name)} 62% 52%)` },
              svg, `${r.name}\n${GS.duration(r.total)} total, ${r.count} launches, ${(r.time_percent || 0).toFixed(1)}%`);
      GS.svg("text", { x: x(r.time_percent || 0) + 4, y: y + 13 }, svg, `${(r.time_percent || 0).toFixed(1)}% · ${GS.duration(r.total)}`);
    });
  },

  // Per top kernel, a histogram of its launch durations on log-spaced bins.
  kernel_durations(container, report, timeline) {
    if (!timeline) return;
    const top = GS.table(report, "kernel_time").slice(0, 5).map((r) => r.name);
    const byName = GS.slicesByName(timeline, 0, new Set(top));
    const series = top.map((n) => [n, byName.get(n) || []]).filter(([, s]) => s.length);
    if (!series.length) return;
    let lo = Infinity, hi = 0;
    for (const [, s] of series) for (const { dur } of s) if (dur > 0) [lo, hi] = [Math.min(lo, dur), Math.max(hi, dur)];
    if (!(hi > 0)) return;
    if (hi / lo < 10) [lo, hi] = [lo / 1.5, hi * 1.5];
    const W = 620, band = 56, H = series.length * band + 50, left = 250, bins = 40;
    const svg = GS.figure(container, "kernel_durations", "Launch duration distribution of the top kernels", W, H);
    const x = GS.scale(lo, hi, left, W - 20, true);
    GS.rowLabels(svg, series.map(([name], k) => ({ name, y: 10 + k * band + band - 24 })), left - 6, left - 12);
    series.forEach(([name, s], k) => {
      const counts = new Array(bins).fill(0);
      for (const { dur } of s) counts[Math.min(bins - 1, Math.max(0, Math.floor(((Math.log10(dur) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * bins)))]++;
      const peak = Math.max(...counts), y0 = 10 + k * band + band - 10;
      counts.forEach((c, b) => {
        if (!c) return;
        const a = Math.pow(10, Math.log10(lo) + (b / bins) * (Math.log10(hi) - Math.log10(lo)));
        const e = Math.pow(10, Math.log10(lo) + ((b + 1) / bins) * (Math.log10(hi) - Math.log10(lo)));
        const h = Math.max((c / peak) * (band - 16), 1);
        GS.mark("rect", { x: x(a), y: y0 - h, width: Math.max(x(e) - x(a) - 1, 1), height: h, fill: `hsl(${GS.hue(name)} 62% 52%)` },
                svg, `${name}\n${c} launches between ${GS.duration(a)} and ${GS.duration(e)}`);
      });
    });
    const box = { left, right: W - 20, top: 10, bottom: H - 40 };
    GS.axes(svg, box, x, () => 0, GS.ticks(lo, hi, true), [], GS.durationTick, () => "", "launch duration (log scale)", "")
      .setAttribute("data-x-scale", "log");
  },

  // Step lines over the run for a set of counters (memory in use, GPU samples).
  counterChart(container, timeline, name, title, counters, unit) {
    if (!counters.length) return;
    const shown = Math.min(counters.length, 4);
    const W = 620, H = 230 + shown * 15, box = { left: 80, right: W - 20, top: 12, bottom: 180 };
    const svg = GS.figure(container, name, title, W, H);
    const maxValue = Math.max(...counters.map((c) => c.max), unit === "%" ? 100 : 1);
    const x = GS.scale(0, Math.max(timeline.end, 1), box.left, box.right), y = GS.scale(0, maxValue, box.bottom, box.top);
    const format = unit === "bytes" ? GS.bytes : (v) => `${v.toFixed(0)}${unit === "%" ? "%" : ""}`;
    GS.axes(svg, box, x, y, GS.ticks(0, timeline.end), GS.ticks(0, maxValue), GS.durationTick, format, "time into the run", "");
    const legend = [];
    counters.forEach((c, k) => {
      const colour = GS.palette[k % GS.palette.length];
      let d = "";
      const step = Math.max(1, Math.floor(c.t.length / 4000));  // at most ~4000 points per line
      for (let i = 0; i < c.t.length; i += step) d += `${d ? "L" : "M"}${x(c.t[i]).toFixed(1)},${y(c.v[i]).toFixed(1)}` +
                                                     `H${x(i + step < c.t.length ? c.t[i + step] : c.end).toFixed(1)}`;
      const group = timeline.groups[c.group];
      const label = `${c.name} · ${group.name}`;
      GS.mark("path", { d, fill: "none", stroke: colour, "stroke-width": 1.5 }, svg,
              `${label}\nmax ${format(c.max)}, ${c.t.length} points`);
      legend.push([label, colour]);
    });
    GS.legend(svg, legend.slice(0, shown), box.left, box.bottom + 50);
  },

  memory_in_use(container, report, timeline) {
    if (!timeline) return;
    GS.figures.counterChart(container, timeline, "memory_in_use", "Device memory in use (allocations less frees)",
                            timeline.counters.filter((c) => c.key === "memory_in_use"), "bytes");
  },

  gpu_utilization(container, report, timeline) {
    if (!timeline) return;
    const percent = timeline.counters.filter((c) => c.unit === "%");
    GS.figures.counterChart(container, timeline, "gpu_utilization", "GPU utilization over time (GPU-wide samples)", percent, "%");
  },

  // Each instance of the top NVTX ranges: when it started and how long it took.
  nvtx_durations(container, report, timeline) {
    if (!timeline) return;
    const top = GS.table(report, "nvtx_ranges").slice(0, 5).map((r) => r.name);
    const byName = GS.slicesByName(timeline, 5, new Set(top));
    const series = top.map((n) => [n, byName.get(n) || []]).filter(([, s]) => s.length);
    if (!series.length) return;
    const W = 620, H = 240 + series.length * 15, box = { left: 80, right: W - 20, top: 12, bottom: 180 };
    const svg = GS.figure(container, "nvtx_durations", "NVTX range durations over the run", W, H);
    const yMax = Math.max(1, ...series.map(([, s]) => GS.largest(s.map((p) => p.dur))));
    const x = GS.scale(0, Math.max(timeline.end, 1), box.left, box.right), y = GS.scale(0, yMax * 1.05, box.bottom, box.top);
    GS.axes(svg, box, x, y, GS.ticks(0, timeline.end), GS.ticks(0, yMax), GS.durationTick, GS.durationTick, "start, into the run", "");
    series.forEach(([name, s], k) => {
      const colour = GS.palette[k % GS.palette.length], step = Math.max(1, Math.floor(s.length / 2000));
      for (let i = 0; i < s.length; i += step)
        GS.mark("circle", { cx: x(s[i].start), cy: y(s[i].dur), r: 2.5, fill: colour }, svg,
                `${name} #${i + 1}\n${GS.duration(s[i].dur)} at ${GS.duration(s[i].start)}`);
    });
    GS.legend(svg, series.map(([n], k) => [n, GS.palette[k % GS.palette.length]]), box.left, box.bottom + 50);
  },

  // Log-log: each kernel at (DRAM intensity, achieved FLOP/s), under its roof: min(peak,
  // intensity x DRAM bandwidth), with the bandwidth from the report's ridge (peak / bandwidth).
  roofline(container, report) {
    const intensity = new Map(GS.table(report, "arithmetic_intensity").map((r) => [r.name, r]));
    const points = GS.table(report, "roofline").map((r) => ({ ...r, ai: intensity.get(r.name) }))
      .filter((p) => p.achieved > 0 && p.ai && p.ai.dram > 0);
    if (!points.length) return;
    const roofs = new Map();
    for (const p of points) if (p.peak > 0 && p.ai.dram_ridge > 0) roofs.set(`${p.precision} ${p.peak}`, p);
    const xs = points.map((p) => p.ai.dram).concat([...roofs.values()].map((p) => p.ai.dram_ridge));
    const ys = points.map((p) => p.achieved).concat([...roofs.values()].map((p) => p.peak));
    const xLo = Math.min(...xs) / 4, xHi = Math.max(...xs) * 4, yLo = Math.min(...ys) / 4, yHi = Math.max(...ys) * 2;
    const W = 620, H = 320, box = { left: 90, right: W - 20, top: 12, bottom: H - 60 };
    const svg = GS.figure(container, "roofline", "Roofline (DRAM), one point per kernel", W, H);
    const x = GS.scale(xLo, xHi, box.left, box.right, true), y = GS.scale(yLo, yHi, box.bottom, box.top, true);
    const digits = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
    const flops = (v) => (v >= 1e12 ? `${digits(v / 1e12)} T` : v >= 1e9 ? `${digits(v / 1e9)} G` : `${digits(v / 1e6)} M`);
    const axes = GS.axes(svg, box, x, y, GS.ticks(xLo, xHi, true), GS.ticks(yLo, yHi, true), (v) => `${Number(v.toPrecision(3))} FLOP/B`,
                         (v) => `${flops(v)}FLOP/s`, "arithmetic intensity, FLOP per DRAM byte (log scale)", "");
    axes.setAttribute("data-x-scale", "log");
    axes.setAttribute("data-y-scale", "log");
    for (const p of roofs.values()) {
      const bandwidth = p.peak / p.ai.dram_ridge;
      const d = `M${x(xLo)},${y(Math.max(bandwidth * xLo, yLo))}L${x(p.ai.dram_ridge)},${y(p.peak)}L${x(xHi)},${y(p.peak)}`;
      GS.mark("path", { d, fill: "none", class: "gs-roof" }, svg,
              `${p.precision} roof: peak ${flops(p.peak)}FLOP/s, DRAM ${GS.bytes(bandwidth)}/s, ridge ${p.ai.dram_ridge.toFixed(1)} FLOP/B`);
    }
    for (const p of points)
      GS.mark("circle", { cx: x(p.ai.dram), cy: y(p.achieved), r: 5, fill: `hsl(${GS.hue(p.name)} 62% 52%)` }, svg,
              `${p.name}\n${p.precision}: ${flops(p.achieved)}FLOP/s at ${p.ai.dram.toFixed(2)} FLOP/B` +
              (p.roof_percent ? `\n${p.roof_percent.toFixed(1)}% of its roof (${p.bound_by || ""}, ${p.region || ""})` : ""));
  },
};
