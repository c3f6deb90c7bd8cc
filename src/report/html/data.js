// data.js: unpacks the page's payload (src/report/html_payload.h) into the report model (JSON)
// and the timeline as typed arrays, one set per track, with each row's slices indexed for
// binary search and level-of-detail drawing. Times are ns from the timeline's origin.
const GS = (window.GS = {});

// SliceKind in include/gpuscope/tracks.h, by value.
GS.KINDS = ["kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver", "user_annotation", "overhead",
            "cuda_graph"];

GS.loadPayload = async function () {
  const text = document.getElementById("gs-payload").textContent.trim();
  const binary = atob(text);
  const packed = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) packed[i] = binary.charCodeAt(i);
  const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
  const buffer = await new Response(stream).arrayBuffer();
  const view = new DataView(buffer);
  const magic = String.fromCharCode(view.getUint8(0), view.getUint8(1), view.getUint8(2), view.getUint8(3));
  if (magic !== "GSPL" || view.getUint32(4, true) !== 1) throw new Error("unknown payload format");
  const headerLength = view.getUint32(8, true);
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 12, headerLength)));
  const base = Math.ceil((12 + headerLength) / 8) * 8;
  const column = (c) => {
    const types = { u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, f64: Float64Array };
    return new types[c.t](buffer, base + c.o, c.c);
  };
  return { report: header.report, timeline: header.timeline && decodeTimeline(header.timeline, column) };
};

function decodeTimeline(t, column) {
  const tracks = t.tracks.map((track, index) => decodeTrack(track, index, column));
  const counters = t.counters.map((c) => {
    const v = column(c.v);
    return { ...c, t: column(c.t), v, max: GS.largest(v) };
  });
  return {
    origin: t.origin, end: t.end, untimed: t.untimed, names: t.names, groups: t.groups, tracks, counters,
    configs: t.configs, memoryKinds: t.memory_kinds, evidence: t.evidence || {}, profilerTimeCut: t.profiler_time_cut || 0,
    steady: t.steady || null,
  };
}

function prefixTimes(deltas, durations) {
  const n = deltas.length, start = new Float64Array(n), end = new Float64Array(n);
  let at = 0;
  for (let i = 0; i < n; i++) {
    at += deltas[i];
    start[i] = at;
    end[i] = at + durations[i];
  }
  return { start, end };
}

function decodeTrack(track, index, column) {
  const c = track.cols;
  const { start, end } = prefixTimes(column(c.s), column(c.d));
  const out = {
    index, group: track.group, kind: track.kind, name: track.name, count: track.count, nests: track.nests,
    start, end, nameId: column(c.n), sliceKind: column(c.k), row: column(c.r), corr: column(c.c),
    config: c.g && column(c.g), bytes: c.b && column(c.b), memory: c.m && column(c.m), result: c.e && column(c.e),
    replay: c.q && column(c.q), replays: c.qn && column(c.qn), nodes: c.o && column(c.o),
  };
  out.rows = splitRows(out, Math.max(track.rows, 1));
  const markTimes = prefixTimes(column(track.marks.t), new Float64Array(track.marks.count));
  out.marks = { time: markTimes.start, nameId: column(track.marks.n) };
  return out;
}

// Per row: the indices of its slices, their starts and ends (both ascending: a row's slices
// never overlap) and the running sum of their durations, so the busy time of any span of a
// row is one subtraction (level-of-detail columns).
function splitRows(track, rowCount) {
  const counts = new Uint32Array(rowCount);
  for (let i = 0; i < track.count; i++) counts[track.row[i]]++;
  const rows = [];
  for (let r = 0; r < rowCount; r++)
    rows.push({ idx: new Uint32Array(counts[r]), s: new Float64Array(counts[r]), e: new Float64Array(counts[r]),
                busy: new Float64Array(counts[r] + 1), n: 0 });
  for (let i = 0; i < track.count; i++) {
    const row = rows[track.row[i]];
    row.idx[row.n] = i;
    row.s[row.n] = track.start[i];
    row.e[row.n] = track.end[i];
    row.busy[row.n + 1] = row.busy[row.n] + (track.end[i] - track.start[i]);
    row.n++;
  }
  return rows;
}

// The largest value of an array of any length (Math.max(...a) overflows the stack past ~100k); 0 if none.
GS.largest = function (values) {
  let max = 0;
  for (let i = 0; i < values.length; i++) if (values[i] > max) max = values[i];
  return max;
};

// First index i in the ascending array a (from `lo`) with a[i] > value.
GS.firstAbove = function (a, value, lo = 0) {
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] > value) hi = mid;
    else lo = mid + 1;
  }
  return lo;
};

// "1.25 s", "350.0 µs", "812 ns": durations for people, like the text report.
GS.duration = function (ns) {
  const a = Math.abs(ns);
  const [value, unit] = a >= 1e9 ? [ns / 1e9, "s"] : a >= 1e6 ? [ns / 1e6, "ms"] : a >= 1e3 ? [ns / 1e3, "µs"] : [ns, "ns"];
  if (unit === "ns") return `${Math.round(value)} ns`;
  return `${Math.abs(value) < 100 ? value.toFixed(2) : value.toFixed(1)} ${unit}`;
};

// A ruler label: the time in the unit of its magnitude, with as many decimals as the tick step
// needs, so that ticks 1 µs apart 2 s into a run still read apart ("2.000123 s").
GS.tick = function (ns, step) {
  const unit = Math.abs(ns) >= 1e9 ? [1e9, "s"] : Math.abs(ns) >= 1e6 ? [1e6, "ms"] : Math.abs(ns) >= 1e3 ? [1e3, "µs"] : [1, "ns"];
  const decimals = Math.min(9, Math.max(0, Math.ceil(Math.log10(unit[0] / step) - 1e-9)));
  return `${(ns / unit[0]).toFixed(decimals)} ${unit[1]}`;
};

// An axis label: a duration without trailing zeros ("10 µs", "2.5 ms", "500 ns").
GS.durationTick = function (ns) {
  return GS.duration(ns).replace(/(\.\d*?)0+ /, "$1 ").replace(/\. /, " ");
};

GS.bytes = function (b) {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let i = 0;
  while (Math.abs(b) >= 1000 && i < units.length - 1) {
    b /= 1000;
    i++;
  }
  return i === 0 ? `${Math.round(b)} B` : `${b.toFixed(2)} ${units[i]}`;
};

// A stable colour per name: the same kernel is the same colour in every view.
GS.hue = function (text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0) % 360;
};
