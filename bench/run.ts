/**
 * `npm run bench [-- --rounds N] [--only NAME] [--apis Date.now,Math.random] [--baseline DIST] [--processes 1e3,1e4]`:
 * every benchmark (or one), printing ratios measured in this one run; `--apis` narrows `record` to
 * those APIs; `--baseline` is another build's dist directory, which `lockfile` compares with.
 */
import { parseArgs } from 'node:util';
import { benchBisect, benchReplays } from './bisect.js';
import { benchDiff } from './diff.js';
import { benchHtml } from './html.js';
import { benchLockfile } from './lockfile.js';
import { benchProcesses } from './processes.js';
import { benchRecord } from './record.js';
import { benchScan } from './scan.js';
import { benchStartup } from './startup.js';
import { benchSuites } from './suites.js';
import { benchWorkload } from './workload.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    only: { type: 'string' },
    sizes: { type: 'string', default: '1e5,1e6,1e7' },
    apis: { type: 'string' },
    baseline: { type: 'string' },
    processes: { type: 'string', default: '1e2,1e3,1e4' },
  },
});
if (!values.only || values.only === 'record') benchRecord(Number(values.rounds), values.apis?.split(','));
if (!values.only || values.only === 'diff') benchDiff(values.sizes.split(',').map(Number));
if (!values.only || values.only === 'processes') benchProcesses(values.processes.split(',').map(Number));
if (!values.only || values.only === 'bisect') benchBisect([10, 100, 1e3, 1e4, 1e5, 1e6]);
if (!values.only || values.only === 'replays') benchReplays(Number(values.rounds));
if (!values.only || values.only === 'scan') benchScan();
if (!values.only || values.only === 'startup') benchStartup(Number(values.rounds));
if (!values.only || values.only === 'html') benchHtml([1e4, 1e5, 1e6]);
if (!values.only || values.only === 'workload') benchWorkload(Number(values.rounds));
if (!values.only || values.only === 'lockfile') await benchLockfile(values.baseline);
if (!values.only || values.only === 'suites') benchSuites(Number(values.rounds));
