/**
 * Crypto values held for replay (`check` makes its traces with DETDRIFT_HOLD=bytes to confirm a
 * cause) are for replay only: every report, `show` and JSON output shows their digests, the very
 * digests a trace that holds nothing has.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { EventJson } from '../../report/trace.js';
import { lines } from '../cli-fixtures.js';
import { CLI, project, runPlain, tempDir } from '../helpers.js';
import { murmurReference } from '../murmur-reference.js';

const APIS = ['randomBytes', 'randomUUID', 'randomFillSync', 'getRandomValues', 'randomInt'] as const;

/** Draws the named values in turn, and appends what it got to drawn.txt, which the test reads. */
const APP = lines(
  "const crypto = require('node:crypto');",
  "const fs = require('node:fs');",
  'const draws = {',
  '  randomBytes: () => crypto.randomBytes(16),',
  '  randomUUID: () => crypto.randomUUID(),',
  '  randomFillSync: () => crypto.randomFillSync(Buffer.alloc(16)),',
  '  getRandomValues: () => crypto.getRandomValues(new Uint8Array(16)),',
  '  randomInt: () => crypto.randomInt(2 ** 40),',
  '};',
  'const got = process.argv.slice(2).map((name) => {',
  '  const value = draws[name]();',
  "  return typeof value === 'object' ? Buffer.from(value).toString('hex') : String(value);",
  '});',
  "fs.appendFileSync('drawn.txt', got.join(' ') + '\\n');",
);

/** The digest a trace that holds nothing keeps of each value drawn.txt spells. */
function digestOf(api: (typeof APIS)[number], spelled: string): string {
  if (api === 'randomUUID') return murmurReference(Buffer.from(spelled, 'utf8'));
  if (api !== 'randomInt') return murmurReference(Buffer.from(spelled, 'hex'));
  const double = Buffer.alloc(8);
  double.writeDoubleLE(Number(spelled));
  return murmurReference(double);
}

test('a check that holds crypto values for its replays shows their digests, never the values', () => {
  const dir = project({ 'package.json': { name: 'held', version: '1.0.0', private: true }, 'app.js': APP });
  const out = tempDir('detdrift-held-');
  const file = (name: string) => join(out, name);
  const formats = ['summary', 'comment', 'html', 'sarif', 'json'];
  const reports = formats.flatMap((format) => ['--report', `${format}=${file(format)}`]);
  const env = { GITHUB_ACTIONS: undefined, GITHUB_STEP_SUMMARY: undefined, GITHUB_WORKSPACE: undefined };
  const cli = (args: readonly string[]) => runPlain([CLI, ...args], { cwd: dir, env });
  // The runs part at the file's digest; the cause is the last draw, whose value differs.
  const check = cli([
    'check',
    '--seed',
    '1',
    '--out',
    file('kept'),
    ...reports,
    '--report',
    'github',
    '--',
    process.execPath,
    'app.js',
    ...APIS,
  ]);
  assert.equal(check.code, 1, check.stderr);
  const report = JSON.parse(readFileSync(file('json'), 'utf8'));
  assert.equal(report.cause?.api, 'crypto.randomInt');
  assert.equal(report.confirmation?.status, 'confirmed', 'the values were held, and replayed');
  const held = readdirSync(file('kept/run-1')).map((name) => readFileSync(join(file('kept/run-1'), name), 'latin1'));
  assert.ok(
    held.some((text) => text.includes('"holds":["bytes"]')),
    'the kept traces hold the values',
  );

  const [a, b] = [file('kept/run-1'), file('kept/run-2')];
  const shown = cli(['show', '--json', a])
    .stdout.trim()
    .split('\n')
    .map((line) => JSON.parse(line) as EventJson);
  const outputs: Record<string, string> = {
    check: check.stdout + check.stderr,
    ...Object.fromEntries(formats.map((format) => [`--report ${format}`, readFileSync(file(format), 'utf8')])),
    show: cli(['show', a]).stdout + cli(['show', b]).stdout,
    'show --json': cli(['show', '--json', a]).stdout + cli(['show', '--json', b]).stdout,
    report: cli(['report', a, b]).stdout,
  };
  // Every value any run drew: both runs of the check and every replay of its confirmation.
  const drawn = readFileSync(join(dir, 'drawn.txt'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split(' '));
  assert.ok(drawn.length >= 3, `runs and replays drew: ${drawn.length}`);
  for (const values of drawn) {
    for (const value of values) {
      const raw = new RegExp(`(?<![0-9a-f])${value}(?![0-9a-f])`, 'i');
      for (const [name, text] of Object.entries(outputs)) assert.doesNotMatch(text, raw, `${name} shows a drawn value`);
    }
  }
  // Run A drew first: show has the digest of each of its values, as a trace holding nothing would.
  const crypto = shown.filter((event) => event.family === 'crypto');
  assert.deepEqual(
    crypto.map((event) => [event.api, event.value]),
    APIS.map((api, index) => [`crypto.${api}`, digestOf(api, drawn[0]![index]!)]),
  );
  assert.deepEqual(report.cause.value.a, digestOf('randomInt', drawn[0]![4]!));
});
