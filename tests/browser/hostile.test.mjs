// Names that attack the page (gpuscope_synth --hostile: script end tags, event handlers, quotes,
// backslashes, newlines, control characters, invalid UTF-8) must show as text and run nothing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import {
  PAGE_TIMEOUT_MS, hostileCapture, htmlReport, launchBrowser, locate, openPage, query, screenshot, selection,
  setView, sqlText, visibleText,
} from './lib.mjs';
import { expectedSearchCount } from './report_page.mjs';

const T = { timeout: PAGE_TIMEOUT_MS };

// The printable ones of tests/tools/synth.cpp's hostile_strings(), which must appear verbatim.
const PRINTABLE = [
  '</script><script>window.__gpuscope_pwned=1</script>',
  '<img src=x onerror=window.__gpuscope_pwned=1>',
  "<svg onload=alert('gpuscope')></svg>",
  '"quotes" \'apostrophes\' `backticks` ${window.__gpuscope_pwned=1}',
  'back\\slash \\\\ \\u003c/script\\u003e \\x3cimg\\x3e \\n',
  '<!-- c --> ]]> &amp; &lt;b&gt; <b>not bold</b>',
];
// Fragments of the others (newlines, control characters, invalid UTF-8, U+2028/9).
const FRAGMENTS = ['line one', 'line two', 'ctl[', 'bad utf-8 [', 'separators ['];

describe('report page: hostile names', () => {
  const ctx = {};
  before(async () => {
    ctx.capture = hostileCapture();
    ctx.html = htmlReport(ctx.capture, 'hostile');
    ctx.browser = await launchBrowser();
    Object.assign(ctx, await openPage(ctx.browser, ctx.html));
    ctx.origin = BigInt(await ctx.page.evaluate(() => gpuscope.origin()));
    ctx.full = await ctx.page.evaluate(() => gpuscope.whole());
  }, T);
  after(async () => { if (ctx.browser) await ctx.browser.close(); });
  const pwned = () => ctx.page.evaluate(() => typeof window.__gpuscope_pwned);

  it('the file never holds the markup verbatim', () => {
    const html = fs.readFileSync(ctx.html, 'latin1');
    for (const markup of ['<script>window.__gpuscope_pwned', '<img src=x onerror', "<svg onload=alert('gpuscope')"])
      assert.ok(!html.includes(markup), `${markup} appears verbatim in ${ctx.html}`);
  });

  it('nothing ran and no markup was made of the names', T, async () => {
    assert.equal(await pwned(), 'undefined');
    assert.deepEqual(ctx.problems.dialogs, []);
    const made = await ctx.page.evaluate(() => ({
      handlers: document.querySelectorAll('[onerror], [onload]').length,
      images: document.querySelectorAll('img[src="x"]').length,
      bold: [...document.querySelectorAll('b')].filter((b) => b.textContent === 'not bold').length,
    }));
    assert.deepEqual(made, { handlers: 0, images: 0, bold: 0 });
  });

  it('the names show as text, literally', T, async () => {
    const text = await visibleText(ctx.page);
    for (const s of [...PRINTABLE, ...FRAGMENTS]) assert.ok(text.includes(s), `not in the page's text: ${s}`);
  });

  it('search finds them', T, async () => {
    for (const s of PRINTABLE) {
      const found = await ctx.page.evaluate((t) => gpuscope.search(t), s);
      assert.equal(found, expectedSearchCount(ctx.capture, s), `search(${JSON.stringify(s)})`);
    }
  });

  it('hovering and clicking the kernels shows their names as text and runs nothing', T, async () => {
    for (const s of PRINTABLE) {
      const [start, end] = query(ctx.capture, `SELECT start_ns - ${ctx.origin}, end_ns - ${ctx.origin} FROM kernels_named
        WHERE name = ${sqlText(s)} ORDER BY start_ns LIMIT 1`)[0].map(Number);
      await setView(ctx.page, start - (end - start) / 4, end + (end - start) / 4);
      const at = await locate(ctx.page, 'kernel', 0);
      assert.ok(at, `locate(kernel, 0) around ${s}`);
      await ctx.page.mouse.move(at.x, at.y);
      await ctx.page.waitForFunction((name) => {
        const t = document.querySelector('#gs-tooltip');
        return t && t.textContent.includes(name);
      }, { timeout: 10_000 }, s);
      await ctx.page.mouse.click(at.x, at.y);
      assert.equal((await selection(ctx.page)).name, s);
    }
    await setView(ctx.page, ctx.full.start, ctx.full.end);
    await screenshot(ctx.page, `hostile-page-${await ctx.page.evaluate(() => document.documentElement.dataset.theme)}`);
    assert.equal(await pwned(), 'undefined');
  });

  it('no console errors, exceptions, dialogs or network requests', T, async () => {
    assert.deepEqual(ctx.problems, { errors: [], dialogs: [], requests: [] });
  });
});
