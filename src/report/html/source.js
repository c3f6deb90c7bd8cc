// source.js: the Source section's source view (`profile --source`): one sampled kernel at a
// time, its source lines beside its SASS, each row shaded by its samples (against the kernel's
// hottest row) with a bar of its stall reasons; clicking a line selects its instructions,
// clicking an instruction its line. Drawn from the report's source_view and sass_view tables;
// opened from the Sampled kernels and Hottest lines tables and from the hot_source_line finding.
GS.SourceView = class {
  constructor(report, section) {
    this.lines = GS.table(report, "source_view");
    this.sass = GS.table(report, "sass_view");
    const columns = [];
    for (const s of report.sections) for (const t of s.tables) if (t.key === "source_view" || t.key === "sass_view") columns.push(...t.columns);
    // Stall columns in the report's order (the viewed kernels' reasons by samples): one colour each.
    this.reasons = [...new Set(columns.filter((c) => c.key.startsWith("stall_")).map((c) => c.key.slice(6)))];
    this.colour = new Map(this.reasons.map((r, i) => [r, i < GS.palette.length ? GS.palette[i] : `hsl(${GS.hue(r)} 55% 55%)`]));
    const sampled = GS.table(report, "sampled_kernels");
    const ranks = [...new Set(this.lines.concat(this.sass).map((r) => r.kernel))].sort((a, b) => a - b);
    this.kernels = ranks.filter((k) => sampled[k - 1]).map((k) => ({ rank: k, name: sampled[k - 1].kernel, share: sampled[k - 1].share }));
    this.state = { kernel: 0, file: "", line: 0, pc: null };
    if (this.kernels.length) this.build(section);
  }

  build(section) {
    const box = (this.box = GS.element("div", { class: "gs-source", id: "gs-source" }));
    GS.element("h3", {}, box, "Source view");
    const bar = GS.element("div", { class: "gs-views" }, box);
    GS.element("label", {}, bar, "Kernel ");
    this.kernelSelect = GS.element("select", { "aria-label": "Kernel" }, bar);
    for (const k of this.kernels)
      GS.element("option", { value: k.rank }, this.kernelSelect, `${k.rank}. ${k.name} (${(k.share || 0).toFixed(1)}% of samples)`);
    GS.element("label", {}, bar, "File ");
    this.fileSelect = GS.element("select", { "aria-label": "Source file" }, bar);
    this.legend = GS.element("span", { class: "gs-legend" }, bar);
    const panes = (this.panes = GS.element("div", { class: "gs-source-panes" }, box));
    this.sourcePane = GS.element("div", { class: "gs-source-pane", "data-pane": "source" }, panes);
    this.sassPane = GS.element("div", { class: "gs-source-pane", "data-pane": "sass" }, panes);
    GS.element("p", { class: "gs-note" }, box,
               "Shade: a row's samples against the kernel's hottest row. Bar: its samples by stall reason (ncu's names; " +
               "selected: issuing). Click a line for its instructions, an instruction for its line. A warp waiting at a " +
               "barrier is sampled a few instructions after it.");
    this.kernelSelect.addEventListener("change", () => this.show(Number(this.kernelSelect.value)));
    this.fileSelect.addEventListener("change", () => this.showFile(this.fileSelect.value));
    this.sourcePane.addEventListener("click", (e) => {
      const row = e.target.closest("tr[data-line]");
      if (row) this.selectLine(Number(row.dataset.line));
    });
    this.sassPane.addEventListener("click", (e) => {
      const row = e.target.closest("tr[data-pc]");
      if (row) this.selectPc(Number(row.dataset.pc));
    });
    // After the Sampled kernels table and its notes.
    const table = section.querySelector('table[data-table="sampled_kernels"]');
    let at = table ? table.closest(".gs-scroll") : null;
    while (at && at.nextElementSibling && at.nextElementSibling.classList.contains("gs-note")) at = at.nextElementSibling;
    if (at) at.after(box);
    else section.appendChild(box);
    this.link(section);
    this.show(this.kernels[0].rank);
  }

  // Links into the view: kernel names, hottest lines and instructions, the hot_source_line finding.
  link(section) {
    const viewed = new Set(this.kernels.map((k) => k.rank));
    const anchor = (cell, go) => {
      const a = GS.element("a", { href: "#gs-source", class: "gs-source-link" });
      a.append(...cell.childNodes);
      cell.appendChild(a);
      a.addEventListener("click", (e) => (e.preventDefault(), go(), this.box.scrollIntoView({ block: "start" })));
    };
    section.querySelectorAll('table[data-table="sampled_kernels"] tbody tr').forEach((tr, i) => {
      if (viewed.has(i + 1)) anchor(tr.cells[0], () => this.show(i + 1));
    });
    // The per-kernel tables come in the order of the kernels, one of each per kernel.
    const place = /^(.*):(\d+)$/;
    section.querySelectorAll('table[data-table="source_lines"]').forEach((table, i) => {
      if (!viewed.has(i + 1)) return;
      for (const tr of table.tBodies[0].rows) {
        const m = place.exec(tr.cells[0].textContent);
        if (m) anchor(tr.cells[0], () => this.show(i + 1, { file: m[1], line: Number(m[2]) }));
      }
    });
    section.querySelectorAll('table[data-table="sass_instructions"]').forEach((table, i) => {
      if (!viewed.has(i + 1)) return;
      for (const tr of table.tBodies[0].rows) {
        const pc = parseInt(tr.cells[0].textContent, 16);
        if (Number.isFinite(pc)) anchor(tr.cells[0], () => this.show(i + 1, { pc }));
      }
    });
    const finding = document.querySelector('h3[data-evidence="hot_source_line"]');
    for (let p = finding && finding.nextElementSibling; p && p.tagName === "P"; p = p.nextElementSibling) {
      const k = this.kernels.find((k) => p.textContent.startsWith(`Evidence: ${k.name}: `));
      if (!k) continue;
      const a = GS.element("a", { href: "#gs-source", class: "gs-source-link" }, p, " (source view)");
      a.addEventListener("click", (e) => (e.preventDefault(), this.show(k.rank), this.box.scrollIntoView({ block: "start" })));
    }
  }

  // Kernel `rank`; at its hottest line unless `at` names a line ({file, line}: file may be the
  // name alone) or an instruction ({pc}).
  show(rank, at) {
    this.state = { kernel: rank, file: "", line: 0, pc: null };
    this.kernelSelect.value = String(rank);
    const lines = this.lines.filter((r) => r.kernel === rank), sass = this.sass.filter((r) => r.kernel === rank);
    this.files = [...new Set(lines.map((r) => r.file))];
    this.fileSelect.replaceChildren(...this.files.map((f) => GS.element("option", { value: f }, null, f)));
    this.fileSelect.disabled = this.files.length < 2;
    const used = new Set();
    for (const r of lines.concat(sass)) for (const reason of this.reasons) if (r[`stall_${reason}`]) used.add(reason);
    this.legend.replaceChildren(...this.reasons.filter((r) => used.has(r)).map((r) => {
      const item = GS.element("span", { class: "gs-legend-item" }, null, r);
      item.prepend(GS.element("i", { style: `background:${this.colour.get(r)}` }));
      return item;
    }));
    this.kernelLines = lines;
    // A kernel without a line table (a library's) or without SASS shows the other pane alone.
    this.sourcePane.hidden = !lines.length;
    this.sassPane.hidden = !sass.length;
    this.panes.classList.toggle("gs-single", !lines.length || !sass.length);
    this.drawSass(sass);
    if (at && at.pc !== undefined) return this.selectPc(at.pc);
    const hottest = lines.reduce((a, r) => ((r.samples || 0) > (a ? a.samples || 0 : -1) ? r : a), null);
    const file = at && at.file ? this.files.find((f) => f === at.file || f.endsWith(`/${at.file}`)) : hottest && hottest.file;
    this.showFile(file || this.files[0] || "");
    const line = at && at.line ? at.line : hottest && hottest.file === file ? hottest.line : 0;
    if (line) this.selectLine(line);
    else if (!this.files.length) this.selectPc(sass.reduce((a, r) => ((r.samples || 0) > (a ? a.samples || 0 : -1) ? r : a), null)?.pc);
  }

  showFile(file) {
    this.state.file = file;
    this.fileSelect.value = file;
    const rows = this.kernelLines.filter((r) => r.file === file);
    const body = this.tableBody(["Line", "Samples", "Stalls", "Code"]);
    const max = Math.max(1, ...rows.map((r) => r.samples || 0));
    rows.forEach((r, i) => {
      if (i > 0 && r.line > rows[i - 1].line + 1) GS.element("td", { colspan: 4 }, GS.element("tr", { class: "gs-gap" }, body), "⋯");
      const tr = this.row(body, r, max, { "data-line": r.line }, `line ${r.line}`);
      tr.append(this.cell(r.line, "num"), this.cell(r.samples ? r.samples.toLocaleString() : "", "num"), this.bar(r, max), this.code(r.code));
    });
    this.sourcePane.replaceChildren(body.parentNode);
  }

  drawSass(rows) {
    const body = this.tableBody(["PC", "Samples", "Stalls", "SASS", "Line"]);
    const max = Math.max(1, ...rows.map((r) => r.samples || 0));
    for (const r of rows) {
      const tr = this.row(body, r, max, { "data-pc": r.pc, "data-line": r.line || 0, "data-file": r.file || "" },
                          `${GS.hex(r.pc)}${r.line ? ` (line ${r.line})` : ""}`);
      tr.append(this.cell(GS.hex(r.pc)), this.cell(r.samples ? r.samples.toLocaleString() : "", "num"), this.bar(r, max),
                this.code(r.sass), this.cell(r.line || ""));
    }
    this.sassPane.replaceChildren(body.parentNode);
  }

  selectLine(line) {
    this.state.line = line;
    this.state.pc = null;
    this.mark(this.sourcePane, (tr) => Number(tr.dataset.line) === line);
    const hits = this.mark(this.sassPane, (tr) => Number(tr.dataset.line) === line && tr.dataset.file === this.state.file);
    this.reveal(this.sourcePane, this.sourcePane.querySelector("tr.gs-selected"));
    this.reveal(this.sassPane, hits[0]);
  }

  selectPc(pc) {
    if (pc === undefined || pc === null) return;
    const tr = this.sassPane.querySelector(`tr[data-pc="${pc}"]`);
    if (!tr) return;
    const line = Number(tr.dataset.line), file = tr.dataset.file;
    if (line && this.files.includes(file)) {
      if (file !== this.state.file) this.showFile(file);
      this.selectLine(line);
    } else {
      this.mark(this.sourcePane, () => false);
      this.state.line = 0;
    }
    this.state.pc = pc;
    this.mark(this.sassPane, (row) => row === tr);
    this.reveal(this.sassPane, tr);
  }

  // ---- DOM helpers ----
  // A table with these headers; returns its body.
  tableBody(headers) {
    const table = GS.element("table", { class: "gs-source-table" });
    const head = GS.element("tr", {}, GS.element("thead", {}, table));
    for (const h of headers) GS.element("th", {}, head, h);
    return GS.element("tbody", {}, table);
  }

  row(body, r, max, attrs, place) {
    const samples = r.samples || 0;
    const stalls = this.reasons.filter((s) => r[`stall_${s}`]).sort((a, b) => r[`stall_${b}`] - r[`stall_${a}`]);
    return GS.element("tr", { ...attrs, class: samples ? "gs-heat" : "", style: samples ? `--heat:${(samples / max).toFixed(3)}` : "",
                                  title: samples ? `${place}: ${samples.toLocaleString()} samples, ${(r.share || 0).toFixed(1)}% of the kernel's\n` +
                                                   stalls.map((s) => `${s} ${((100 * r[`stall_${s}`]) / samples).toFixed(0)}%`).join("\n") : place }, body);
  }

  bar(r, max) {
    const td = this.cell("", "gs-stall-cell"), samples = r.samples || 0;
    if (!samples) return td;
    const bar = GS.element("div", { class: "gs-stallbar", style: `width:${Math.max(2, (90 * samples) / max).toFixed(1)}px` }, td);
    for (const s of this.reasons)
      if (r[`stall_${s}`]) GS.element("i", { style: `width:${((100 * r[`stall_${s}`]) / samples).toFixed(2)}%;background:${this.colour.get(s)}`, "data-reason": s }, bar);
    return td;
  }

  cell(text, cls) { return GS.element("td", cls ? { class: cls } : {}, null, String(text)); }
  code(text) { const td = GS.element("td"); GS.element("code", {}, td, text || ""); return td; }

  // Rows of `pane` that `pick` chooses get .gs-selected; returns them.
  mark(pane, pick) {
    const hits = [];
    for (const tr of pane.querySelectorAll("tbody tr")) {
      const on = pick(tr);
      tr.classList.toggle("gs-selected", on);
      if (on) hits.push(tr);
    }
    return hits;
  }

  reveal(pane, tr) { if (tr) pane.scrollTop = Math.max(0, tr.offsetTop - pane.clientHeight / 3); }

  // What the view shows now (window.gpuscope.source()).
  snapshot() {
    const rows = (pane, sel) => [...pane.querySelectorAll(sel)].map((tr) => ({
      line: Number(tr.dataset.line) || 0, pc: tr.dataset.pc === undefined ? null : Number(tr.dataset.pc),
      heat: Number(tr.style.getPropertyValue("--heat")) || 0,
      stalls: [...tr.querySelectorAll(".gs-stallbar i")].map((i) => ({ reason: i.dataset.reason, width: parseFloat(i.style.width) })),
    }));
    return { ...this.state, files: [...this.files], kernels: this.kernels.map((k) => ({ ...k })),
             lines: rows(this.sourcePane, "tr[data-line]"), instructions: rows(this.sassPane, "tr[data-pc]"),
             selectedLines: rows(this.sourcePane, "tr.gs-selected"), selectedInstructions: rows(this.sassPane, "tr.gs-selected") };
  }
};

GS.element = function (tag, attrs, parent, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== "") e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
};

GS.hex = (pc) => `0x${Number(pc).toString(16).padStart(4, "0")}`;
