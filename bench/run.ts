/** `npm run bench [-- --rounds N]`: every benchmark, printing ratios measured in this one run. */
import { parseArgs } from 'node:util';
import { benchRecord } from './record.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
benchRecord(Number(values.rounds));
