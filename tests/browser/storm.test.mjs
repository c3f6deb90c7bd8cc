// The page contract on a synthetic launch storm of 1M launches (2M records), plus what only a big
// capture shows: narrow kernels drawn as per-pixel columns, and frames that stay fast.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { PAGE_TIMEOUT_MS, STORM_LAUNCHES, lastDraw, queryNumber, setView, stormCapture } from './lib.mjs';
import { describeReportPage } from './report_page.mjs';

const T = { timeout: PAGE_TIMEOUT_MS };

describeReportPage('storm_1m', stormCapture, {
  extra(ctx) {
    it('has every launch of the capture', T, () => {
      assert.equal(queryNumber(ctx.capture, 'SELECT COUNT(*) FROM kernels'), STORM_LAUNCHES);
      console.log(`storm_1m: first paint ${ctx.ready.firstPaintMs.toFixed(0)} ms, ready ${ctx.readyWallMs.toFixed(0)} ms after navigation`);
    });

    it('at full view the kernels are aggregated into per-pixel columns, not drawn one by one', T, async () => {
      const d = await setView(ctx.page, ctx.full.start, ctx.full.end);
      assert.ok(d.aggregated > 0, JSON.stringify(d));
      assert.ok(d.kernelBoxes < ctx.canvasWidth, `${d.kernelBoxes} kernel boxes at full view`);
    });

    // The targets are 50 ms (bench_paint.mjs measures them); this only catches a frame that
    // walks every record.
    it('redraws the whole run and a 10 µs window in under a second', T, async () => {
      const mid = (ctx.full.start + ctx.full.end) / 2;
      for (const [start, end] of [[ctx.full.start, ctx.full.end], [mid - 5000, mid + 5000]]) {
        await setView(ctx.page, start, end);
        const d = await lastDraw(ctx.page);
        assert.ok(d.ms < 1000, `frame over [${start}, ${end}]: ${d.ms} ms`);
      }
    });
  },
});
