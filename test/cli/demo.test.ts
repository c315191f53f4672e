/** `detdrift demo` end to end: the bundled simulation, built at two versions of its dependency. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers.js';
import { causeOf, detdrift, lineOf, reportOf } from '../cli-fixtures.js';

const example = (file: string) => readFileSync(join(REPO, 'examples', 'sim', file), 'utf8');

test('demo: the bundled simulation parts at the draw tick-queue 1.1.0 adds', () => {
  const text = detdrift(['demo'], process.cwd());
  assert.equal(text.code, 0, text.stderr);
  for (const name of ['tick-queue@1.1.0', 'Math.random', 'sim.js'])
    assert.ok(text.stdout.includes(name), `the demo names ${name}`);
  const report = reportOf(detdrift(['demo', '--json'], process.cwd()), 0);
  assert.deepEqual(causeOf(report), {
    verdict: 'diverge',
    reason: 'structure',
    kind: 'call',
    api: 'Math.random',
    package: 'tick-queue@1.1.0',
    site: `tick-queue@1.1.0/index.js:${lineOf(example('packages/tick-queue-1.1.0/index.js'), 'Math.random')}`,
    firstPartySite: `sim.js:${lineOf(example('sim.js'), 'queue.push(')}`,
    confidence: 'heuristic',
  });
});
