// timeline.js: the canvas timeline. Lanes: each group (a process, a GPU), its tracks (threads,
// streams, NVTX ranges, profiler overhead) one row per nesting level, then its counters.
// Drawing is level-of-detail: a slice at least one pixel wide is a box; narrower slices that
// fall in one pixel column are one column whose opacity is their busy share, found by binary
// search and a running sum, so a frame costs O(boxes + pixels x log n) whatever the zoom.
GS.Timeline = class {
  constructor(canvas, data) {
    this.canvas = canvas;
    this.data = data;
    this.ctx = canvas.getContext("2d");
    this.labelWidth = 230;
    this.rowHeight = 16;
    this.stats = { ms: 0, boxes: 0, kernelBoxes: 0, aggregated: 0 };
    this.boxes = [];  // individually drawn boxes of the last frame: {track, i, x, y, w, h}
    this.selection = null;  // {track, i}
    this.linked = [];  // slices linked to the selection: [{track, i}]
    this.highlight = null;  // Uint8Array over names, while a search is active
    this.bands = [];  // evidence spans shown: [[start, end, pid]]
    this.marked = [];  // slices that are evidence spans, outlined: [{track, i}]
    this.colours = new Map();
    const kernelNames = new Set();  // name ids of kernels: C++ signatures, which labels may trim
    for (const t of data.tracks) if (t.kind === "stream") for (let i = 0; i < t.count; i++) if (t.sliceKind[i] === 0) kernelNames.add(t.nameId[i]);
    const kernel = new Set([...kernelNames].map((id) => data.names[id]));
    this.labeller = new GS.Labeller(data.names, { signature: (name) => kernel.has(name) });
    this.fitted = new Map();  // (name, characters) -> the label drawn in a box
    this.labels = [];  // box labels of the last frame: {x, y, w, text, name}
    this.buildUnits();
    this.layoutLanes();
    this.home = this.homeView();
    this.view = { start: this.home.start, end: this.home.end };
  }

  // The view the page opens on: the steady-state steps the report judges (with a margin of 2 %
  // each side), else the span of the GPUs' activity, else the whole run.
  homeView() {
    const d = this.data, whole = { start: 0, end: Math.max(d.end, 1), what: "run" };
    const padded = (start, end, what) => {
      const margin = Math.max((end - start) * 0.02, 5);
      return { start: Math.max(start - margin, 0), end: Math.min(end + margin, whole.end), what };
    };
    if (d.steady && d.steady.end > d.steady.start) return padded(d.steady.start, d.steady.end, "steps");
    let start = Infinity, end = -Infinity;
    for (const t of d.tracks) {
      if (t.kind !== "stream" || !t.count) continue;
      start = Math.min(start, t.start[0]);
      for (const row of t.rows) if (row.n) end = Math.max(end, row.e[row.n - 1]);
    }
    return end > start ? padded(start, end, "gpu") : whole;
  }

  resize() {
    const ratio = window.devicePixelRatio || 1;
    this.width = Math.max(this.canvas.parentElement.clientWidth, 400);
    this.canvas.width = Math.round(this.width * ratio);
    this.canvas.height = Math.round(this.height * ratio);
    this.canvas.style.width = `${this.width}px`;
    this.canvas.style.height = `${this.height}px`;
    this.ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  }

  x(t) { return this.labelWidth + ((t - this.view.start) / (this.view.end - this.view.start)) * (this.width - this.labelWidth); }
  time(x) { return this.view.start + ((x - this.labelWidth) / (this.width - this.labelWidth)) * (this.view.end - this.view.start); }

  setView(start, end) {
    const span = this.data.end || 1, minimum = 10;
    if (!(end - start >= minimum)) [start, end] = [(start + end - minimum) / 2, (start + end + minimum) / 2];
    const margin = span * 0.05;
    const width = Math.min(end - start, span + 2 * margin);
    start = Math.min(Math.max(start, -margin), span + margin - width);
    this.view = { start, end: start + width };
    this.draw();
  }

  zoom(factor, at) {
    const { start, end } = this.view;
    const anchor = at === undefined ? (start + end) / 2 : at;
    this.setView(anchor - (anchor - start) * factor, anchor + (end - anchor) * factor);
  }

  pan(fraction) {
    const shift = (this.view.end - this.view.start) * fraction;
    this.setView(this.view.start + shift, this.view.end + shift);
  }

  colour(track, i) {
    const kind = track.sliceKind[i], nameId = track.nameId[i];
    const key = kind * 1e7 + nameId;
    let c = this.colours.get(key);
    if (c) return c;
    const name = this.data.names[nameId];
    const base = { 0: [GS.hue(name), 62, 52], 1: [name.includes("HtoD") ? 130 : name.includes("DtoH") ? 0 : 280, 55, 48],
                   2: [40, 10, 55], 3: [205 + (GS.hue(name) % 30), 45, 62], 4: [175, 35, 55], 5: [GS.hue(name), 45, 72],
                   6: [0, 0, 65], 7: [265, 30, 78] }[kind];
    c = `hsl(${base[0]} ${base[1]}% ${base[2]}%)`;
    this.colours.set(key, c);
    return c;
  }

  draw() {
    const began = performance.now();
    const ctx = this.ctx, css = getComputedStyle(document.documentElement);
    this.theme = { bg: css.getPropertyValue("--bg"), fg: css.getPropertyValue("--fg"),
                   grid: css.getPropertyValue("--grid"), band: css.getPropertyValue("--band"),
                   lane: css.getPropertyValue("--lane"), accent: css.getPropertyValue("--accent") };
    ctx.fillStyle = this.theme.bg;
    ctx.fillRect(0, 0, this.width, this.height);
    this.stats = { ms: 0, boxes: 0, kernelBoxes: 0, aggregated: 0 };
    this.boxes = [];
    this.labels = [];
    ctx.save();
    ctx.beginPath();
    ctx.rect(this.labelWidth, 0, this.width - this.labelWidth, this.height);
    ctx.clip();
    this.drawBands(this.bands, this.theme.band);
    for (const lane of this.lanes) {
      if (lane.type === "track") this.drawTrack(lane);
      else if (lane.type === "counter") this.drawCounter(lane);
    }
    this.drawMarked();
    this.drawSelection();
    if (this.drag) this.drawBands([[this.time(this.drag.from), this.time(this.drag.to)].sort((a, b) => a - b)], this.theme.band);
    ctx.restore();
    this.drawLabels();
    this.drawRuler();
    this.stats.ms = performance.now() - began;
    return this.stats;
  }

  drawTrack(lane) {
    const track = this.data.tracks[lane.track];
    for (let r = 0; r < track.rows.length; r++) this.drawRow(track, track.rows[r], lane.y + 2 + r * this.rowHeight);
    this.drawMarks(track, lane.y + 2);
  }

  drawRow(track, row, y) {
    const ctx = this.ctx, h = this.rowHeight - 2, v0 = this.view.start, v1 = this.view.end;
    const scale = (this.width - this.labelWidth) / (v1 - v0), left = this.labelWidth;
    let i = GS.firstAbove(row.e, v0);
    while (i < row.n && row.s[i] < v1) {
      const slice = row.idx[i];
      const x0 = (row.s[i] - v0) * scale, x1 = (row.e[i] - v0) * scale;
      const dim = this.highlight && !this.highlight[track.nameId[slice]];
      if (x1 - x0 >= 1) {
        ctx.globalAlpha = dim ? 0.2 : 1;
        ctx.fillStyle = this.colour(track, slice);
        const bx = Math.max(x0, -2), bw = Math.min(x1, this.width - left + 2) - bx;
        ctx.fillRect(left + bx, y, bw, h);
        // The label within the box's visible part, so that it never starts left of the lane.
        const vx = Math.max(x0, 0), vw = Math.min(x1, this.width - left) - vx;
        if (vw > 40) this.label(track, slice, left + vx, y, vw, h);
        this.boxes.push({ track: track.index, i: slice, x: left + bx, y, w: bw, h });
        this.stats.boxes++;
        if (track.sliceKind[slice] === 0) this.stats.kernelBoxes++;
        i++;
        continue;
      }
      // Slices ending inside this pixel column are drawn as one column, as opaque as busy.
      const column = Math.max(Math.floor(x0), 0);
      const columnEnd = v0 + (column + 1) / scale;
      const j = Math.max(GS.firstAbove(row.e, columnEnd, i), i + 1);
      const busy = Math.min(1, (row.busy[j] - row.busy[i]) * scale);
      ctx.globalAlpha = (dim ? 0.2 : 1) * (0.35 + 0.65 * busy);
      ctx.fillStyle = this.colour(track, slice);
      ctx.fillRect(left + column, y, 1, h);
      this.stats.aggregated++;
      i = j;
    }
    ctx.globalAlpha = 1;
  }

  // A box's name, shortened in the middle to its width (GS.Labeller: what tells it apart from
  // similar names stays), measured as drawn.
  label(track, slice, x, y, w, h) {
    const ctx = this.ctx, nameId = track.nameId[slice];
    ctx.font = "11px system-ui, sans-serif";
    if (!this.charWidth) this.charWidth = ctx.measureText("abcdefghijklmnopqrstuvwxyz_0123456789<>:,").width / 42;
    const room = w - 6, chars = Math.floor(room / this.charWidth), key = nameId * 4096 + Math.min(chars, 4095);
    let fitted = this.fitted.get(key);
    if (!fitted) {
      const name = this.data.names[nameId];
      let n = chars;
      fitted = { text: this.labeller.fit(name, n) };
      while (fitted.text && (fitted.width = ctx.measureText(fitted.text).width) > room) fitted.text = this.labeller.fit(name, (n = n - 2));
      // A label too short to hold what tells the name apart is left out: the hover names it.
      if (fitted.text !== name && n < 10) fitted.text = "";
      this.fitted.set(key, fitted);
    }
    if (!fitted.text) return;
    ctx.fillStyle = "#111";
    ctx.fillText(fitted.text, x + 3, y + h - 3);
    this.labels.push({ x: x + 3, y, w: fitted.width, text: fitted.text, name: this.data.names[nameId] });
  }

  drawMarks(track, y) {
    const ctx = this.ctx, marks = track.marks;
    let i = GS.firstAbove(marks.time, this.view.start - 1);
    ctx.fillStyle = this.theme.accent;
    for (let drawn = 0; i < marks.time.length && marks.time[i] <= this.view.end && drawn < 5000; i++, drawn++) {
      const x = this.x(marks.time[i]);
      ctx.beginPath();
      ctx.moveTo(x - 4, y);
      ctx.lineTo(x + 4, y);
      ctx.lineTo(x, y + 7);
      ctx.fill();
    }
  }

  // A step function; per pixel column the highest value in it, so no peak disappears.
  drawCounter(lane) {
    const c = this.data.counters[lane.counter], ctx = this.ctx;
    const max = c.max;
    lane.max = max;
    if (!c.t.length || max <= 0) return;
    const top = lane.y + 4, h = lane.h - 8, yOf = (v) => top + h - (v / max) * h;
    let i = Math.max(GS.firstAbove(c.t, this.view.start) - 1, 0);
    ctx.fillStyle = this.theme.accent;
    ctx.globalAlpha = 0.45;
    while (i < c.t.length && c.t[i] <= this.view.end) {
      const x0 = Math.max(this.x(c.t[i]), this.labelWidth - 1);
      let j = i + 1, peak = c.v[i];
      while (j < c.t.length && this.x(c.t[j]) < x0 + 1) peak = Math.max(peak, c.v[j++]);
      const x1 = this.x(j < c.t.length ? c.t[j] : c.end);
      ctx.fillRect(x0, yOf(peak), Math.max(x1 - x0, 1), top + h - yOf(peak));
      i = j;
    }
    ctx.globalAlpha = 1;
  }

  drawBands(bands, colour) {
    const ctx = this.ctx;
    ctx.fillStyle = colour;
    for (const [s, e] of bands) {
      if (e < this.view.start || s > this.view.end) continue;
      const x0 = this.x(s), x1 = this.x(e);
      ctx.fillRect(x0, 24, Math.max(x1 - x0, 2), this.height - 24);
    }
  }

  // The evidence's slices (showEvidence), outlined in the accent colour.
  drawMarked() {
    const ctx = this.ctx;
    ctx.strokeStyle = this.theme.accent;
    ctx.lineWidth = 2;
    for (const s of this.marked) {
      const b = this.sliceBox(s);
      if (b && b.x + b.w >= this.labelWidth && b.x <= this.width) ctx.strokeRect(b.x, b.y, Math.max(b.w, 2), b.h);
    }
    ctx.lineWidth = 1;
  }

  // The selected slice, the slices linked to it, and an arrow from each launch call to its work.
  drawSelection() {
    if (!this.selection) return;
    const ctx = this.ctx;
    const all = [this.selection, ...this.linked];
    ctx.strokeStyle = this.theme.fg;
    ctx.lineWidth = 2;
    for (const s of all) {
      const b = this.sliceBox(s);
      if (!b) continue;  // in a folded unit
      ctx.strokeRect(b.x, b.y, Math.max(b.w, 2), b.h);
    }
    ctx.strokeStyle = this.theme.accent;
    ctx.fillStyle = this.theme.accent;
    for (const other of this.linked) {
      const gpu = this.data.tracks[this.selection.track].kind === "stream";
      const from = this.sliceBox(gpu ? other : this.selection), to = this.sliceBox(gpu ? this.selection : other);
      if (!from || !to) continue;
      const ax = from.x, ay = from.y + from.h / 2, bx = to.x, by = to.y + to.h / 2;
      ctx.beginPath();
      ctx.moveTo(ax, ay);
      ctx.lineTo(bx, by);
      ctx.stroke();
      const angle = Math.atan2(by - ay, bx - ax);
      ctx.beginPath();
      ctx.moveTo(bx, by);
      ctx.lineTo(bx - 9 * Math.cos(angle - 0.4), by - 9 * Math.sin(angle - 0.4));
      ctx.lineTo(bx - 9 * Math.cos(angle + 0.4), by - 9 * Math.sin(angle + 0.4));
      ctx.fill();
    }
    ctx.lineWidth = 1;
  }

  sliceBox({ track, i }) {
    const t = this.data.tracks[track];
    if (!this.trackY.has(track)) return null;
    const y = this.trackY.get(track) + 2 + t.row[i] * this.rowHeight;
    const x0 = this.x(t.start[i]);
    return { x: x0, y, w: this.x(t.end[i]) - x0, h: this.rowHeight - 2 };
  }

  drawRuler() {
    const ctx = this.ctx, span = this.view.end - this.view.start;
    ctx.fillStyle = this.theme.lane;
    ctx.fillRect(0, 0, this.width, 24);
    const target = (span * 90) / (this.width - this.labelWidth);
    const power = Math.pow(10, Math.floor(Math.log10(Math.max(target, 1))));
    let step = power;
    for (const m of [1, 2, 5, 10]) if ((step = m * power) >= target) break;
    ctx.fillStyle = this.theme.fg;
    ctx.font = "11px system-ui, sans-serif";
    for (let t = Math.ceil(this.view.start / step) * step; t <= this.view.end; t += step) {
      const x = this.x(t);
      ctx.fillRect(x, 16, 1, 8);
      ctx.fillText(GS.tick(t, step), x + 3, 13);
    }
    ctx.fillText(`view ${GS.duration(span)}`, 6, 15);
  }

  // The slice under a page position, or null: {track, i}.
  hit(px, py) {
    const lane = this.lanes.find((l) => l.type === "track" && py >= l.y && py < l.y + l.h);
    if (!lane || px < this.labelWidth) return null;
    const track = this.data.tracks[lane.track];
    const row = track.rows[Math.floor((py - lane.y - 2) / this.rowHeight)];
    if (!row) return null;
    const t = this.time(px), tolerance = (2 * (this.view.end - this.view.start)) / (this.width - this.labelWidth);
    const k = GS.firstAbove(row.e, t - tolerance);
    if (k < row.n && row.s[k] <= t + tolerance) return { track: lane.track, i: row.idx[k] };
    return null;
  }
};
