/**
 * Strings from a trace or a package (a package's name and version, file and function names, code
 * frames, a program's output) in every output of the real CLI, outside GitHub Actions: none can
 * break a line, drive a terminal or issue a workflow command; JSON keeps each one exact.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { MatrixReport, Report } from '../../report/types.js';
import { CLI, project, runPlain, tempDir, type Run } from '../helpers.js';
import { runnerReads } from '../workflow-commands.js';

// An OSC 8 link, a CSI that clears the screen, an 8-bit CSI, bidi overrides and isolates, NEL,
// U+2028, and workflow commands after line breaks, in every string a dependency controls.
const NAME = 'evil\n::error::pkg\u001b]8;;http:x.test\u0007link\u001b]8;;\u0007';
const VERSION = '1.0.0\n##[warning]ver\u202egnp.exe';
const FILE = 'lib\n::notice::file\u001b[2J\u2066.js';
const FN = 'draw\n::group::fn\u009b31m\u2028';
const PACKAGE = `${NAME}@${VERSION}`;
const SOURCE = `exports.draw = { ${JSON.stringify(FN)}() { return Math.random(); /* \u001b]8;;http:x.test\u0007 ::error::src \u202e */ } }[${JSON.stringify(FN)}];\n`;
const OUTPUT = '\n::error::out\u001b[31mred\u202e\u0085';

const dir = project({
  'package.json': { name: 'evil-app', version: '1.0.0', private: true, dependencies: { [NAME]: VERSION } },
  [`node_modules/${NAME}/package.json`]: { name: NAME, version: VERSION, main: FILE },
  [`node_modules/${NAME}/${FILE}`]: SOURCE,
  // Every run prints a fresh draw, so two runs always part, at the dependency's Math.random.
  'app.js': `const { draw } = require(${JSON.stringify(NAME)});\nprocess.stdout.write(${JSON.stringify(OUTPUT)} + draw());\n`,
});

/** The CLI as a plain CI step runs it: not inside GitHub Actions, so nothing is fenced. */
function cli(args: readonly string[]): Run {
  return runPlain([CLI, ...args], {
    cwd: dir,
    env: { GITHUB_ACTIONS: undefined, GITHUB_STEP_SUMMARY: undefined, GITHUB_WORKSPACE: undefined },
  });
}

function ran(args: readonly string[], status: number): string {
  const run = cli(args);
  assert.equal(run.code, status, `detdrift ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/** Raw characters that break a line or drive a terminal: every one but tab and the renderers' own line feeds. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** A text output: it shows the payloads (escaped; SARIF's JSON escapes the escape), and nothing in it is live. */
function assertInert(name: string, text: string, commands: readonly string[] = []): void {
  assert.match(text, /:\\{1,2}u003a/, `${name} shows the payloads: ${text.slice(0, 400)}`);
  assert.doesNotMatch(text, UNSAFE, `${name}: ${JSON.stringify(text.match(UNSAFE)?.[0])} raw`);
  assert.deepEqual(
    runnerReads(text).map((read) => read.command),
    commands,
    `${name}: the runner reads only detdrift's own commands`,
  );
}

/** A JSON output: the same data, with no raw character a terminal or runner would act on. */
function assertExact(name: string, text: string): void {
  assert.doesNotMatch(text, UNSAFE, `${name}: ${JSON.stringify(text.match(UNSAFE)?.[0])} raw`);
  assert.ok(!text.includes('##['), `${name}: no legacy workflow command`);
  assert.deepEqual(runnerReads(text), [], name);
}

test("check, diff, show, report, matrix and scan show a package's strings inert, and JSON keeps them exact", () => {
  const out = tempDir('detdrift-untrusted-');
  const file = (name: string) => join(out, name);
  const reports = ['summary', 'comment', 'html', 'sarif'].flatMap((format) => [
    '--report',
    `${format}=${file(format)}`,
  ]);
  const check = ran(
    [
      'check',
      '--seed',
      '1',
      '--out',
      file('kept'),
      ...reports,
      '--report',
      `json=${file('report.json')}`,
      '--',
      process.execPath,
      'app.js',
    ],
    1,
  );
  assertInert('check', check);
  for (const format of ['summary', 'comment', 'html', 'sarif'])
    assertInert(`check --report ${format}`, readFileSync(file(format), 'utf8'));
  const json = readFileSync(file('report.json'), 'utf8');
  assertExact('check --report json', json);
  const report = JSON.parse(json) as Report;
  assert.deepEqual(
    [report.cause?.package, report.cause?.site?.file, report.cause?.site?.fn],
    [PACKAGE, `${PACKAGE}/${FILE}`, FN],
  );
  assert.ok(
    report.cause?.source?.lines.some(([, line]) => SOURCE.startsWith(line)),
    'the code frame, exact',
  );
  assert.ok(
    JSON.stringify(report.firstDivergence?.a?.value).includes(JSON.stringify(OUTPUT).slice(1, -1)),
    'the output, exact',
  );

  const [a, b] = [file('kept/run-1'), file('kept/run-2')];
  assertInert('diff', ran(['diff', '--no-confirm', a, b], 1));
  assertInert('show', ran(['show', a], 0));
  const shown = ran(['show', '--json', a], 0);
  assertExact('show --json', shown);
  assert.ok(
    shown
      .trim()
      .split('\n')
      .some((line) => (JSON.parse(line) as { site: { package: string } | null }).site?.package === PACKAGE),
  );
  for (const format of ['terminal', 'summary', 'comment', 'html', 'sarif'])
    assertInert(`report --format ${format}`, ran(['report', a, b, '--format', format], 0));
  assertInert('report --format github', ran(['report', a, b, '--format', 'github'], 0), ['error', 'notice']);
  assertExact('report --format json', ran(['report', a, b, '--format', 'json'], 0));

  const matrix = tempDir('detdrift-untrusted-matrix-');
  cpSync(a, join(matrix, 'linux-a'), { recursive: true });
  cpSync(b, join(matrix, 'linux-b'), { recursive: true });
  assertInert(
    'matrix',
    ran(['matrix', matrix, '--summary', file('matrix.md'), '--report', `html=${file('matrix.html')}`], 1),
  );
  assertInert('matrix --summary', readFileSync(file('matrix.md'), 'utf8'));
  assertInert('matrix --report html', readFileSync(file('matrix.html'), 'utf8'));
  const grid = ran(['matrix', matrix, '--json'], 1);
  assertExact('matrix --json', grid);
  assert.equal((JSON.parse(grid) as MatrixReport).runs[0]?.cause?.package, PACKAGE);

  const scanned = cli(['scan', join('node_modules', NAME)]);
  assertInert('scan', scanned.stdout);
  assertInert('scan, on stderr', scanned.stderr);
  const sites = ran(['scan', '--json', join('node_modules', NAME)], 0);
  assertExact('scan --json', sites);
  assert.equal((JSON.parse(sites) as { sites: Array<{ file: string }> }).sites[0]?.file, FILE);
});
