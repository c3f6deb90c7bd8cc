// `gpuscope diff BASE NEW --format html`: the forest plot has one row per item with a change and
// a confidence interval, coloured by verdict; items only in one file are listed apart. Expected
// numbers come from the same diff as JSON.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PAGE_TIMEOUT_MS, gpuscope, launchBrowser, openPage, outDir, repo, screenshot } from './lib.mjs';

const T = { timeout: PAGE_TIMEOUT_MS };
const base = path.join(repo, 'tests/data/bsr_spmm_baseline.gpuscope');
const next = path.join(repo, 'tests/data/bsr_spmm_fixed.gpuscope');

// Every row of the diff's tables that has a change and a 95% CI, with its verdict; and the
// items only in one file.
function judged() {
  const diff = JSON.parse(gpuscope('diff', base, next, '--format', 'json'));
  const rows = diff.sections.flatMap((s) => s.tables).filter((t) => t.columns.some((c) => c.key === 'ci95')).flatMap((t) => t.rows);
  return {
    forest: rows.filter((r) => r.change !== null && r.change !== undefined && /^\[/.test(r.ci95 || '')),
    onlyBase: rows.filter((r) => r.verdict === 'only in base').length,
    onlyNew: rows.filter((r) => r.verdict === 'only in new').length,
  };
}

describe('diff page: bsr_spmm baseline vs fixed', () => {
  const ctx = {};
  before(async () => {
    ctx.html = path.join(outDir, 'bsr_spmm_diff.html');
    gpuscope('diff', base, next, '--format', 'html', '-o', ctx.html);
    ctx.expected = judged();
    ctx.browser = await launchBrowser();
    Object.assign(ctx, await openPage(ctx.browser, ctx.html, { waitReady: false }));
  }, T);
  after(async () => { if (ctx.browser) await ctx.browser.close(); });

  it('has a forest plot with one row per judged item, coloured by verdict', T, async () => {
    assert.ok(ctx.expected.forest.length > 0, 'the diff judged nothing');
    await ctx.page.waitForSelector('svg.gs-chart[data-chart=forest]', { timeout: 30_000 });
    const rows = await ctx.page.$$eval('svg.gs-chart[data-chart=forest] g.gs-forest-row', (gs) =>
      gs.map((g) => ['gs-faster', 'gs-slower', 'gs-nochange'].filter((c) => g.classList.contains(c) || g.querySelector(`.${c}`))));
    assert.equal(rows.length, ctx.expected.forest.length, 'forest rows');
    const count = (verdict) => ctx.expected.forest.filter((r) => r.verdict === verdict).length;
    const classed = (c) => rows.filter((cs) => cs.includes(c)).length;
    assert.equal(classed('gs-faster'), count('faster'), 'rows coloured faster');
    assert.equal(classed('gs-slower'), count('slower'), 'rows coloured slower');
    assert.equal(classed('gs-nochange'), count('no significant change'), 'rows coloured no change');
    for (const cs of rows) assert.ok(cs.length <= 1, `a row with several verdicts: ${cs}`);
  });

  it('lists the items only in one file', T, async () => {
    for (const [id, n] of [['#gs-only-base', ctx.expected.onlyBase], ['#gs-only-new', ctx.expected.onlyNew]]) {
      assert.ok(await ctx.page.$(id), id);
      assert.equal(await ctx.page.$$eval(`${id} li`, (li) => li.length), n, `${id} items`);
    }
  });

  it('screenshots in both themes; no console errors, exceptions, dialogs or network requests', T, async () => {
    const theme = () => ctx.page.evaluate(() => document.documentElement.dataset.theme);
    const first = await theme();
    await screenshot(ctx.page, `bsr_spmm_diff-page-${first}`);
    if (await ctx.page.$('#gs-theme')) {
      await ctx.page.click('#gs-theme');
      await screenshot(ctx.page, `bsr_spmm_diff-page-${await theme()}`);
    }
    assert.deepEqual(ctx.problems, { errors: [], dialogs: [], requests: [] });
  });
});
