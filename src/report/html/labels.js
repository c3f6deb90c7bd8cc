// labels.js: short labels that keep names apart. A long name is shortened in the middle: its
// start, the part that tells it from the most similar other name (a template argument, a tile
// size, a suffix) and its end, joined by "…". The full name is always on hover.
//
// GS.Labeller(names) finds, per name, that distinguishing part: where it first differs from the
// names sharing its start (the longest common prefix with any other name) and where it last
// differs from those sharing its end (sorted neighbours have the longest ones).
GS.Labeller = class {
  // signature(name): whether a name is a C++ signature (a kernel's), whose return type "void ",
  // namespace qualifiers ("at::native::") and trailing parameter list a label may drop.
  constructor(names, { signature = () => true } = {}) {
    this.signature = signature;
    this.shown = new Map();  // name -> what its label is cut from
    this.window = new Map();  // shown text -> [from, to): the characters that tell it apart
    // A signature as shown: without namespaces where that keeps it apart from the other names.
    const forms = [(n) => GS.readable(n).replace(/\b[A-Za-z_]\w*::/g, ""), GS.readable, (n) => n];
    let pending = [];
    for (const n of new Set(names)) (signature(n) ? pending.push(n) : this.shown.set(n, n));
    for (const form of forms) {
      const owners = new Map();
      for (const n of [...this.shown.keys()]) owners.set(this.shown.get(n), [n]);
      for (const n of pending) owners.set(form(n), [...(owners.get(form(n)) || []), n]);
      pending = [];
      for (const [shown, same] of owners) {
        const open = same.filter((n) => !this.shown.has(n));
        if (same.length === 1 || form === forms[forms.length - 1]) open.forEach((n) => this.shown.set(n, shown));
        else pending.push(...open);
      }
    }
    const unique = [...new Set(this.shown.values())];
    const common = (a, b) => {
      let k = 0;
      while (k < a.length && k < b.length && a[k] === b[k]) k++;
      return k;
    };
    const reversed = (s) => [...s].reverse().join("");
    const prefix = new Map(unique.map((n) => [n, 0])), suffix = new Map(unique.map((n) => [n, 0]));
    const neighbours = (list, key, into) => {
      const sorted = list.map((n) => [key(n), n]).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      for (let i = 1; i < sorted.length; i++) {
        const k = common(sorted[i - 1][0], sorted[i][0]);
        for (const n of [sorted[i - 1][1], sorted[i][1]]) into.set(n, Math.max(into.get(n), k));
      }
    };
    neighbours(unique, (n) => n, prefix);
    neighbours(unique, reversed, suffix);
    for (const n of unique) {
      const from = Math.min(prefix.get(n), n.length), to = Math.max(n.length - suffix.get(n), from + 1);
      this.window.set(n, [from, Math.min(to, n.length)]);
    }
  }

  // `name` in at most `chars` characters: the whole name when it fits; else a C++ signature's
  // trailing parameter list as "(…)" when they do not tell it apart; then GS.middle.
  fit(full, chars) {
    if (full.length <= chars) return full;
    if (chars < 4) return "";
    const name = this.shown.get(full) || full;
    if (name.length <= chars) return name;
    let [from, to] = this.window.get(name) || [0, name.length];
    let text = name;
    const args = this.signature(full) ? GS.parameterList(name) : -1;
    if (args > 0 && from < args) {
      text = name.slice(0, args) + "(…)";
      to = Math.min(to, args);
    }
    return GS.middle(text, chars, from, to);
  }
};

// `text` in at most `chars` characters, shortened in the middle so that the characters from
// `from` (where it first differs from a similar name) stay: its start, "…", a few characters
// before `from` and on, "…", its end.
GS.middle = function (text, chars, from, to = text.length) {
  const n = text.length;
  if (n <= chars) return text;
  const tail = Math.max(0, Math.min(Math.floor(chars * 0.25), n - to));
  const room = chars - 1 - tail;  // characters before the last "…"
  const end = "…" + text.slice(n - tail);
  if (Math.min(from + 6, n) <= room) return text.slice(0, room) + end;  // the difference is in the start
  const head = Math.max(1, Math.floor(room * 0.4)), span = room - head - 1;
  const at = Math.min(Math.max(from - 4, head), n - tail - span);
  if (span < 3 || at <= head) return text.slice(0, room) + end;
  return text.slice(0, head) + "…" + text.slice(at, at + span) + (at + span >= n - tail ? text.slice(n - tail) : end);
};

// A C++ signature without what every kernel's has: a leading "void " and "(anonymous namespace)::".
GS.readable = function (name) {
  return name.replace(/^void /, "").replaceAll("(anonymous namespace)::", "");
};

// Index of the '(' that opens a C++ signature's trailing parameter list, or -1.
GS.parameterList = function (name) {
  if (!name.endsWith(")")) return -1;
  let depth = 0;
  for (let i = name.length - 1; i >= 0; i--) {
    const c = name[i];
    if (c === ")") depth++;
    else if (c === "(" && --depth === 0) return i > 0 ? i : -1;
  }
  return -1;
};

// One label per distinct name, each at most `chars` long and no two alike: the labeller's fit,
// then, for any names still sharing a label, the label shortened further with "#k" appended.
GS.distinctLabels = function (names, chars, labeller = new GS.Labeller(names)) {
  const labels = new Map();
  for (const n of new Set(names)) labels.set(n, labeller.fit(n, chars));
  const byLabel = new Map();
  for (const [n, l] of labels) byLabel.set(l, [...(byLabel.get(l) || []), n]);
  for (const [label, same] of byLabel) {
    if (same.length < 2) continue;
    same.forEach((n, k) => {
      const mark = ` #${k + 1}`;
      labels.set(n, (label.length + mark.length > chars ? labeller.fit(n, Math.max(chars - mark.length, 4)) : label) + mark);
    });
  }
  return labels;
};

// SVG text labels of a chart's rows, right-aligned at x, each within `width` px (measured as
// drawn), no two alike, each with its full name as a <title>: entries [{name, y}]; options go to
// GS.Labeller (the names are kernels' signatures unless it says otherwise).
GS.rowLabels = function (svg, entries, x, width, options) {
  const names = entries.map((e) => e.name), labeller = new GS.Labeller(names, options);
  const nodes = entries.map((e) => {
    const t = GS.svg("text", { x, y: e.y, "text-anchor": "end", class: "gs-row-label", "data-name": e.name }, svg);
    GS.svg("title", {}, t, e.name);
    return t;
  });
  const set = (labels) => nodes.forEach((t, k) => (t.firstChild.nodeValue = labels.get(entries[k].name)));
  nodes.forEach((t) => t.insertBefore(document.createTextNode(""), t.firstChild));
  // The widest count of characters at which every label fits; each label then shrinks on its own
  // (wide glyphs) until it fits, and the set stays distinct.
  let chars = Math.max(...names.map((n) => n.length), 4), labels;
  for (;;) {
    labels = GS.distinctLabels(names, chars, labeller);
    set(labels);
    const fits = nodes.every((t) => !t.getComputedTextLength || t.getComputedTextLength() <= width);
    if (fits || chars <= 6) break;
    chars = Math.max(6, Math.min(chars - 1, Math.floor(chars * 0.9)));
  }
  return nodes;
};
