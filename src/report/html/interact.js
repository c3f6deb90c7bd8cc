// interact.js: what a person does with the timeline: wheel and W/S zoom, A/D and shift+wheel
// pan, drag to zoom to a range, hover for details, click to select (a kernel and its launch
// call are linked by an arrow), search by name, and jumps to a recommendation's evidence.
Object.assign(GS.Timeline.prototype, {
  attach(tooltip) {
    const canvas = this.canvas;
    this.tooltip = tooltip;
    const position = (e) => {
      const r = canvas.getBoundingClientRect();
      return [e.clientX - r.left, e.clientY - r.top];
    };
    canvas.addEventListener("wheel", (e) => {
      e.preventDefault();
      const [px] = position(e);
      if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) this.pan((e.deltaX || e.deltaY) / 1000);
      else this.zoom(Math.exp(e.deltaY * 0.002), px > this.labelWidth ? this.time(px) : undefined);
    }, { passive: false });
    canvas.addEventListener("mousedown", (e) => {
      const [px, py] = position(e);
      const lane = this.laneAt(py);
      if (lane && lane.type === "unit") this.toggleUnit(lane.unit);
      else if (px > this.labelWidth) this.drag = { from: px, to: px };
    });
    canvas.addEventListener("mousemove", (e) => {
      const [px, py] = position(e);
      this.mouseX = px;
      if (this.drag) {
        this.drag.to = px;
        this.draw();
      }
      if (px < this.labelWidth || (this.laneAt(py) || {}).type === "unit") this.showLaneName(this.laneAt(py), e.clientX, e.clientY);
      else this.showTooltip(this.hit(px, py), e.clientX, e.clientY);
    });
    canvas.addEventListener("mouseleave", () => this.showTooltip(null));
    window.addEventListener("mouseup", (e) => {
      if (!this.drag) return;
      const { from, to } = this.drag;
      this.drag = null;
      if (Math.abs(to - from) > 3) this.setView(this.time(Math.min(from, to)), this.time(Math.max(from, to)));
      else {
        const [px, py] = position(e);
        this.select(this.hit(px, py));
      }
    });
    document.addEventListener("keydown", (e) => {
      if (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey || e.altKey) return;
      const at = this.mouseX > this.labelWidth ? this.time(this.mouseX) : undefined;
      const keys = { w: () => this.zoom(0.8, at), s: () => this.zoom(1.25, at), a: () => this.pan(-0.1),
                     d: () => this.pan(0.1), 0: () => this.showWhole(), 1: () => this.showHome(), Escape: () => this.clear() };
      const action = keys[e.key.length === 1 ? e.key.toLowerCase() : e.key];
      if (action) {
        action();
        e.preventDefault();
      }
    });
  },

  // Name, timing and what the record carries, as lines of text (the tooltip's).
  describe({ track: t, i }) {
    const track = this.data.tracks[t], kind = track.sliceKind[i];
    const lines = [this.data.names[track.nameId[i]],
                   `${GS.KINDS[kind]} · ${GS.duration(track.end[i] - track.start[i])} at ${GS.duration(track.start[i])}`];
    if (kind === 0 && track.config) {
      const c = this.data.configs[track.config[i]];
      if (c) {
        lines.push(`grid (${c[0]}, ${c[1]}, ${c[2]}) · block (${c[3]}, ${c[4]}, ${c[5]})` +
                   (c[6] ? ` · cluster (${c[6]}, ${c[7]}, ${c[8]})` : ""));
        lines.push(`${c[9]} registers/thread · shared memory ${GS.bytes(c[10])} static, ${GS.bytes(c[11])} dynamic` +
                   (c[12] ? ` · local ${GS.bytes(c[12])}/thread` : ""));
      }
    }
    if ((kind === 1 || kind === 2) && track.bytes) {
      const bytes = track.bytes[i], seconds = (track.end[i] - track.start[i]) / 1e9;
      const kinds = this.data.memoryKinds, m = track.memory[i];
      const where = kind === 1 ? `${kinds[m >> 4]} → ${kinds[m & 15]}` : kinds[m];
      lines.push(`${GS.bytes(bytes)} bytes · ${where}` + (seconds > 0 ? ` · ${GS.bytes(bytes / seconds)}/s` : ""));
    }
    if (kind === 7 && track.replay)
      lines.push(`replay ${track.replay[i]} of ${track.replays[i]} · ${track.nodes[i]} nodes on all streams`);
    if (track.result && (kind === 3 || kind === 4) && track.result[i]) lines.push(`returned error ${track.result[i]}`);
    if (track.corr[i]) lines.push(`correlation id ${track.corr[i]}`);
    lines.push(this.data.groups[track.group].name + " · " + track.name);
    return lines;
  },

  showWhole() { this.setView(0, this.data.end); },
  showHome() { this.setView(this.home.start, this.home.end); },

  // A lane's full name (its label may be shortened); a unit's header also says a click folds it.
  showLaneName(lane, clientX, clientY) {
    if (!lane) return this.showTooltip(null);
    const text = lane.type === "unit" ? `${this.units[lane.unit].title}\n(click to ${this.units[lane.unit].collapsed ? "unfold" : "fold"})`
      : this.laneText(lane);
    this.showTooltip(text, clientX, clientY);
  },

  // Shows a slice's details, or a text; hides the tooltip for null.
  showTooltip(hit, clientX, clientY) {
    const tip = this.tooltip;
    if (!hit) {
      tip.hidden = true;
      return;
    }
    tip.textContent = typeof hit === "string" ? hit : this.describe(hit).join("\n");
    tip.hidden = false;
    tip.style.left = `${Math.min(clientX + 14, window.innerWidth - tip.offsetWidth - 8)}px`;
    tip.style.top = `${clientY + 14}px`;
  },

  // The slices a selection is linked to by correlation id in the same process and run: a
  // launch call's GPU work, or the launch call of a kernel, copy or memset.
  linksOf({ track: t, i }) {
    const track = this.data.tracks[t], corr = track.corr[i];
    if (!corr) return [];
    const group = this.data.groups[track.group], wanted = track.kind === "stream" ? "thread" : "stream";
    const out = [];
    for (const g of this.data.groups) {
      if (g.pid !== group.pid || g.run !== group.run) continue;
      for (const other of g.tracks) {
        const o = this.data.tracks[other];
        if (o.kind !== wanted) continue;
        for (let k = 0; k < o.count; k++)
          if (o.corr[k] === corr && (wanted === "stream" || o.sliceKind[k] === 3 || o.sliceKind[k] === 4))
            out.push({ track: other, i: k });
      }
    }
    return out;
  },

  select(hit) {
    this.selection = hit;
    this.linked = hit ? this.linksOf(hit) : [];
    this.draw();
    if (this.onSelect) this.onSelect(hit);
  },

  clear() {
    this.selection = null;
    this.linked = [];
    this.bands = [];
    this.highlight = null;
    this.draw();
  },

  // Highlights the slices whose name contains `text` (case-insensitive); returns their count.
  search(text) {
    const needle = text.trim().toLowerCase();
    if (!needle) {
      this.highlight = null;
      this.draw();
      return 0;
    }
    const names = this.data.names, flags = new Uint8Array(names.length);
    for (let n = 0; n < names.length; n++) flags[n] = names[n].toLowerCase().includes(needle) ? 1 : 0;
    let count = 0;
    for (const track of this.data.tracks) for (let k = 0; k < track.count; k++) count += flags[track.nameId[k]];
    this.highlight = flags;
    this.draw();
    return count;
  },

  // Shows a recommendation's evidence (or the critical path's segments): the view covers all its
  // spans with a short margin, the spans are shaded, and each slice of the span's process that
  // is exactly a span (a kernel on the path, a launch the finding names) is outlined.
  showEvidence(spans) {
    if (!spans || !spans.length) return false;
    const start = Math.min(...spans.map((s) => s[0])), end = Math.max(...spans.map((s) => s[1]));
    const margin = Math.max((end - start) * 0.1, 5);  // the view stays within 1.2x of the evidence
    this.bands = spans;
    this.marked = this.slicesOf(spans);
    this.setView(start - margin, end + margin);
    return true;
  },

  // The slices whose start and end are a span's ([start, end, pid]; times within 2 ns, as the
  // payload's ns deltas round), in the span's process: one pass over each of its tracks.
  slicesOf(spans) {
    const byPid = new Map();
    for (const [s, e, pid] of spans) {
      if (!byPid.has(pid)) byPid.set(pid, []);
      byPid.get(pid).push([s, e]);
    }
    const out = [];
    for (const [pid, list] of byPid) {
      list.sort((a, b) => a[0] - b[0]);
      this.data.tracks.forEach((track, t) => {
        if (this.data.groups[track.group].pid !== pid) return;
        let k = 0;
        for (let i = 0; i < track.count; i++) {
          while (k < list.length && list[k][0] < track.start[i] - 2) k++;
          for (let j = k; j < list.length && list[j][0] <= track.start[i] + 2; j++)
            if (Math.abs(list[j][1] - track.end[i]) <= 2) {
              out.push({ track: t, i });
              break;
            }
        }
      });
    }
    return out;
  },

  // A slice as the page's test interface shows it.
  sliceInfo({ track: t, i }) {
    const track = this.data.tracks[t];
    return { kind: GS.KINDS[track.sliceKind[i]], name: this.data.names[track.nameId[i]], start: track.start[i],
             end: track.end[i] };
  },
});
