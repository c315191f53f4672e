/**
 * The command line (issue #9, item 3): random argument vectors from the CLI's own vocabulary and
 * beyond it. Parsing and normalizing never throws anything but a CliError, which the CLI prints
 * with exit status 2; nothing runs (only `prepare` is called, never a command's `start`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandLine } from '../../cli/args.js';
import { CliError, reportError } from '../../cli/shared/errors.js';
import { tempDir } from '../helpers.js';
import { caseCount, caseName, seeded, type Random } from './seeded.js';

const COMMANDS = [
  'record',
  'diff',
  'check',
  'merge',
  'replay',
  'report',
  'demo',
  'show',
  'scan',
  'bump',
  'matrix',
  'help',
  '--help',
  '-h',
  '--version',
  '-v',
  'nope',
  '',
  '__proto__',
  'constructor',
  'toString',
];
const OPTIONS = [
  '--out',
  '-o',
  '--seed',
  '--seeds',
  '--shard',
  '--mode',
  '--runs',
  '--json',
  '--keep',
  '--no-confirm',
  '--report',
  '--format',
  '--log-level',
  '--diff',
  '--perturb',
  '--base',
  '--head',
  '--base-trace',
  '--install',
  '--reference',
  '--summary',
  '--help',
  '-h',
  '--',
  '-',
  '---',
  '--x',
  '-xyz',
  '--seed=1',
  '--report=github=a.txt',
  '--mode=',
  '--json=1',
];
const VALUES = [
  '',
  '0',
  '42',
  '1..8',
  '3..1',
  '1,2..4',
  '2/4',
  '9/4',
  '0x2a',
  '0X2A',
  '-1',
  '1e3',
  '101',
  '2',
  'x',
  'observe',
  'control',
  'replay',
  'perturb',
  'all',
  'dir-order,clock:dst',
  'github',
  'summary',
  'sarif=out.sarif',
  'json,github',
  'terminal',
  'trace',
  'warn',
  'silent',
  '.',
  '/',
  'a b',
  '\u0000',
  'é😀',
  'x'.repeat(5000),
  'node',
  'app.js',
  'HEAD',
];

function argv(random: Random): string[] {
  const args: string[] = [];
  if (random() < 0.95) args.push(random.pick(COMMANDS));
  for (let i = random.int(8); i > 0; i--) {
    const roll = random();
    if (roll < 0.5) args.push(random.pick(OPTIONS));
    else if (roll < 0.9) args.push(random.pick(VALUES));
    else args.push(Buffer.from(random.bytes(1 + random.int(12))).toString('utf8'));
  }
  return args;
}

const CASES = caseCount(1000);

test(`${CASES} random command lines: a parsed invocation, or a CliError with exit status 2`, async () => {
  const random = seeded(30);
  const cwd = tempDir('detdrift-fuzz-args-');
  const saved = process.env.GITHUB_STEP_SUMMARY;
  const outcomes = { parsed: 0, refused: 0 };
  try {
    for (let i = 0; i < CASES; i++) {
      const args = argv(random);
      if (random() < 0.5) process.env.GITHUB_STEP_SUMMARY = '/tmp/summary.md';
      else delete process.env.GITHUB_STEP_SUMMARY;
      try {
        await parseCommandLine(args, cwd);
        outcomes.parsed++;
      } catch (error) {
        if (!(error instanceof CliError))
          assert.fail(
            `${caseName('args', i)}: ${JSON.stringify(args)}: ${error instanceof Error ? error.stack : String(error)}`,
          );
        const { status, text } = reportError(error);
        assert.equal(status, 2, `${caseName('args', i)}: ${JSON.stringify(args)}: ${text}`);
        assert.match(text, /^detdrift: ERR_[A-Z_]+: /);
        outcomes.refused++;
      }
    }
  } finally {
    if (saved === undefined) delete process.env.GITHUB_STEP_SUMMARY;
    else process.env.GITHUB_STEP_SUMMARY = saved;
  }
  assert.ok(outcomes.parsed > 0 && outcomes.refused > 0, JSON.stringify(outcomes));
});
