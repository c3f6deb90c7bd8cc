// bench_paint.mjs: how fast an HTML report draws in headless chromium. Prints the first paint
// (gpuscope.ready's firstPaintMs, and the wall time from navigation until ready) and the redraw
// time (gpuscope.setView -> lastDraw().ms) at 10 zoom levels from the whole run down to 10 µs,
// median and max over --reps views per level (each shifted a little).
//   node tests/browser/bench_paint.mjs PAGE.html [--reps 5]
import fs from 'node:fs';
import { launchBrowser, median, openPage, setView } from './lib.mjs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
const repsAt = args.indexOf('--reps');
const reps = repsAt >= 0 ? Number(args[repsAt + 1]) : 5;
if (!file || !(reps > 0)) {
  console.error('usage: node tests/browser/bench_paint.mjs PAGE.html [--reps 5]');
  process.exit(2);
}

const browser = await launchBrowser();
try {
  const { page, problems, ready, readyWallMs } = await openPage(browser, file);
  const full = await page.evaluate(() => gpuscope.whole());  // the page opens on its steps or GPU activity
  const whole = full.end - full.start;
  const smallest = Math.min(10_000, whole);
  const levels = 10;
  console.log(`page: ${file} (${(fs.statSync(file).size / 1e6).toFixed(1)} MB)`);
  console.log(`first paint: ${ready.firstPaintMs.toFixed(0)} ms (page clock); ready ${readyWallMs.toFixed(0)} ms after navigation\n`);
  console.log('| view width | kernel boxes | aggregated | redraw median | redraw max |\n| ---: | ---: | ---: | ---: | ---: |');
  const all = [];
  for (let level = 0; level < levels; ++level) {
    const w = whole * (smallest / whole) ** (level / (levels - 1));
    const times = [];
    let last = null;
    for (let r = 0; r < reps; ++r) {
      const centre = full.start + whole / 2 + (r - (reps - 1) / 2) * w / 10;
      const start = Math.max(full.start, Math.min(full.end - w, centre - w / 2));
      last = await setView(page, start, start + w);
      times.push(last.ms);
    }
    all.push(...times);
    const width = w >= 1e6 ? `${(w / 1e6).toFixed(1)} ms` : `${(w / 1e3).toFixed(1)} µs`;
    console.log(`| ${width} | ${last.kernelBoxes} | ${last.aggregated} | ${median(times).toFixed(1)} ms | ${Math.max(...times).toFixed(1)} ms |`);
  }
  console.log(`\nredraw over all levels: median ${median(all).toFixed(1)} ms, max ${Math.max(...all).toFixed(1)} ms`);
  const bad = [...problems.errors, ...problems.dialogs, ...problems.requests];
  if (bad.length) console.log(`page problems: ${bad.join('; ')}`);
} finally {
  await browser.close();
}
