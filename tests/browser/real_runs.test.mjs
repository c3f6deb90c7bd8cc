// The page on real jobs: a PyTorch MLP whose GPU work is the last half second of a long Python
// start-up (tests/data/pytorch/mlp_train_modules.gpuscope) and a 2-rank torchrun DDP job
// (tests/data/ddp/ddp_straggler.gpuscope.gz, and the same job's torch.profiler traces merged).
// The page opens on the steady-state steps, keeps distinct names apart in its charts and lanes,
// starts no label left of its lane, labels its log axes, and groups each rank's lanes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  PAGE_TIMEOUT_MS, gpuscope, htmlReport, launchBrowser, locate, openPage, outDir, query, repo, screenshot, setView, view,
} from './lib.mjs';

const T = { timeout: PAGE_TIMEOUT_MS };
const DURATION = /^\d+(\.\d+)?\s*(ns|µs|ms|s)$/;
const pytorch = path.join(repo, 'tests/data/pytorch/mlp_train_modules.gpuscope');

function gunzipped(file, name) {
  const out = path.join(outDir, name);
  fs.writeFileSync(out, execFileSync('gunzip', ['-c', file], { maxBuffer: 1 << 30 }));
  return out;
}

// One page, opened once per describe: ctx.page, ctx.origin, ctx.capture.
function withPage(ctx, capture, label) {
  before(async () => {
    ctx.capture = typeof capture === 'function' ? capture() : capture;
    ctx.html = htmlReport(ctx.capture, label);
    ctx.browser = await launchBrowser();
    Object.assign(ctx, await openPage(ctx.browser, ctx.html));
    ctx.origin = BigInt(await ctx.page.evaluate(() => gpuscope.origin()));
  }, T);
  after(async () => { if (ctx.browser) await ctx.browser.close(); });
}

// The chart's row labels: [{text, name, left}] (left: the label's start in the SVG's units).
const rowLabels = (page, chart) => page.$$eval(`svg.gs-chart[data-chart=${chart}] text.gs-row-label`, (ts) =>
  ts.map((t) => ({ text: t.firstChild.nodeValue, name: t.dataset.name, title: t.querySelector('title')?.textContent,
                   left: t.getBBox().x })));

// Labels that name more than one distinct name: [[label, names]].
function shared(labels) {
  const names = new Map();
  for (const { text, name } of labels) names.set(text, new Set([...(names.get(text) || []), name]));
  return [...names].filter(([, n]) => n.size > 1).map(([text, n]) => [text, [...n]]);
}

async function labelsWithinLanes(page, what) {
  const { labelWidth, width, labels } = await page.evaluate(() => gpuscope.labels());
  for (const l of labels)
    assert.ok(l.x >= labelWidth && l.x + l.w <= width + 1, `${what}: label "${l.text}" at ${l.x}..${l.x + l.w} outside the lanes ${labelWidth}..${width}`);
  assert.deepEqual(shared(labels), [], `${what}: distinct names drawn with the same label`);
  return labels;
}

describe('real run: PyTorch MLP (steps after a long start-up)', () => {
  const ctx = {};
  withPage(ctx, pytorch, 'pytorch_mlp_train_modules');
  const page = () => ctx.page;

  it('opens on the steady-state steps, not the whole run; 0 shows the whole run and 1 comes back', T, async () => {
    // Steps 2..N of the launched process's train_step ranges, from the capture.
    const steps = query(ctx.capture, `SELECT start_ns - ${ctx.origin}, end_ns - ${ctx.origin} FROM nvtx_ranges_named
      WHERE name = 'train_step' AND pid = (SELECT pid FROM processes ORDER BY start_ns LIMIT 1) ORDER BY start_ns`).map((r) => r.map(Number));
    assert.ok(steps.length >= 3, `${steps.length} train_step ranges`);
    const [start, end] = [steps[1][0], steps.at(-1)[1]];
    const v = await view(page()), whole = await page().evaluate(() => gpuscope.whole());
    assert.equal((await page().evaluate(() => gpuscope.home())).what, 'steps');
    assert.ok(v.start <= start && v.end >= end, `view ${JSON.stringify(v)} must cover steps 2..${steps.length} [${start}, ${end}]`);
    assert.ok(v.end - v.start <= 1.1 * (end - start), `view ${JSON.stringify(v)} much wider than the steps [${start}, ${end}]`);
    assert.ok(v.end - v.start < 0.5 * (whole.end - whole.start), `the view ${JSON.stringify(v)} is most of the run ${JSON.stringify(whole)}`);
    assert.match(await page().$eval('.gs-help', (p) => p.textContent), /0: whole run · 1: steady-state steps/);
    await page().focus('#gs-timeline');
    await page().keyboard.press('0');
    const all = await view(page());
    assert.ok(all.start <= 0 && all.end >= whole.end, `0: ${JSON.stringify(all)}`);
    const same = (a, b, what) => assert.ok(Math.abs(a.start - b.start) <= 1 && Math.abs(a.end - b.end) <= 1, `${what}: ${JSON.stringify([a, b])}`);
    await page().keyboard.press('1');
    same(await view(page()), v, '1: back to the steps');
    await page().click('#gs-view-run');
    same(await view(page()), all, 'the whole-run button');
    await page().click('#gs-view-home');
    same(await view(page()), v, 'the steps button');
    await screenshot(page(), 'pytorch_mlp_train_modules-home', '#gs-timeline');
  });

  it('no two distinct kernel names share a visible label in the kernel charts; each names its kernel on hover', T, async () => {
    for (const chart of ['kernel_breakdown', 'kernel_durations']) {
      const labels = await rowLabels(page(), chart);
      assert.ok(labels.length >= 2, `${chart}: ${labels.length} labels`);
      assert.deepEqual(shared(labels), [], `${chart}: distinct kernels with the same label`);
      for (const l of labels) {
        assert.equal(l.title, l.name, `${chart}: the hover of "${l.text}"`);
        assert.ok(l.left >= 0, `${chart}: "${l.text}" starts at ${l.left}, left of the chart`);
      }
    }
    const kernels = query(ctx.capture, 'SELECT DISTINCT name FROM kernels_named').map((r) => r[0]);
    const names = (await rowLabels(page(), 'kernel_breakdown')).map((l) => l.name);
    for (const n of names) assert.ok(kernels.includes(n), `${n} is no kernel of the capture`);
    await screenshot(page(), 'pytorch_mlp_train_modules-charts', '#gs-charts');
  });

  it('no box label starts left of its lane, however the view cuts the boxes', T, async () => {
    await labelsWithinLanes(page(), 'the opening view');
    // The longest kernel of the steps, cut at the view's left edge, then at its right edge.
    const [[s, e, name]] = query(ctx.capture, `SELECT start_ns - ${ctx.origin}, end_ns - ${ctx.origin}, name FROM kernels_named
      ORDER BY end_ns - start_ns DESC LIMIT 1`).map((r) => [Number(r[0]), Number(r[1]), r[2]]);
    const d = e - s;
    for (const [from, to, what] of [[s + d / 2, s + 2 * d, 'cut on the left'], [s - d, s + d / 2, 'cut on the right'],
                                    [s + d / 3, s + d / 2, 'wider than the view']]) {
      await setView(page(), from, to);
      const labels = await labelsWithinLanes(page(), what);
      const own = labels.filter((l) => l.name === name);
      assert.ok(own.length > 0, `${what}: ${name} has no label (${JSON.stringify(labels.map((l) => l.text))})`);
    }
    await screenshot(page(), 'pytorch_mlp_train_modules-cut', '#gs-timeline');
    await page().click('#gs-view-home');
  });

  it('the launch-duration chart has a log axis with at least 3 ticks, each with its unit', T, async () => {
    const ticks = await page().$$eval('svg.gs-chart[data-chart=kernel_durations] g.gs-axis[data-x-scale=log] text.gs-tick-x',
      (ts) => ts.map((t) => t.textContent));
    assert.ok(ticks.length >= 3, `ticks ${JSON.stringify(ticks)}`);
    for (const t of ticks) assert.match(t, DURATION);
  });

  it('no console errors, exceptions, dialogs or network requests', T, () => {
    assert.deepEqual(ctx.problems, { errors: [], dialogs: [], requests: [] });
  });
});

// Lanes as units: [{unit, groups: [lane names]}], from gpuscope.lanes().
async function unitsOf(page) {
  const out = [];
  for (const l of await page.evaluate(() => gpuscope.lanes())) {
    if (l.type === 'unit') out.push({ name: l.name, y: l.y, groups: [] });
    else if (l.type === 'group') out.at(-1).groups.push(l.name);
  }
  return out;
}

function describeRanks(label, capture, { ranked }) {
  describe(`real run: ${label} (a 2-rank torchrun job)`, () => {
    const ctx = {};
    withPage(ctx, capture, label);
    const page = () => ctx.page;

    it('groups each process with its GPUs under one header, named by rank, pid and GPU', T, async () => {
      const units = await page().evaluate(() => gpuscope.units());
      const gpus = units.filter((u) => u.devices.length > 0);
      assert.equal(gpus.length, 2, JSON.stringify(units));
      const pids = query(ctx.capture, 'SELECT DISTINCT pid FROM kernels ORDER BY pid').map((r) => Number(r[0]));
      assert.deepEqual(gpus.map((u) => u.pid).sort((a, b) => a - b), pids);
      for (const u of gpus) {
        assert.equal(u.groups.length, 1 + u.devices.length, `${u.name}: its process and its GPUs: ${JSON.stringify(u.groups)}`);
        for (const g of u.groups) assert.match(g, new RegExp(`(process|pid) ${u.pid}\\b`), `${u.name} holds ${g}`);
        assert.match(u.name, new RegExp(`pid ${u.pid} · GPU ${u.devices.join(', ')}$`));
        if (ranked) assert.match(u.name, new RegExp(`^rank ${u.rank} · `));
      }
      if (ranked) assert.deepEqual(gpus.map((u) => u.rank), [0, 1], 'ranks in order');
      const laid = await unitsOf(page());
      assert.equal(laid.length, units.length, 'one header per unit');
      await screenshot(page(), `${label}-ranks`, '#gs-timeline');
    });

    it('clicking a header folds its lanes away and back', T, async () => {
      const before = await unitsOf(page()), gpu = before.findIndex((u) => u.groups.some((g) => g.startsWith('GPU')));
      const box = await (await page().$('#gs-timeline')).boundingBox();
      const height = () => page().$eval('#gs-timeline', (c) => c.getBoundingClientRect().height);
      const h0 = await height();
      await page().mouse.click(box.x + 60, box.y + before[gpu].y + 8);
      const folded = await unitsOf(page());
      assert.deepEqual(folded[gpu].groups, [], 'a folded unit shows its header only');
      assert.ok((await page().evaluate(() => gpuscope.units()))[gpu].collapsed);
      assert.ok((await height()) < h0, 'the canvas shrinks');
      await screenshot(page(), `${label}-folded`, '#gs-timeline');
      await page().mouse.click(box.x + 60, box.y + folded[gpu].y + 8);
      assert.deepEqual(await unitsOf(page()), before, 'unfolded again');
    });

    it('keeps labels within lanes and distinct; no console errors', T, async () => {
      await labelsWithinLanes(page(), 'the opening view');
      for (const chart of ['kernel_breakdown', 'kernel_durations']) assert.deepEqual(shared(await rowLabels(page(), chart)), [], chart);
      assert.deepEqual(ctx.problems, { errors: [], dialogs: [], requests: [] });
    });
  });
}

describeRanks('ddp_straggler', () => gunzipped(path.join(repo, 'tests/data/ddp/ddp_straggler.gpuscope.gz'), 'ddp_straggler.gpuscope'),
              { ranked: false });
describeRanks('ddp_kineto_merged', () => {
  const out = path.join(outDir, 'ddp_kineto_merged.gpuscope');
  gpuscope('merge', '-f', '-o', out, ...[0, 1].map((r) => path.join(repo, `tests/data/ddp/kineto_rank${r}.json.gz`)));
  return out;
}, { ranked: true });

// torch.compile(mode="reduce-overhead"): each replay of a CUDA graph is a "graph N" slice over
// its nodes in their stream's lane, linked to its cudaGraphLaunch, with its replay number and
// nodes on hover (tests/data/graphs).
describe('real run: torch.compile reduce-overhead (CUDA graph replays)', () => {
  const ctx = {};
  withPage(ctx, () => gunzipped(path.join(repo, 'tests/data/graphs/compiled_reduce_overhead.gpuscope.gz'),
                                'compiled_reduce_overhead.gpuscope'), 'compiled_reduce_overhead');
  const page = () => ctx.page;
  const rel = (column) => `(${column} - ${ctx.origin})`;

  it('a replay spans its nodes on its stream and links to its launch call', T, async () => {
    // The first replay of the steady state: its nodes on the stream of its first node, from the capture.
    const home = await view(page());
    const [[graph, corr, stream]] = query(ctx.capture, `SELECT graph_id, correlation_id, stream FROM kernels
      WHERE graph_id != 0 AND ${rel('start_ns')} >= ${Math.round(home.start)} ORDER BY start_ns LIMIT 1`);
    const [[first, last, nodes]] = query(ctx.capture, `SELECT min(${rel('start_ns')}), max(${rel('end_ns')}), count(*)
      FROM kernels WHERE graph_id = ${graph} AND correlation_id = ${corr} AND stream = ${stream}`).map((r) => r.map(Number));
    const [[all]] = query(ctx.capture, `SELECT count(*) FROM (SELECT correlation_id FROM kernels WHERE graph_id = ${graph}
      GROUP BY correlation_id)`).map((r) => r.map(Number));
    const [[total]] = query(ctx.capture, `SELECT count(*) FROM kernels WHERE graph_id = ${graph} AND correlation_id = ${corr}`)
      .map((r) => r.map(Number));
    assert.ok(nodes >= 10, `graph ${graph}'s replay ${corr}: ${nodes} nodes on stream ${stream}`);
    await setView(page(), first - (last - first) * 0.1, last + (last - first) * 0.1);
    const at = await locate(page(), 'cuda_graph', 0);
    assert.ok(at, 'a replay is drawn');
    await page().mouse.click(at.x, at.y);
    const s = await page().evaluate(() => gpuscope.selection());
    assert.equal(s.kind, 'cuda_graph');
    assert.equal(s.name, `graph ${graph}`);
    assert.ok(Math.abs(s.start - first) <= 2 && Math.abs(s.end - last) <= 2,
      `the replay [${s.start}, ${s.end}] spans its nodes [${first}, ${last}]`);
    assert.equal(s.launch && s.launch.name, 'cudaGraphLaunch', JSON.stringify(s.launch));
    await page().mouse.move(at.x, at.y);
    await page().waitForFunction(() => !document.querySelector('#gs-tooltip').hidden, { timeout: 10_000 });
    const tip = await page().$eval('#gs-tooltip', (t) => t.textContent);
    assert.match(tip, new RegExp(`replay \\d+ of ${all} · ${total} nodes on all streams`), tip);
    await screenshot(page(), 'compiled_reduce_overhead-replay', '#gs-timeline');
  });

  it('no console errors, exceptions, dialogs or network requests', T, () => {
    assert.deepEqual(ctx.problems, { errors: [], dialogs: [], requests: [] });
  });
});
