// The page contract on every real capture in tests/data (report_page.mjs).
import fs from 'node:fs';
import path from 'node:path';
import { repo } from './lib.mjs';
import { describeReportPage } from './report_page.mjs';

const data = path.join(repo, 'tests/data');
for (const file of fs.readdirSync(data).filter((f) => f.endsWith('.gpuscope')).sort())
  describeReportPage(path.basename(file, '.gpuscope'), path.join(data, file), { roofline: file === 'bsr_spmm_metrics.gpuscope', cut: file === 'bsr_spmm_metrics.gpuscope' });
