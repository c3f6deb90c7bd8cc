// Shared by the browser tests and bench_paint.mjs: the gpuscope binaries, captures and their
// HTML pages, headless chromium, and a page opened with every console error, exception, dialog
// and network request recorded. Settings come from the environment (run_browser_tests.sh sets
// them): GPUSCOPE, GPUSCOPE_SYNTH, GPUSCOPE_BROWSER_OUT (where pages, captures and screenshots
// go) and CHROMIUM.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const build = path.join(repo, 'build');
export const gpuscopeBinary = process.env.GPUSCOPE || path.join(build, 'gpuscope');
export const synthBinary = process.env.GPUSCOPE_SYNTH || path.join(build, 'gpuscope_synth');
export const outDir = process.env.GPUSCOPE_BROWSER_OUT || path.join(build, 'browser');
export const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
fs.mkdirSync(outDir, { recursive: true });

// Generous for a loaded 2-core machine; the 1M-launch page alone takes ~20 s there.
export const PAGE_TIMEOUT_MS = 180_000;
// Making a page's files (the capture, `gpuscope report --format html`): slow in sanitizer builds.
export const SETUP_TIMEOUT_MS = 600_000;
export const STORM_LAUNCHES = 1_000_000;

export function gpuscope(...args) {
  return execFileSync(gpuscopeBinary, args, { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
}

// Rows of `gpuscope query`, each an array of its tab-separated fields.
export function query(capture, sql) {
  return gpuscope('query', capture, sql).split('\n').filter((line) => line !== '').map((line) => line.split('\t'));
}

export function queryNumber(capture, sql) {
  return Number(query(capture, sql)[0][0]);
}

// A SQL string literal.
export const sqlText = (text) => `'${text.replaceAll("'", "''")}'`;

function newer(file, than) {
  return fs.existsSync(file) && fs.statSync(file).mtimeMs >= fs.statSync(than).mtimeMs;
}

// A synthetic capture in outDir, written again only when the generator is newer than it.
export function synthCapture(name, ...args) {
  const file = path.join(outDir, name);
  if (!newer(file, synthBinary)) execFileSync(synthBinary, ['-o', file, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  return file;
}

export const stormCapture = () => synthCapture('storm_1m.gpuscope', '--launches', String(STORM_LAUNCHES));
export const hostileCapture = () => synthCapture('hostile.gpuscope', '--hostile');

// `gpuscope report CAPTURE --format html` into outDir/NAME.html, made afresh every run.
export function htmlReport(capture, name) {
  const file = path.join(outDir, `${name}.html`);
  gpuscope('report', capture, '--format', 'html', '-o', file);
  return file;
}

export function launchBrowser() {
  const args = ['--disable-dev-shm-usage', '--hide-scrollbars', '--mute-audio'];
  if (process.getuid && process.getuid() === 0) args.push('--no-sandbox');
  return puppeteer.launch({ executablePath: chromium, headless: true, args, protocolTimeout: PAGE_TIMEOUT_MS });
}

// Opens an HTML file and records what must not happen: console errors, uncaught exceptions,
// dialogs (dismissed) and requests for anything but the file itself.
export async function openPage(browser, htmlFile, { waitReady = true } = {}) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1600, height: 1000, deviceScaleFactor: 1 });
  page.setDefaultTimeout(PAGE_TIMEOUT_MS);
  const url = pathToFileURL(htmlFile).href;
  const problems = { errors: [], dialogs: [], requests: [] };
  page.on('console', (m) => { if (m.type() === 'error') problems.errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.errors.push(`exception: ${e.message}`));
  page.on('dialog', async (d) => { problems.dialogs.push(`${d.type()}: ${d.message()}`); await d.dismiss(); });
  page.on('request', (r) => {
    const u = r.url();
    if (u !== url && !u.startsWith('data:') && !u.startsWith('blob:')) problems.requests.push(u);
  });
  const navigated = performance.now();
  await page.goto(url, { waitUntil: 'load', timeout: PAGE_TIMEOUT_MS });
  let ready = null;
  let readyWallMs = null;
  if (waitReady) {
    await page.waitForFunction(() => window.gpuscope && window.gpuscope.ready, { timeout: PAGE_TIMEOUT_MS });
    ready = await page.evaluate(() => window.gpuscope.ready);
    readyWallMs = performance.now() - navigated;
  }
  return { page, problems, ready, readyWallMs };
}

export const view = (page) => page.evaluate(() => gpuscope.view());
export const setView = (page, start, end) => page.evaluate((s, e) => gpuscope.setView(s, e), start, end);
export const lastDraw = (page) => page.evaluate(() => gpuscope.lastDraw());
export const locate = (page, kind, n = 0) => page.evaluate((k, i) => gpuscope.locate(k, i), kind, n);
export const selection = (page) => page.evaluate(() => gpuscope.selection());

// A window over the middle of the capture holding a few kernels, each at least 1 px wide there
// (assuming the timeline's drawing area is at least a third of its canvas), whose edges fall
// between kernels: { start, end } in ns relative to the origin, half-integers so that no kernel
// edge coincides with them.
export function kernelWindow(capture, origin, canvasWidthPx, { launched = false } = {}) {
  const rel = (column) => `(${column} - ${origin})`;
  // launched: only kernels whose launch call is in the capture (an nsys export cut to a time
  // window also holds kernels launched before it). An uncorrelated IN: the capture has no index
  // (schema v9), and SQLite builds this set once where EXISTS would scan the calls per kernel.
  const where = `start_ns > 0 AND end_ns >= start_ns` + (launched
    ? ' AND (k.pid, k.correlation_id) IN (SELECT pid, correlation_id FROM api_calls)' : '');
  const rows = query(capture, `SELECT ${rel('start_ns')}, ${rel('end_ns')} FROM kernels k WHERE ${where}
    ORDER BY start_ns LIMIT 400 OFFSET (SELECT COUNT(*) / 2 FROM kernels k WHERE ${where}) - 10`).map((r) => r.map(Number));
  // Busy intervals: overlapping kernels merged, with the shortest kernel of each.
  const busy = [];
  for (const [s, e] of rows) {
    const last = busy.at(-1);
    if (last && s <= last.end) {
      last.end = Math.max(last.end, e);
      last.shortest = Math.min(last.shortest, e - s);
    } else busy.push({ start: s, end: e, shortest: e - s });
  }
  // The first and last intervals may touch kernels outside the sample: never an edge.
  for (let i = 1; i + 1 < busy.length; ++i) {
    let found = null;
    let shortest = Infinity;
    for (let j = i; j + 1 < busy.length && j - i < 8; ++j) {
      shortest = Math.min(shortest, busy[j].shortest);
      const span = busy[j].end - busy[i].start;
      const pad = Math.max(span * 0.05, 2);
      const left = Math.min(pad, (busy[i].start - busy[i - 1].end) / 2);
      const right = Math.min(pad, (busy[j + 1].start - busy[j].end) / 2);
      if ((span + left + right) * 3 > shortest * canvasWidthPx) break;
      found = { start: Math.floor(busy[i].start - left) + 0.5, end: Math.ceil(busy[j].end + right) - 0.5 };
    }
    if (found) return found;
  }
  return null;
}

export function visibleText(page) {
  return page.evaluate(() => {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => (n.parentElement.closest('script, style, template, noscript') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    let text = '';
    for (let n = walker.nextNode(); n; n = walker.nextNode()) text += n.data + '\n';
    return text;
  });
}

// The element `selector`, the whole page, or ({viewport: true}) what the window shows.
export async function screenshot(page, name, selector, { viewport = false } = {}) {
  const file = path.join(outDir, `${name}.png`);
  if (selector) await (await page.$(selector)).screenshot({ path: file });
  else await page.screenshot({ path: file, fullPage: !viewport });
  return file;
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
