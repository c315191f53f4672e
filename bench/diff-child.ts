/** One comparison, measured in its own process: `node diff-child.js A B` prints time and peak memory. */
import { compare } from '../diffing/compare.js';
import { buildReport } from '../report/build.js';

const [a, b] = process.argv.slice(2) as [string, string];
const start = process.hrtime.bigint();
const report = buildReport(compare(a, b), { root: process.cwd() });
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
const peakMiB = process.resourceUsage().maxRSS / 1024;
console.log(JSON.stringify({ seconds, peakMiB, verdict: report.verdict }));
