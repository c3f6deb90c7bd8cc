// forest.js: diff's forest plot: each compared item's change of the median with its 95 %
// confidence interval, coloured by verdict; and the items found in only one of the files.
GS.figures.forest = function (container, report) {
  if (!report.sections.some((s) => s.key === "comparison")) return;  // not a diff
  const categories = ["kernels", "ops", "memory", "api", "nvtx", "nvtx_gpu", "totals"];
  const items = [], onlyBase = [], onlyNew = [];
  for (const key of categories)
    for (const r of GS.table(report, key)) {
      if (r.verdict === "only in base") onlyBase.push(`${key}: ${r.name}`);
      else if (r.verdict === "only in new") onlyNew.push(`${key}: ${r.name}`);
      else if (r.change !== null && r.change !== undefined && r.ci_low !== null && r.ci_low !== undefined &&
               r.ci_high !== null && r.ci_high !== undefined)
        items.push({ ...r, category: key });
    }
  GS.figures.onlyList(container, "gs-only-base", "Only in the base file", onlyBase);
  GS.figures.onlyList(container, "gs-only-new", "Only in the new file", onlyNew);
  if (!items.length) return;
  const row = 20, left = 300, W = 720, H = items.length * row + 50;
  const svg = GS.figure(container, "forest", "Change of the median, new vs base, with its 95% confidence interval", W, H,
                        "Left of 0: faster. Filled: a significant change (faster / slower); hollow: no significant change or too few samples.");
  const lo = Math.min(0, ...items.map((i) => i.ci_low)), hi = Math.max(0, ...items.map((i) => i.ci_high));
  const pad = (hi - lo) * 0.05 || 1, box = { left, right: W - 20, top: 8, bottom: H - 40 };
  const x = GS.scale(lo - pad, hi + pad, box.left, box.right);
  GS.axes(svg, box, x, () => 0, GS.ticks(lo - pad, hi + pad), [], (v) => `${v > 0 ? "+" : ""}${v.toFixed(0)}%`, () => "",
          "change of the median", "");
  GS.svg("line", { x1: x(0), x2: x(0), y1: box.top, y2: box.bottom, class: "gs-zero" }, svg);
  const label = (item) => `${item.category}: ${item.name}${item.detail ? ` [${item.detail}]` : ""}`;
  GS.rowLabels(svg, items.map((item, k) => ({ name: label(item), y: box.top + k * row + row / 2 + 4 })), left - 6, left - 12,
               { signature: () => false });
  items.forEach((item, k) => {
    const y = box.top + k * row + row / 2;
    const verdict = item.verdict === "faster" ? "gs-faster" : item.verdict === "slower" ? "gs-slower" : "gs-nochange";
    const g = GS.svg("g", { class: `gs-forest-row ${verdict}` }, svg);
    GS.svg("line", { x1: x(item.ci_low), x2: x(item.ci_high), y1: y, y2: y, class: "gs-interval" }, g);
    const filled = verdict !== "gs-nochange";
    GS.mark("circle", { cx: x(item.change), cy: y, r: 4.5, class: filled ? "gs-filled" : "gs-hollow" }, g,
            `${item.name}\n${item.change > 0 ? "+" : ""}${item.change.toFixed(2)}% [${item.ci_low.toFixed(2)}%, ` +
            `${item.ci_high.toFixed(2)}%], ${item.verdict}; base ${GS.duration(item.base_median)}, new ${GS.duration(item.new_median)}`);
  });
};

GS.figures.onlyList = function (container, id, title, entries) {
  const box = document.createElement("div");
  box.className = "gs-only";
  const heading = document.createElement("h3");
  heading.textContent = `${title} (${entries.length})`;
  const list = document.createElement("ul");
  list.id = id;
  for (const e of entries) {
    const li = document.createElement("li");
    li.textContent = e;
    list.appendChild(li);
  }
  box.append(heading, list);
  container.appendChild(box);
};
