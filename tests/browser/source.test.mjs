// The source view on a real capture: samples/source_hotspots under `profile --source` on an H200
// (tests/data/source/hotspots.gpuscope.gz: three kernels, one planted hot line each). The view
// opens on the kernel with the most samples, shades its hottest line and instruction the most,
// draws each row's stall bar from the report's numbers, and selects a line's instructions and an
// instruction's line; the report's kernel, line and PC cells and the finding open it.
//
// Lines need CUPTI's host API (libgpuscope_cupti_host.so and libcupti): what the report could
// resolve here is what the page must show, and the line checks say so when there are none. SASS
// comes from a recorded nvdisasm run (tests/data/source/recorded_nvdisasm.sh).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PAGE_TIMEOUT_MS, gpuscopeBinary, launchBrowser, openPage, outDir, repo, screenshot } from './lib.mjs';

const T = { timeout: PAGE_TIMEOUT_MS };
const planted = Object.fromEntries(fs.readFileSync(path.join(repo, 'samples/source_hotspots.cu'), 'utf8').split('\n')
  .map((line, i) => [/PLANTED\((\w+)\)/.exec(line)?.[1], i + 1]).filter(([k]) => k));

describe('source view: samples/source_hotspots on an H200', () => {
  const ctx = {};
  before(async () => {
    const capture = path.join(outDir, 'hotspots.gpuscope');
    fs.writeFileSync(capture, execFileSync('gunzip', ['-c', path.join(repo, 'tests/data/source/hotspots.gpuscope.gz')]));
    ctx.html = path.join(outDir, 'source_hotspots.html');
    // The line table names the files as they were built on the GPU host: look in this checkout.
    // SASS: the toolkit's nvdisasm output for this capture's cubin, as recorded on the GPU host.
    execFileSync(gpuscopeBinary, ['report', capture, '--format', 'html', '--source-dir', repo, '-o', ctx.html], {
      env: { ...process.env, GPUSCOPE_NVDISASM: path.join(repo, 'tests/data/source/recorded_nvdisasm.sh') },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    ctx.browser = await launchBrowser();
    Object.assign(ctx, await openPage(ctx.browser, ctx.html));
    const tables = await ctx.page.evaluate(() => {
      const t = {};
      for (const s of gpuscope.report().sections) for (const table of s.tables) t[table.key] = table.rows;
      return t;
    });
    ctx.tables = tables;
    ctx.hasLines = (tables.source_view || []).length > 0;
    ctx.hasSass = (tables.sass_view || []).length > 0;
    if (!ctx.hasLines) console.log('# no source lines in this report (no usable libcupti here): line checks skipped');
  }, T);
  after(async () => { if (ctx.browser) await ctx.browser.close(); });
  const page = () => ctx.page;
  const source = () => page().evaluate(() => gpuscope.source());

  it('opens on the kernel with the most samples, without errors or requests', T, async () => {
    assert.deepEqual(ctx.problems, { errors: [], dialogs: [], requests: [] });
    const s = await source();
    if (!ctx.hasLines && !ctx.hasSass) {
      assert.equal(s, null, 'no view without lines or SASS');
      return;
    }
    assert.equal(s.kernel, 1);
    assert.equal(s.kernels[0].name, ctx.tables.sampled_kernels[0].kernel);
    assert.ok(s.kernels.length >= 3, `${s.kernels.length} kernels viewed`);
  });

  it('shades the hottest line and instruction the most, with stall bars from the report', T, async () => {
    if (!ctx.hasLines && !ctx.hasSass) return;
    for (const [rank, row] of ctx.tables.sampled_kernels.slice(0, 3).entries()) {
      const s = await page().evaluate((k) => gpuscope.showSource(k), rank + 1);
      const rows = ctx.hasLines ? s.lines : s.instructions;
      const hottest = rows.reduce((a, r) => (r.heat > a.heat ? r : a));
      assert.equal(hottest.heat, 1, `${row.kernel}: the hottest row is shaded fully`);
      const widths = Object.fromEntries(hottest.stalls.map((b) => [b.reason, b.width]));
      const top = hottest.stalls.reduce((a, b) => (b.width > a.width ? b : a));
      const sum = Object.values(widths).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum - 100) < 0.1, `${row.kernel}: the stall bar's parts add up to ${sum}%`);
      if (ctx.hasLines) {
        const place = ctx.tables.source_view.find((r) => r.kernel === rank + 1 && r.line === hottest.line);
        assert.equal(`source_hotspots.cu:${hottest.line}`, row.hottest_line, `${row.kernel}: its hottest line`);
        assert.ok(Math.abs(widths[top.reason] - (100 * place[`stall_${top.reason}`]) / place.samples) < 0.01);
        const reasons = Object.keys(place).filter((k) => k.startsWith('stall_') && place[k]);
        const widest = reasons.reduce((a, b) => (place[b] > place[a] ? b : a));
        assert.equal(`stall_${top.reason}`, widest, `${row.kernel}: the bar's widest part is the line's top stall`);
        // The view opens there, selected.
        assert.deepEqual(s.selectedLines.map((l) => l.line), [hottest.line]);
      }
    }
  });

  it('a line selects its instructions, an instruction its line', T, async () => {
    if (!ctx.hasLines || !ctx.hasSass) return;
    const load = ctx.tables.sampled_kernels.findIndex((r) => r.kernel.startsWith('load_hotspot')) + 1;
    let s = await page().evaluate((k, line) => gpuscope.showSource(k, { file: 'source_hotspots.cu', line }), load, planted.load);
    assert.equal(s.line, planted.load);
    // The file was found (where the line table names it, else through --source-dir).
    const code = ctx.tables.source_view.find((r) => r.line === planted.load && r.file.endsWith('source_hotspots.cu')).code;
    assert.match(code, /PLANTED\(load\)/);
    assert.ok(s.selectedInstructions.length >= 1, 'the planted line has instructions');
    assert.ok(s.selectedInstructions.every((i) => i.line === planted.load));
    const pc = s.selectedInstructions[0].pc;
    // Clicking a row of the SASS pane.
    await page().click(`#gs-source [data-pane="sass"] tr[data-pc="${s.instructions.find((i) => i.line && i.line !== planted.load)?.pc ?? pc}"]`);
    s = await source();
    assert.ok(s.line > 0 && s.selectedLines.length === 1 && s.selectedLines[0].line === s.line);
    assert.ok(s.selectedInstructions.length === 1);
    await screenshot(page(), 'source_view', '#gs-source');
  });

  it('the report\'s kernel, line and PC cells and the finding open the view', T, async () => {
    if (!ctx.hasLines && !ctx.hasSass) return;
    const links = await page().$$eval('#sec-source a.gs-source-link', (as) => as.length);
    assert.ok(links >= 3, `${links} links`);
    // The third kernel's name in Sampled kernels.
    await page().click('#sec-source table[data-table="sampled_kernels"] tbody tr:nth-child(3) a.gs-source-link');
    assert.equal((await source()).kernel, 3);
    if (ctx.hasLines) {
      // The second kernel's hottest line, in its Hottest lines table.
      const tables = await page().$$('#sec-source table[data-table="source_lines"]');
      const link = await tables[1].$('tbody tr a.gs-source-link');
      const cell = await link.evaluate((a) => a.textContent);
      await link.click();
      const s = await source();
      assert.equal(s.kernel, 2);
      assert.equal(`source_hotspots.cu:${s.line}`, cell);
    }
    const finding = await page().$$eval('a.gs-source-link', (as) => as.filter((a) => a.closest('p')).length);
    const fired = ctx.tables.recommendations?.some((r) => r.rule === 'hot_source_line');
    if (fired) assert.ok(finding >= 1, 'the hot_source_line finding links to the view');
  });
});
