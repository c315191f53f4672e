/** One comparison, measured in its own process: `node diff-child.js A B` prints time, CPU time and peak memory. */
import { compare } from '../diffing/compare.js';
import { buildReport } from '../diffing/findings/build.js';

const [a, b] = process.argv.slice(2) as [string, string];
const start = process.hrtime.bigint();
const cpu = process.cpuUsage();
const report = buildReport(compare(a, b), { root: process.cwd() });
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
const { user, system } = process.cpuUsage(cpu);
const peakMiB = process.resourceUsage().maxRSS / 1024;
const at = report.firstDivergence ? `${report.firstDivergence.reason}@${report.firstDivergence.index.a}` : null;
console.log(JSON.stringify({ seconds, cpuSeconds: (user + system) / 1e6, peakMiB, verdict: report.verdict, at }));
