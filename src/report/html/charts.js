// charts.js: SVG charts from the report model (report JSON) and the timeline's slices and
// counters. Every chart is <svg class="gs-chart" data-chart=NAME>; every datum drawn is an
// element of class gs-mark with a <title> that shows its numbers on hover.
const SVG = "http://www.w3.org/2000/svg";

GS.svg = function (tag, attrs, parent, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
};

// The rows of a report table by key, as objects keyed by column key; [] when absent.
GS.table = function (report, key) {
  for (const s of report.sections) for (const t of s.tables) if (t.key === key) return t.rows;
  return [];
};

// A figure with a caption and an SVG of the given size; returns the SVG.
GS.figure = function (container, name, title, width, height, note) {
  const figure = document.createElement("figure");
  figure.className = "gs-figure";
  const caption = document.createElement("figcaption");
  caption.textContent = title;
  figure.appendChild(caption);
  const svg = GS.svg("svg", { class: "gs-chart", "data-chart": name, viewBox: `0 0 ${width} ${height}`, role: "img" }, figure);
  GS.svg("title", {}, svg, title);
  if (note) {
    const p = document.createElement("p");
    p.className = "gs-note";
    p.textContent = note;
    figure.appendChild(p);
  }
  container.appendChild(figure);
  return svg;
};

// A mark with its hover text.
GS.mark = function (tag, attrs, parent, hover) {
  const m = GS.svg(tag, { ...attrs, class: `gs-mark ${attrs.class || ""}`.trim() }, parent);
  GS.svg("title", {}, m, hover);
  return m;
};

// Linear or log scale from [d0, d1] to [r0, r1].
GS.scale = function (d0, d1, r0, r1, log) {
  const f = log ? Math.log10 : (v) => v;
  const a = f(d0), b = f(d1) === f(d0) ? f(d0) + 1 : f(d1);
  return (v) => r0 + ((f(v) - a) / (b - a)) * (r1 - r0);
};

// Axis ticks: a few round values over [lo, hi]. Log: each decade; 2x and 5x too when the axis
// spans less than two decades; every 1..9 x 10^k, then round linear values, until there are 3.
GS.ticks = function (lo, hi, log) {
  if (log) {
    const at = (multiples) => {
      const out = [];
      for (let p = Math.floor(Math.log10(lo)); p <= Math.ceil(Math.log10(hi)); p++)
        for (const m of multiples) {
          const v = Number((m * Math.pow(10, p)).toPrecision(12));
          if (v >= lo / 1.0001 && v <= hi * 1.0001) out.push(v);
        }
      return out;
    };
    const sets = Math.log10(hi / lo) < 2 ? [[1, 2, 5], [1, 2, 3, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9]] : [[1], [1, 2, 5], [1, 2, 3, 5]];
    for (const multiples of sets) {
      const out = at(multiples);
      if (out.length >= 3) return out;
    }
    return GS.ticks(lo, hi, false);
  }
  const step0 = (hi - lo) / 5 || 1, power = Math.pow(10, Math.floor(Math.log10(step0)));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= step0);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) out.push(Number(v.toPrecision(12)));
  return out;
};

// Axes with tick labels in the given formatter; the plot area is [left, right] x [top, bottom].
GS.axes = function (svg, box, x, y, xTicks, yTicks, xFormat, yFormat, xTitle, yTitle) {
  const g = GS.svg("g", { class: "gs-axis" }, svg);
  GS.svg("line", { x1: box.left, x2: box.right, y1: box.bottom, y2: box.bottom }, g);
  GS.svg("line", { x1: box.left, x2: box.left, y1: box.top, y2: box.bottom }, g);
  let labelled = -Infinity;  // a tick's label is left out where it would touch the previous one
  for (const v of xTicks) {
    GS.svg("line", { x1: x(v), x2: x(v), y1: box.bottom, y2: box.bottom + 4 }, g);
    const text = xFormat(v);
    if (x(v) - labelled < text.length * 6.5 + 6) continue;
    GS.svg("text", { x: x(v), y: box.bottom + 15, "text-anchor": "middle", class: "gs-tick gs-tick-x" }, g, text);
    labelled = x(v);
  }
  for (const v of yTicks) {
    GS.svg("line", { x1: box.left - 4, x2: box.left, y1: y(v), y2: y(v) }, g);
    GS.svg("line", { x1: box.left, x2: box.right, y1: y(v), y2: y(v), class: "gs-gridline" }, g);
    GS.svg("text", { x: box.left - 6, y: y(v) + 4, "text-anchor": "end", class: "gs-tick gs-tick-y" }, g, yFormat(v));
  }
  if (xTitle) GS.svg("text", { x: (box.left + box.right) / 2, y: box.bottom + 32, "text-anchor": "middle" }, g, xTitle);
  if (yTitle)
    GS.svg("text", { x: 12, y: (box.top + box.bottom) / 2, transform: `rotate(-90 12 ${(box.top + box.bottom) / 2})`,
                     "text-anchor": "middle" }, g, yTitle);
  return g;
};

// A legend: a swatch and a label per entry, the labels shortened in the middle and distinct,
// each with its full text on hover.
GS.legend = function (svg, entries, x, y) {
  const names = entries.map(([label]) => label);
  const labels = GS.distinctLabels(names, 72, new GS.Labeller(names, { signature: () => false }));
  entries.forEach(([label, colour], k) => {
    GS.svg("rect", { x, y: y + k * 15 - 9, width: 10, height: 10, fill: colour }, svg);
    const text = GS.svg("text", { x: x + 14, y: y + k * 15, class: "gs-legend" }, svg, labels.get(label));
    GS.svg("title", {}, text, label);
  });
};

// The slices of one kind grouped by name: Map name -> [{start, dur}], from the timeline.
GS.slicesByName = function (timeline, kind, wanted) {
  const ids = new Map();
  timeline.names.forEach((n, id) => wanted.has(n) && ids.set(id, n));
  const out = new Map([...wanted].map((n) => [n, []]));
  for (const track of timeline.tracks)
    for (let i = 0; i < track.count; i++) {
      if (track.sliceKind[i] !== kind) continue;
      const name = ids.get(track.nameId[i]);
      if (name !== undefined) out.get(name).push({ start: track.start[i], dur: track.end[i] - track.start[i] });
    }
  return out;
};

GS.palette = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f"];
