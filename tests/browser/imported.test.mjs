// The page contract (report_page.mjs) on other profilers' files: the page is made from the file
// itself (`gpuscope report FILE --format html`), and its numbers are checked against the file's
// `gpuscope import`. The torch.profiler traces of tests/data/kineto always; the nsys exports of
// ../shared/fixtures/nsys when that folder is beside the checkout.
import fs from 'node:fs';
import path from 'node:path';
import { gpuscope, outDir, repo } from './lib.mjs';
import { describeReportPage } from './report_page.mjs';

function imported(source, label) {
  const capture = path.join(outDir, `${label}.gpuscope`);
  gpuscope('import', '-f', '-o', capture, source);
  return capture;
}

const kineto = path.join(repo, 'tests/data/kineto');
const nsys = path.join(repo, '../shared/fixtures/nsys');
const files = [
  ...fs.readdirSync(kineto).filter((f) => f.endsWith('.json.gz')).map((f) => path.join(kineto, f)),
  ...(fs.existsSync(nsys) ? fs.readdirSync(nsys).filter((f) => f.endsWith('.sqlite')).map((f) => path.join(nsys, f)) : []),
];
if (!fs.existsSync(nsys)) console.log(`# nsys pages skipped: no ${nsys} beside the checkout`);
for (const source of files.sort()) {
  const label = 'imported_' + path.basename(source).replace(/\.(json\.gz|sqlite)$/, '');
  describeReportPage(label, () => imported(source, label), { source });
}
