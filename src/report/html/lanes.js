// lanes.js: the timeline's vertical layout and its left column. Each group (a process, a GPU)
// is a header and its lanes; on a capture of several processes (a distributed job's ranks, a
// program's children), each process and the GPUs it used are one unit under a header ("rank 0 ·
// pid 794 · GPU 0"), which a click folds and unfolds.
Object.assign(GS.Timeline.prototype, {
  // The units: each process group with the device groups of its pid and run, which the layout
  // lists right after it (src/export/tracks_order.cpp). None when there is one process.
  buildUnits() {
    const groups = this.data.groups;
    this.units = [];
    if (groups.filter((g) => g.kind === "process").length < 2) return;
    let unit = null;
    groups.forEach((g, index) => {
      if (g.kind === "process" || !unit || unit.pid !== g.pid || unit.run !== g.run) {
        unit = { pid: g.pid, run: g.run, rank: g.rank === undefined ? -1 : g.rank, groups: [], devices: [], collapsed: false };
        this.units.push(unit);
      }
      unit.groups.push(index);
      if (g.kind === "device") unit.devices.push(g.device);
    });
    for (const u of this.units) {
      const parts = [];
      if (u.run) parts.push(`run ${u.run}`);
      if (u.rank >= 0) parts.push(`rank ${u.rank}`);
      parts.push(`pid ${u.pid}`);
      parts.push(u.devices.length ? `GPU ${u.devices.join(", ")}` : "no GPU work");
      const process = groups[u.groups[0]];
      const command = process.kind === "process" ? process.name.replace(/^.*?process \d+:? ?/, "") : "";
      u.name = parts.join(" · ");
      u.title = command ? `${u.name} · ${command}` : u.name;
    }
  },

  // One entry per drawn lane, with its y offset below the ruler; a folded unit is its header.
  layoutLanes() {
    const lanes = [];
    let y = 24;
    const addGroup = (g) => {
      const group = this.data.groups[g];
      lanes.push({ type: "group", group: g, y, h: 20, name: group.name });
      y += 20;
      for (const t of group.tracks) {
        const h = this.data.tracks[t].rows.length * this.rowHeight + 4;
        lanes.push({ type: "track", track: t, y, h, name: this.data.tracks[t].name });
        y += h;
      }
      for (const c of group.counters) {
        lanes.push({ type: "counter", counter: c, y, h: 40, name: this.data.counters[c].name });
        y += 40;
      }
    };
    if (!this.units.length) this.data.groups.forEach((g, k) => addGroup(k));
    this.units.forEach((unit, u) => {
      lanes.push({ type: "unit", unit: u, y, h: 22, name: unit.name });
      y += 22;
      if (!unit.collapsed) unit.groups.forEach(addGroup);
    });
    this.lanes = lanes;
    this.trackY = new Map(lanes.filter((l) => l.type === "track").map((l) => [l.track, l.y]));
    this.height = y + 4;
    this.laneLabeller = new GS.Labeller(lanes.map((l) => l.name), { signature: () => false });
  },

  // Folds or unfolds a unit; the canvas takes its new height.
  toggleUnit(u) {
    const unit = this.units[u];
    if (!unit) return false;
    unit.collapsed = !unit.collapsed;
    this.layoutLanes();
    this.resize();
    this.draw();
    return unit.collapsed;
  },

  laneAt(py) {
    return this.lanes.find((l) => py >= l.y && py < l.y + l.h) || null;
  },

  // The text of a lane's left-column label: its name (a counter with its maximum).
  laneText(lane) {
    if (lane.type !== "counter") return lane.name;
    const c = this.data.counters[lane.counter], max = lane.max || 0;
    return `${c.name} (max ${c.unit === "bytes" ? GS.bytes(max) : max.toFixed(1) + " " + c.unit})`;
  },

  // The left column: group and lane names, shortened in the middle to fit (full name on hover),
  // and each unit's header as a band across the whole width.
  drawLabels() {
    const ctx = this.ctx;
    ctx.fillStyle = this.theme.lane;
    ctx.fillRect(0, 0, this.labelWidth, this.height);
    for (const lane of this.lanes) {
      const unit = lane.type === "unit", bold = unit || lane.type === "group";
      if (unit) {
        ctx.fillStyle = this.theme.lane;
        ctx.fillRect(0, lane.y, this.width, lane.h);
      }
      if (bold) {
        ctx.fillStyle = this.theme.grid;
        ctx.fillRect(0, lane.y, this.width, 1);
      }
      ctx.fillStyle = this.theme.fg;
      ctx.font = `${bold ? "600 " : ""}12px system-ui, sans-serif`;
      const x = unit ? 20 : lane.type === "group" ? 6 : 16;
      const room = (unit ? this.width : this.labelWidth) - x - 6;
      const full = unit ? this.units[lane.unit].title : this.laneText(lane);
      const fit = (n) => (full === lane.name ? this.laneLabeller.fit(full, n) : GS.middle(full, n, 0));
      let chars = Math.floor(room / 6.2), text = fit(chars);
      while (text && ctx.measureText(text).width > room) text = fit((chars -= 2));
      ctx.fillText(text, x, lane.y + (unit ? 15 : 14));
      if (unit) {
        const folded = this.units[lane.unit].collapsed;
        ctx.beginPath();  // a triangle: right when folded, down when open
        if (folded) ctx.moveTo(7, lane.y + 6), ctx.lineTo(13, lane.y + 11), ctx.lineTo(7, lane.y + 16);
        else ctx.moveTo(5, lane.y + 8), ctx.lineTo(15, lane.y + 8), ctx.lineTo(10, lane.y + 14);
        ctx.fill();
      }
    }
  },
});
