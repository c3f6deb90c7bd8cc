// app.js: starts the page: theme, payload, source view, timeline, charts, search and evidence links, and
// window.gpuscope, the interface the browser tests and people's own scripts use (docs/report.md).
(function () {
  const root = document.documentElement;
  const dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  root.dataset.theme = dark ? "dark" : "light";
  let timeline = null, data = null, firstPaintMs = null, sourceView = null;

  const status = (text) => {
    const s = document.getElementById("gs-timeline-status");
    if (s) {
      s.textContent = text;
      s.hidden = !text;
    }
  };

  function startTimeline(t) {
    const canvas = document.getElementById("gs-timeline");
    if (!canvas || !t) return;
    timeline = new GS.Timeline(canvas, t);
    timeline.attach(document.getElementById("gs-tooltip"));
    timeline.resize();
    timeline.draw();
    firstPaintMs = performance.now();
    const notes = [], home = timeline.home;
    if (home.what === "steps")
      notes.push(`Showing the steady-state steps the report judges: ${t.steady.range} 2–${t.steady.steps} ` +
                 `(${GS.duration(t.steady.end - t.steady.start)} of the ${GS.duration(t.end)} run); 0: whole run, 1: back here.`);
    else if (home.what === "gpu")
      notes.push(`Showing the span of GPU activity (${GS.duration(home.end - home.start)} of the ${GS.duration(t.end)} run); ` +
                 "0: whole run, 1: back here.");
    if (t.profilerTimeCut)
      notes.push(`The metric collection time (${GS.duration(t.profilerTimeCut)}) is cut out of this timeline, as out of the report's numbers.`);
    if (t.untimed) notes.push(`${t.untimed.toLocaleString()} records without valid times are not drawn.`);
    status(notes.join(" "));
    window.addEventListener("resize", () => {
      timeline.resize();
      timeline.draw();
    });
  }

  function startCharts(report, t) {
    const panel = document.getElementById("gs-charts");
    const heading = document.createElement("h2");
    heading.textContent = "Charts";
    panel.appendChild(heading);
    const grid = document.createElement("div");
    grid.className = "gs-chart-grid";
    panel.appendChild(grid);
    for (const name of ["forest", "kernel_breakdown", "kernel_durations", "memory_in_use", "gpu_utilization",
                        "nvtx_durations", "roofline"])
      GS.figures[name](grid, report, t);
    if (!grid.children.length) panel.hidden = true;
  }

  function wireLinks() {
    for (const link of document.querySelectorAll("[data-evidence]"))
      link.addEventListener("click", (e) => {
        e.preventDefault();
        const spans = timeline && data.timeline.evidence[link.dataset.evidence];
        if (spans && timeline.showEvidence(spans)) document.getElementById("gs-timeline-panel").scrollIntoView({ block: "start" });
        else status("This finding names no instances on the timeline (see its evidence text).");
      });
    const views = [["gs-view-home", () => timeline.showHome()], ["gs-view-run", () => timeline.showWhole()]];
    for (const [id, show] of views) {
      const button = document.getElementById(id);
      if (button) button.addEventListener("click", () => timeline && show());
    }
    const search = document.getElementById("gs-search");
    search.addEventListener("input", () => {
      if (timeline) search.title = `${timeline.search(search.value).toLocaleString()} matching slices`;
    });
    document.getElementById("gs-theme").addEventListener("click", () => {
      root.dataset.theme = root.dataset.theme === "dark" ? "light" : "dark";
      if (timeline) timeline.draw();
    });
  }

  const selectionOf = (hit) => {
    if (!hit) return null;
    const info = timeline.sliceInfo(hit), links = timeline.linksOf(hit).map((l) => timeline.sliceInfo(l));
    if (timeline.data.tracks[hit.track].kind === "stream") info.launch = links[0] || null;
    else info.gpu = links;
    return info;
  };

  const ready = (async () => {
    data = await GS.loadPayload();
    const source = document.getElementById("sec-source");
    if (source) sourceView = new GS.SourceView(data.report, source);
    startTimeline(data.timeline);
    startCharts(data.report, data.timeline);
    wireLinks();
    return { firstPaintMs };
  })();
  ready.catch((error) => {
    status(`The timeline and charts could not be shown: ${error.message}. The report below is complete.`);
    console.error(error);
  });

  window.gpuscope = {
    ready,
    origin: () => (data && data.timeline ? data.timeline.origin : null),
    view: () => (timeline ? { ...timeline.view } : null),
    // The view the page opened on ({start, end, what}: "steps", "gpu" or "run") and the whole run.
    home: () => (timeline ? { ...timeline.home } : null),
    whole: () => (timeline ? { start: 0, end: timeline.data.end } : null),
    setView: (start, end) => (timeline.setView(start, end), { ...timeline.stats }),
    lastDraw: () => (timeline ? { ...timeline.stats } : null),
    locate(kind, n) {
      const code = GS.KINDS.indexOf(kind), r = timeline.canvas.getBoundingClientRect();
      const box = timeline.boxes.filter((b) => timeline.data.tracks[b.track].sliceKind[b.i] === code)[n];
      if (!box) return null;
      const x0 = Math.max(box.x, timeline.labelWidth), x1 = Math.min(box.x + box.w, timeline.width);
      return { x: r.left + (x0 + x1) / 2, y: r.top + box.y + box.h / 2 };
    },
    selection: () => (timeline ? selectionOf(timeline.selection) : null),
    // The box labels of the last frame ({x, y, w, text, name}, x and w in canvas px; lanes start at
    // labelWidth) and the lanes ({type, name, y, h}; a unit is a process with its GPUs).
    labels: () => (timeline ? { labelWidth: timeline.labelWidth, width: timeline.width, labels: timeline.labels.map((l) => ({ ...l })) } : null),
    lanes: () => (timeline ? timeline.lanes.map((l) => ({ type: l.type, name: l.type === "unit" ? timeline.units[l.unit].title : l.name,
                                                          y: l.y, h: l.h, unit: l.unit, track: l.track })) : []),
    units: () => (timeline ? timeline.units.map((u) => ({ name: u.name, pid: u.pid, rank: u.rank, devices: [...u.devices],
                                                          collapsed: u.collapsed, groups: u.groups.map((g) => timeline.data.groups[g].name) })) : []),
    search: (text) => {
      document.getElementById("gs-search").value = text;
      return timeline ? timeline.search(text) : 0;
    },
    // The slices the last evidence link outlined (a finding's instances, the critical path's work).
    marked: () => (timeline ? timeline.marked.map((s) => timeline.sliceInfo(s)) : []),
    evidence: (rule) => (data && data.timeline && data.timeline.evidence[rule] ? data.timeline.evidence[rule].map((s) => ({ start: s[0], end: s[1] })) : []),
    report: () => (data ? data.report : null),
    // The source view: what it shows ({kernel, file, line, pc, lines, instructions, ...}), and
    // showing kernel `rank` (its row in Sampled kernels) at {file, line} or {pc}.
    source: () => (sourceView && sourceView.kernels.length ? sourceView.snapshot() : null),
    showSource: (rank, at) => (sourceView.show(rank, at), sourceView.snapshot()),
  };
})();
