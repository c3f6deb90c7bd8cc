// The page contract of `gpuscope report --format html`, as one suite run against any capture:
// describeReportPage(label, capture, options) makes the page, opens it in headless chromium and
// checks it. Expected numbers come from the capture itself, through `gpuscope query` and the
// JSON report, never from the page.
//
// The contract: window.gpuscope, with `ready` (resolves to {firstPaintMs} after the first
// timeline frame), origin() (capture-clock ns of time 0, a decimal string; every other time is
// ns relative to it), view() / setView(start, end) (redraws, returns lastDraw()), home() (the view
// it opened on: {start, end, what}), whole() (the whole run: {start: 0, end}), lastDraw()
// ({ms, boxes, kernelBoxes, aggregated}: kernels >= 1 px are boxes, narrower ones per-pixel
// columns), locate(kind, n) (page coordinates of the n-th box of a kind drawn last), selection()
// ({kind, name, start, end} and `launch` for GPU work or `gpu` for a launch call), search(text)
// (slices whose name contains it, any case), evidence(rule) ([{start, end}]; also
// evidence('critical_path_segments')), marked() (the slices the last evidence link outlined), labels() (the
// box labels drawn last), lanes() and units() (several processes: each with its GPUs under one
// header). Elements: canvas #gs-timeline (keys w/s zoom, a/d pan, 0 whole run, 1 back to the
// opening view, wheel, drag to zoom, Escape clears), #gs-tooltip,
// #gs-search, [data-evidence=RULE] links (the view then covers the rule's spans, at most 1.5x
// wider), svg.gs-chart[data-chart=NAME] with .gs-mark marks, #gs-theme and <html data-theme>.
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { after, before, describe, it } from 'node:test';
import {
  PAGE_TIMEOUT_MS, SETUP_TIMEOUT_MS, gpuscope, htmlReport, kernelWindow, lastDraw, launchBrowser, locate, openPage, query,
  queryNumber, screenshot, selection, setView, sqlText, synthCapture, view,
} from './lib.mjs';

const T = { timeout: PAGE_TIMEOUT_MS };
const KINDS = ['kernel', 'gpu_memcpy', 'gpu_memset', 'cuda_runtime', 'cuda_driver', 'user_annotation'];

// Slices whose name contains `text`, case-insensitively, over every kind the timeline draws.
export function expectedSearchCount(capture, text) {
  const like = `instr(lower(name), lower(${sqlText(text)})) > 0 AND start_ns > 0 AND end_ns >= start_ns`;
  const copyName = `'memcpy ' || copy_kind`;
  return queryNumber(capture, `SELECT
      (SELECT COUNT(*) FROM kernels_named WHERE ${like})
    + (SELECT COUNT(*) FROM api_calls_named WHERE ${like})
    + (SELECT COUNT(*) FROM nvtx_ranges_named WHERE ${like})
    + (SELECT COUNT(*) FROM (SELECT ${copyName} AS name, start_ns, end_ns FROM memcpys) WHERE ${like})
    + (SELECT COUNT(*) FROM (SELECT 'memset' AS name, start_ns, end_ns FROM memsets) WHERE ${like})`);
}

// The rules that fired, from the JSON report (one table `finding_RULE` per finding).
export function firedRules(capture) {
  const report = JSON.parse(gpuscope('report', capture, '--format', 'json'));
  const recommendations = report.sections.find((s) => s.key === 'recommendations');
  return (recommendations ? recommendations.tables : [])
    .filter((t) => t.key.startsWith('finding_'))
    .map((t) => t.key.slice('finding_'.length))
    .sort();
}

const width = (v) => v.end - v.start;
const pick = ({ kind, name, start, end }) => ({ kind, name, start, end });

// Rows of a table; 0 where the capture's schema predates it (gpu_metric_samples came in v4).
function rowCount(capture, table) {
  const exists = queryNumber(capture, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ${sqlText(table)}`);
  return exists ? queryNumber(capture, `SELECT COUNT(*) FROM ${table}`) : 0;
}
const near = (a, b, w) => Math.abs(a - b) <= Math.max(1, w * 1e-6);

async function tooltip(page) {
  await page.waitForFunction(() => {
    const t = document.querySelector('#gs-tooltip');
    if (!t || t.getClientRects().length === 0) return false;
    const style = getComputedStyle(t);
    return style.visibility !== 'hidden' && style.display !== 'none' && Number(style.opacity) > 0 && t.textContent.trim() !== '';
  }, { timeout: 10_000 });
  return page.$eval('#gs-tooltip', (t) => t.textContent);
}

// A duration as people read it: "1.05 ms", "812 ns", "3.2 µs".
const DURATION = /\d(\.\d+)?\s*(ns|µs|us|ms|s)\b/;

// options: roofline (the capture has roofline metrics), cut (it was made with --metrics: the page
// shows it without the metric collection time), source (another profiler's file the page is made
// from; the capture is its `gpuscope import`), extra(ctx) (more its, same page).
export function describeReportPage(label, captureOrFn, options = {}) {
  describe(`report page: ${label}`, () => {
    const ctx = {};
    // The files first, with time for a sanitizer build to make a 2M-record page (minutes): the
    // page's own timeout starts with the browser.
    before(() => {
      ctx.capture = typeof captureOrFn === 'function' ? captureOrFn() : captureOrFn;
      // A foreign file (options.source) makes the page itself, as users run it; ctx.capture is its import.
      ctx.html = htmlReport(options.source || ctx.capture, label);
      // What the page's times are checked against: the capture itself, or, for one made with
      // --metrics, its program timeline with the metric collection time cut out (as the page shows).
      ctx.reference = options.cut ? synthCapture(`${label}.cut.gpuscope`, '--cut-profiler-time', ctx.capture) : ctx.capture;
    }, { timeout: SETUP_TIMEOUT_MS });
    before(async () => {
      ctx.launch = launchBrowser();
      ctx.browser = await ctx.launch;
      Object.assign(ctx, await openPage(ctx.browser, ctx.html));
      ctx.origin = BigInt(await ctx.page.evaluate(() => gpuscope.origin()));
      ctx.home = await view(ctx.page);  // where the page opens: its steady-state steps or GPU activity
      ctx.full = await ctx.page.evaluate(() => gpuscope.whole());
      ctx.canvasWidth = await ctx.page.$eval('#gs-timeline', (c) => c.getBoundingClientRect().width);
      ctx.window = kernelWindow(ctx.reference, ctx.origin, ctx.canvasWidth);
      ctx.launchedWindow = kernelWindow(ctx.reference, ctx.origin, ctx.canvasWidth, { launched: true });
      ctx.counts = Object.fromEntries(['kernels', 'memcpys', 'memory_events', 'gpu_metric_samples', 'nvtx_ranges']
        .map((table) => [table, rowCount(ctx.reference, table)]));
    }, T);
    // Also a browser whose launch outlived a timed-out hook: left open, it would keep node alive.
    after(async () => {
      const browser = ctx.browser || (ctx.launch && (await ctx.launch.catch(() => null)));
      if (browser) await browser.close();
    });
    const page = () => ctx.page;
    const rel = (column) => `(${column} - ${ctx.origin})`;

    it('is ready after one frame: firstPaintMs, origin, a view', T, async () => {
      assert.ok(Number.isFinite(ctx.ready.firstPaintMs) && ctx.ready.firstPaintMs > 0, JSON.stringify(ctx.ready));
      assert.ok(ctx.origin > 0n, `origin ${ctx.origin}`);
      assert.ok(ctx.full.end > ctx.full.start, JSON.stringify(ctx.full));
      assert.ok(ctx.home.end > ctx.home.start && ctx.home.start >= ctx.full.start && ctx.home.end <= ctx.full.end,
        `opening view ${JSON.stringify(ctx.home)} within the run ${JSON.stringify(ctx.full)}`);
      const d = await lastDraw(page());
      assert.ok(Number.isFinite(d.ms) && d.boxes >= 0 && d.kernelBoxes >= 0 && d.aggregated >= 0, JSON.stringify(d));
      const canvas = await (await page().$('#gs-timeline')).boundingBox();
      for (const kind of KINDS) {
        const at = await locate(page(), kind, 0);
        assert.ok(at === null || (at.x >= canvas.x && at.x <= canvas.x + canvas.width && at.y >= canvas.y && at.y <= canvas.y + canvas.height),
          `locate(${kind}, 0) = ${JSON.stringify(at)} outside the canvas ${JSON.stringify(canvas)}`);
      }
    });

    // A window needs kernels on both sides of it: a capture of one or two kernels has none.
    const tiny = (t) => {
      if (ctx.window || ctx.counts.kernels >= 3) return false;
      t.skip(`only ${ctx.counts.kernels} kernels: no window with neighbours`);
      return true;
    };

    it('draws every kernel of a known range as its own box', T, async (t) => {
      if (tiny(t)) return;
      assert.ok(ctx.window, 'no window of >= 1 px kernels found in the capture');
      const { start, end } = ctx.window;
      const drawn = await setView(page(), start, end);
      assert.deepEqual(drawn, await lastDraw(page()), 'setView returns lastDraw()');
      const v = await view(page());
      assert.ok(near(v.start, start, end - start) && near(v.end, end, end - start), `view ${JSON.stringify(v)} after setView(${start}, ${end})`);
      const expected = queryNumber(ctx.reference, `SELECT COUNT(*) FROM kernels WHERE ${rel('end_ns')} >= ${start} AND ${rel('start_ns')} <= ${end}`);
      assert.ok(expected > 0);
      assert.equal(drawn.kernelBoxes, expected, `kernel boxes over [${start}, ${end}]`);
    });

    it('hovering a kernel shows its name, duration, grid and block', T, async (t) => {
      if (tiny(t)) return;
      await setView(page(), ctx.window.start, ctx.window.end);
      const at = await locate(page(), 'kernel', 0);
      assert.ok(at, 'locate(kernel, 0)');
      await page().mouse.move(at.x, at.y);
      const text = await tooltip(page());
      const names = query(ctx.reference, `SELECT DISTINCT name FROM kernels_named WHERE ${rel('end_ns')} >= ${ctx.window.start} AND ${rel('start_ns')} <= ${ctx.window.end}`).map((r) => r[0]);
      assert.ok(names.some((n) => text.includes(n)), `tooltip "${text}" names none of ${JSON.stringify(names)}`);
      assert.match(text, DURATION);
      assert.match(text, /grid/i);
      assert.match(text, /block/i);
    });

    it('hovering a copy shows its bytes', T, async (t) => {
      if (ctx.counts.memcpys === 0) return t.skip('no copies in this capture');
      const [s, e] = query(ctx.reference, `SELECT ${rel('start_ns')}, ${rel('end_ns')} FROM memcpys WHERE end_ns > start_ns
        ORDER BY start_ns LIMIT 1 OFFSET (SELECT COUNT(*) / 2 FROM memcpys)`)[0].map(Number);
      await setView(page(), s - (e - s) / 2, e + (e - s) / 2);
      const at = await locate(page(), 'gpu_memcpy', 0);
      assert.ok(at, 'locate(gpu_memcpy, 0)');
      await page().mouse.move(at.x, at.y);
      const text = await tooltip(page());
      assert.match(text, /memcpy|copy|HtoD|DtoH|DtoD/i);
      assert.match(text, DURATION);
      assert.match(text, /bytes/i);
    });

    it('clicking a kernel selects it and names its launch call; clicking that shows its GPU work; Escape clears', T, async (t) => {
      if (tiny(t)) return;
      assert.ok(ctx.launchedWindow, 'no window of >= 1 px kernels with their launch calls');
      await setView(page(), ctx.launchedWindow.start, ctx.launchedWindow.end);
      // The first kernel drawn whose launch call is in the capture; kernels drawn there without
      // one (launched before an nsys export's time window) must show no launch.
      let sel = null;
      let launch = null;
      for (let n = 0; n < 40 && !launch; ++n) {
        const at = await locate(page(), 'kernel', n);
        if (!at) break;
        await page().mouse.click(at.x, at.y);
        sel = await selection(page());
        assert.ok(sel && sel.kind === 'kernel', JSON.stringify(sel));
        const kernelStart = ctx.origin + BigInt(sel.start);
        const [row] = query(ctx.reference, `SELECT COALESCE(a.start_ns - ${ctx.origin}, ''), COALESCE(a.end_ns - ${ctx.origin}, ''),
          COALESCE(s.value, '') FROM kernels_named k LEFT JOIN api_calls a ON a.pid = k.pid AND a.correlation_id = k.correlation_id
          LEFT JOIN strings s ON s.id = a.name_id
          WHERE k.start_ns = ${kernelStart} AND k.end_ns = ${ctx.origin + BigInt(sel.end)} AND k.name = ${sqlText(sel.name)}`);
        assert.ok(row, `no kernel ${sel.name} at ${kernelStart} in the capture`);
        if (row[2] === '') assert.ok(!sel.launch, `a launch call for a kernel without one: ${JSON.stringify(sel.launch)}`);
        else launch = row;
      }
      assert.ok(launch, 'no kernel with its launch call among the first 40 drawn');
      assert.ok(sel.launch, 'selection().launch');
      assert.deepEqual(pick(sel.launch), { kind: 'cuda_runtime', name: launch[2], start: Number(launch[0]), end: Number(launch[1]) });

      // The launch call, found among the runtime calls drawn around it.
      const { start, end } = sel.launch;
      await setView(page(), start - (end - start), end + (end - start));
      let launchSel = null;
      for (let n = 0; n < 20 && !launchSel; ++n) {
        const p = await locate(page(), 'cuda_runtime', n);
        if (!p) break;
        await page().mouse.click(p.x, p.y);
        const s = await selection(page());
        if (s && s.kind === 'cuda_runtime' && s.start === start) launchSel = s;
      }
      assert.ok(launchSel, 'the launch call could not be clicked');
      assert.ok(Array.isArray(launchSel.gpu), `selection().gpu of a launch call: ${JSON.stringify(launchSel)}`);
      assert.ok(launchSel.gpu.some((g) => isDeepStrictEqual(pick(g), pick(sel))), `${JSON.stringify(launchSel.gpu)} lacks the kernel`);
      await page().keyboard.press('Escape');
      assert.ok((await selection(page())) == null, 'Escape clears the selection');
    });

    it('keys W/S zoom in and out, A/D pan left and right', T, async () => {
      const mid = (ctx.full.start + ctx.full.end) / 2;
      const w0 = width(ctx.full) / 10;
      await setView(page(), mid - w0 / 2, mid + w0 / 2);
      await page().mouse.move(1, 1);
      await page().focus('#gs-timeline');
      const v0 = await view(page());
      await page().keyboard.press('w');
      const v1 = await view(page());
      assert.ok(width(v1) < width(v0) && v1.start >= v0.start - 1 && v1.end <= v0.end + 1, `w: ${JSON.stringify([v0, v1])}`);
      await page().keyboard.press('s');
      const v2 = await view(page());
      assert.ok(width(v2) > width(v1), `s: ${JSON.stringify([v1, v2])}`);
      await page().keyboard.press('a');
      const v3 = await view(page());
      assert.ok(v3.start < v2.start && near(width(v3), width(v2), width(v2)), `a: ${JSON.stringify([v2, v3])}`);
      await page().keyboard.press('d');
      const v4 = await view(page());
      assert.ok(v4.start > v3.start && near(width(v4), width(v3), width(v3)), `d: ${JSON.stringify([v3, v4])}`);
    });

    it('the wheel zooms; dragging over the timeline zooms to the dragged range', T, async () => {
      const mid = (ctx.full.start + ctx.full.end) / 2;
      const w0 = width(ctx.full) / 10;
      await setView(page(), mid - w0 / 2, mid + w0 / 2);
      const box = await (await page().$('#gs-timeline')).boundingBox();
      const y = box.y + box.height / 2;
      await page().mouse.move(box.x + box.width * 0.6, y);
      const v0 = await view(page());
      await page().mouse.wheel({ deltaY: -300 });
      await page().waitForFunction((w) => gpuscope.view().end - gpuscope.view().start !== w, { timeout: 10_000 }, width(v0));
      const v1 = await view(page());
      await page().mouse.wheel({ deltaY: 300 });
      await page().waitForFunction((w) => gpuscope.view().end - gpuscope.view().start !== w, { timeout: 10_000 }, width(v1));
      const v2 = await view(page());
      assert.ok(Math.sign(width(v1) - width(v0)) === -Math.sign(width(v2) - width(v1)), `wheel: ${JSON.stringify([v0, v1, v2])}`);

      await setView(page(), mid - w0 / 2, mid + w0 / 2);
      const before = await view(page());
      await page().mouse.move(box.x + box.width * 0.45, y);
      await page().mouse.down();
      await page().mouse.move(box.x + box.width * 0.65, y, { steps: 10 });
      await page().mouse.up();
      const dragged = await view(page());
      assert.ok(width(dragged) < width(before) / 2 && dragged.start >= before.start - 1 && dragged.end <= before.end + 1,
        `drag: ${JSON.stringify([before, dragged])}`);
      await page().keyboard.press('Escape');
    });

    it('search counts the slices whose name contains the text, ignoring case', T, async () => {
      assert.ok(await page().$('#gs-search'), '#gs-search');
      const [top] = query(ctx.reference, 'SELECT name FROM kernels_named GROUP BY name ORDER BY COUNT(*) DESC, name LIMIT 1');
      for (const text of [top[0].slice(0, 16).toUpperCase(), 'cudalaunchkernel', 'no such slice anywhere']) {
        const found = await page().evaluate((s) => gpuscope.search(s), text);
        assert.equal(found, expectedSearchCount(ctx.reference, text), `search(${JSON.stringify(text)})`);
      }
    });

    it('every finding links to its evidence, and clicking it zooms there', T, async () => {
      const rules = firedRules(ctx.capture);
      // Besides the findings, the critical path's segments link to the timeline (test below).
      const links = (await page().$$eval('[data-evidence]', (els) => els.map((e) => e.dataset.evidence)))
        .filter((l) => l !== 'critical_path_segments');
      assert.deepEqual([...new Set(links)].sort(), rules, 'rules with [data-evidence] links');
      for (const rule of rules) {
        assert.ok(links.filter((r) => r === rule).length >= 2, `${rule}: a link in the ranked table and in the finding's title`);
        await setView(page(), ctx.full.start, ctx.full.end);
        const spans = await page().evaluate((r) => gpuscope.evidence(r), rule);
        assert.ok(Array.isArray(spans), `evidence(${rule})`);
        const link = await page().$(`[data-evidence="${rule}"]`);
        await link.click();
        const v = await view(page());
        if (spans.length === 0) {
          assert.ok(near(v.start, ctx.full.start, width(ctx.full)) && near(v.end, ctx.full.end, width(ctx.full)),
            `${rule} has no spans: the view must not change (${JSON.stringify(v)})`);
          continue;
        }
        const lo = Math.min(...spans.map((s) => s.start));
        const hi = Math.max(...spans.map((s) => s.end));
        assert.ok(v.start <= lo && v.end >= hi, `${rule}: view ${JSON.stringify(v)} must cover [${lo}, ${hi}]`);
        if (hi > lo) assert.ok(width(v) <= 1.5 * (hi - lo), `${rule}: view ${JSON.stringify(v)} much wider than [${lo}, ${hi}]`);
      }
    });

    it('the critical path\'s segments link outlines the work on the path, nothing else', T, async () => {
      const spans = await page().evaluate(() => gpuscope.evidence('critical_path_segments'));
      const link = await page().$('h3[data-evidence="critical_path_segments"]');
      assert.equal(Boolean(link), spans.length > 0, 'a link exactly when the report has a critical path');
      if (!link) return;
      await link.click();
      const marked = await page().evaluate(() => gpuscope.marked());
      assert.ok(marked.length > 0, 'some work on the path is outlined');
      for (const m of marked)
        assert.ok(spans.some((s) => Math.abs(s.start - m.start) <= 2 && Math.abs(s.end - m.end) <= 2),
                  `${m.kind} ${m.name} at ${m.start} is not a segment of the path`);
    });

    it('has the charts this capture calls for, each with marks', T, async () => {
      const expected = ctx.counts.kernels > 0 ? ['kernel_breakdown', 'kernel_durations'] : [];
      if (ctx.counts.memory_events > 0) expected.push('memory_in_use');
      if (ctx.counts.gpu_metric_samples > 0) expected.push('gpu_utilization');
      if (ctx.counts.nvtx_ranges > 0) expected.push('nvtx_durations');
      if (options.roofline) expected.push('roofline');
      const charts = await page().$$eval('svg.gs-chart', (els) =>
        Object.fromEntries(els.map((e) => [e.dataset.chart, e.querySelectorAll('.gs-mark').length])));
      for (const name of expected) assert.ok(charts[name] > 0, `chart ${name}: ${JSON.stringify(charts)}`);
      if (!options.roofline) assert.equal(charts.roofline, undefined, 'a roofline without roofline metrics');
    });

    it('the theme button switches light and dark (screenshots of both)', T, async () => {
      // A clean page for the screenshots: no search, no selection, the top finding's evidence shown.
      await page().evaluate(() => gpuscope.search(''));
      await page().keyboard.press('Escape');
      await setView(page(), ctx.full.start, ctx.full.end);
      const theme = () => page().evaluate(() => document.documentElement.dataset.theme);
      const first = await theme();
      assert.ok(first === 'light' || first === 'dark', `theme ${first}`);
      for (const expected of [first, first === 'light' ? 'dark' : 'light']) {
        if (expected !== first) await page().click('#gs-theme');
        assert.equal(await theme(), expected);
        await setView(page(), ctx.full.start, ctx.full.end);
        await screenshot(page(), `${label}-timeline-${expected}`, '#gs-timeline');
        await screenshot(page(), `${label}-page-${expected}`);
        // What a person sees first (docs/images/report_html.png is bsr_spmm_baseline's, light).
        const link = await page().$('a.gs-evidence');
        if (link) await link.click();
        await page().evaluate(() => window.scrollTo(0, 0));
        await screenshot(page(), `${label}-overview-${expected}`, null, { viewport: true });
      }
      await page().click('#gs-theme');
      assert.equal(await theme(), first);
    });

    if (options.extra) options.extra(ctx);

    it('no console errors, exceptions, dialogs or network requests', T, async () => {
      assert.deepEqual(ctx.problems, { errors: [], dialogs: [], requests: [] });
    });
  });
}
