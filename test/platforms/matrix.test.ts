/**
 * `detdrift matrix DIR`: the traces of a CI matrix (platform × Node × seed) compared with the
 * reference run of each seed, with a label for a divergence only between platforms.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { MatrixReport } from '../../report/types.js';
import { detdrift } from '../cli-fixtures.js';
import { project, tempDir } from '../helpers.js';
import { program, writeRun, type Os, type Variant } from '../platform-traces.js';

const cwd = project({ 'package.json': { name: 'fixture', version: '1.0.0' } });
const REVERSED: Variant = { listing: ['b.txt', 'a.txt'] };

/** A matrix directory: `[name, os, node, variant]` per run, seed from the name. */
function matrix(runs: ReadonlyArray<readonly [string, Os, string, Variant?]>): string {
  const dir = tempDir('detdrift-matrix-');
  for (const [name, os, node, variant] of runs)
    writeRun(dir, name, os, program(os, variant), { node: `v${node}.1.0`, seed: /seed(\w+)$/.exec(name)![1]! });
  return dir;
}

function matrixJson(dir: string, status: number, ...options: string[]): MatrixReport {
  const run = detdrift(['matrix', dir, '--json', ...options], cwd);
  assert.equal(run.code, status, run.stderr);
  return JSON.parse(run.stdout) as MatrixReport;
}

const labels = (report: MatrixReport) => report.runs.map((row) => [row.name, row.reference, row.label]);

test('a matrix whose runs differ only in paths, line endings and host identity agrees, against the first Linux run', () => {
  const dir = matrix([
    ['win32-20-seed42', 'win32', '20'],
    ['darwin-20-seed42', 'darwin', '20'],
    ['linux-22-seed42', 'linux', '22'],
    ['linux-20-seed42', 'linux', '20'],
  ]);
  const report = matrixJson(dir, 0);
  assert.equal(report.schema, 'detdrift.matrix/1');
  assert.equal(report.reference, 'linux-20-seed42');
  assert.deepEqual(labels(report), [
    ['linux-22-seed42', 'linux-20-seed42', 'agree'],
    ['darwin-20-seed42', 'linux-20-seed42', 'agree'],
    ['win32-20-seed42', 'linux-20-seed42', 'agree'],
  ]);
  assert.deepEqual(
    report.runs.map((row) => [row.platform, row.node, row.seed]),
    [
      ['linux', '22', '42'],
      ['darwin', '20', '42'],
      ['win32', '20', '42'],
    ],
  );
});

test('a divergence only between platforms, while each platform agrees with itself, is platform-specific, with its cause', () => {
  const dir = matrix([
    ['linux-20-seed42', 'linux', '20'],
    ['linux-22-seed42', 'linux', '22'],
    ['macos-20-seed42', 'darwin', '20', REVERSED],
    ['macos-22-seed42', 'darwin', '22', REVERSED],
  ]);
  const report = matrixJson(dir, 1);
  assert.equal(report.verdict, 'diverge');
  assert.deepEqual(labels(report), [
    ['linux-22-seed42', 'linux-20-seed42', 'agree'],
    ['macos-20-seed42', 'linux-20-seed42', 'platform-specific'],
    ['macos-22-seed42', 'linux-20-seed42', 'platform-specific'],
  ]);
  const row = report.runs[1]!;
  assert.equal(row.firstDivergence?.reason, 'value');
  assert.deepEqual(
    [row.cause?.api, row.cause?.package, row.cause?.site?.file],
    ['fs.readdir', 'dep@1.0.0', 'dep@1.0.0/index.js'],
  );
  assert.deepEqual(row.cause?.value, { a: ['a.txt', 'b.txt'], b: ['b.txt', 'a.txt'] });
  const text = detdrift(['matrix', dir], cwd);
  assert.equal(text.code, 1);
  assert.match(text.stdout, /^detdrift matrix: 3 runs against linux-20-seed42: 2 diverge$/m);
  assert.match(text.stdout, /^ {2}macos-20-seed42 +darwin +20 +42 +linux-20-seed42 +platform-specific$/m);
  assert.match(text.stdout, /cause: fs\.readdir in dep@1\.0\.0 at dep@1\.0\.0\/index\.js:3:1/);
});

test('a Node-only divergence is node-specific; a platform whose own runs disagree is not called platform-specific', () => {
  const dir = matrix([
    ['linux-20-seed42', 'linux', '20'],
    ['linux-22-seed42', 'linux', '22', { printed: 'first from node 22' }],
    ['darwin-20-seed42', 'darwin', '20', REVERSED],
    ['darwin-22-seed42', 'darwin', '22'],
  ]);
  assert.deepEqual(labels(matrixJson(dir, 1)), [
    ['linux-22-seed42', 'linux-20-seed42', 'node-specific'],
    ['darwin-20-seed42', 'linux-20-seed42', 'diverge'],
    ['darwin-22-seed42', 'linux-20-seed42', 'agree'],
  ]);
});

test('each seed is compared with the reference platform and Node of its own seed; --reference picks them', () => {
  const dir = matrix([
    ['linux-20-seed1', 'linux', '20'],
    ['linux-20-seed2', 'linux', '20', { printed: 'seed 2 prints this' }],
    ['darwin-20-seed1', 'darwin', '20'],
    ['darwin-20-seed2', 'darwin', '20', { printed: 'seed 2 prints this' }],
    ['darwin-20-seed9', 'darwin', '20'],
  ]);
  const report = matrixJson(dir, 0);
  assert.deepEqual(labels(report), [
    ['darwin-20-seed1', 'linux-20-seed1', 'agree'],
    ['darwin-20-seed2', 'linux-20-seed2', 'agree'],
  ]);
  assert.deepEqual(report.unpaired, ['darwin-20-seed9']);
  const mac = matrixJson(dir, 0, '--reference', 'darwin-20-seed2');
  assert.deepEqual(labels(mac), [
    ['linux-20-seed1', 'darwin-20-seed1', 'agree'],
    ['linux-20-seed2', 'darwin-20-seed2', 'agree'],
  ]);
});

test('matrix --summary appends a Markdown table whose trace strings stay inert; bad input exits 2', () => {
  const dir = matrix([
    ['linux-20-seed42', 'linux', '20'],
    ['darwin-20-seed42', 'darwin', '20', { ...REVERSED, printed: '|evil ##[error]x' }],
  ]);
  const summary = join(tempDir(), 'summary.md');
  assert.equal(detdrift(['matrix', dir, '--summary', summary], cwd).code, 1);
  const markdown = readFileSync(summary, 'utf8');
  assert.match(markdown, /^### detdrift matrix: runs diverge from `linux-20-seed42`$/m);
  assert.match(
    markdown,
    /^\| `darwin-20-seed42` \| `darwin, Node 20, seed 42` \| \*\*platform-specific\*\* \| `linux-20-seed42 and darwin-20-seed42 get different values from the same call after 5 recorded calls/m,
  );
  assert.doesNotMatch(markdown, /##\[error\]/);
  const unknown = detdrift(['matrix', dir, '--reference', 'solaris-20-seed42'], cwd);
  assert.equal(unknown.code, 2);
  assert.match(
    unknown.stderr,
    /ERR_OPTION_VALUE: --reference got "solaris-20-seed42"; the runs are: linux-20-seed42, darwin-20-seed42/,
  );
  const empty = detdrift(['matrix', tempDir()], cwd);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /ERR_NO_TRACES/);
});
