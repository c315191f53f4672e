import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compare } from '../../diffing/compare.js';
import { buildReport } from '../../diffing/findings/build.js';
import { renderJson } from '../../report/json.js';
import { project, runHooked, tempDir } from '../helpers.js';
import { writeTrace, type SyntheticEvent } from '../synthetic.js';

function pair(
  a: readonly SyntheticEvent[],
  b: readonly SyntheticEvent[],
  options: { completeB?: boolean; lockB?: string } = {},
) {
  const dir = tempDir();
  mkdirSync(join(dir, 'a'));
  mkdirSync(join(dir, 'b'));
  const lock = (sha256: string) => ({ lockfile: { file: 'package-lock.json', sha256 } });
  writeTrace(join(dir, 'a'), '0', a, { header: lock('base') });
  writeTrace(join(dir, 'b'), '0', b, { complete: options.completeB, header: lock(options.lockB ?? 'base') });
  return buildReport(compare(join(dir, 'a'), join(dir, 'b')), { root: dir });
}

test('observe-mode clock values alone are not a divergence', () => {
  const report = pair(
    [
      { api: 'dateNow', at: 'app.js:1', value: 1 },
      { api: 'stdout', at: 'app.js:2', value: 'done\n' },
    ],
    [
      { api: 'dateNow', at: 'app.js:1', value: 2 },
      { api: 'stdout', at: 'app.js:2', value: 'done\n' },
    ],
  );
  assert.equal(report.verdict, 'agree');
  assert.equal(report.cause, null);
  assert.equal(report.differences.uncontrolledValues, 1);
});

test('the last uncontrolled value before an output divergence is the cause, not an earlier one', () => {
  const common = (clock: number, draw: number, out: string): SyntheticEvent[] => [
    { api: 'dateNow', at: 'app.js:1', value: clock },
    { api: 'mathRandom', at: 'node_modules/dice@2.0.0/index.js:4'.replace('node_modules/', ''), value: draw },
    { api: 'stdout', at: 'app.js:3', value: out },
  ];
  const report = pair(common(1, 0.1, 'heads\n'), common(2, 0.9, 'tails\n'));
  assert.equal(report.verdict, 'diverge');
  assert.equal(report.firstDivergence?.reason, 'output');
  assert.equal(report.cause?.kind, 'call');
  assert.equal(report.cause?.api, 'Math.random');
  assert.equal(report.cause?.package, 'dice@2.0.0');
  assert.deepEqual(report.cause?.value, { a: 0.1, b: 0.9 });
});

test('a call only the new dependency tree makes is blamed when the lockfiles differ', () => {
  const base: SyntheticEvent[] = [
    { api: 'dateNow', at: 'app.js:1', value: 1 },
    { api: 'stdout', at: 'app.js:9', value: 'x\n' },
  ];
  const head: SyntheticEvent[] = [
    { api: 'dateNow', at: 'app.js:1', value: 2 },
    { api: 'mathRandom', at: 'queue@1.1.0/index.js:10', value: 0.5, control: 1 },
    { api: 'stdout', at: 'app.js:9', value: 'x\n' },
  ];
  const report = pair(base, head, { lockB: 'head' });
  assert.equal(report.verdict, 'diverge');
  assert.equal(report.firstDivergence?.reason, 'structure');
  assert.equal(report.cause?.api, 'Math.random');
  assert.equal(report.cause?.run, 'b');
  assert.equal(report.cause?.site?.file, 'queue@1.1.0/index.js');
  assert.match(report.cause?.rule ?? '', /new dependency tree/);
});

test('calls completing in another order across contexts are an ordering difference, not a value', () => {
  const inContext = (first: number, second: number): SyntheticEvent[] => [
    { api: 'readdir', at: 'app.js:2', ctx: [first], value: 'a' },
    { api: 'readdir', at: 'app.js:2', ctx: [second], value: 'b' },
  ];
  const quiet = pair(inContext(1, 2), inContext(1, 2).reverse());
  assert.equal(quiet.verdict, 'agree', 'the same calls per context, reordered, with the same output');
  assert.notEqual(quiet.ordering, null);

  const loud = pair(
    [...inContext(1, 2), { api: 'stdout', at: 'app.js:5', value: 'ab' }],
    [...inContext(1, 2).reverse(), { api: 'stdout', at: 'app.js:5', value: 'ba' }],
  );
  assert.equal(loud.verdict, 'diverge');
  assert.equal(loud.cause?.kind, 'ordering');
  assert.deepEqual(loud.cause?.contexts, ['root.1', 'root.2']);
});

test('a run cut short is missing its calls, and nothing intercepted explains the difference', () => {
  const events: SyntheticEvent[] = [
    { api: 'hostname', at: 'app.js:1', value: 'h' },
    { api: 'stdout', at: 'app.js:2', value: 'ok' },
  ];
  const report = pair(events, events.slice(0, 1), { completeB: false });
  assert.equal(report.verdict, 'diverge');
  assert.equal(report.firstDivergence?.reason, 'missing');
  assert.equal(report.cause?.kind, 'outside');
});

test('the same traces always give the same report, byte for byte', () => {
  const dir = project({ 'app.js': 'console.log(Date.now() > 0, Math.random() < 2);\n' });
  const first = runHooked(['app.js'], { cwd: dir });
  const second = runHooked(['app.js'], { cwd: dir });
  const render = () => renderJson(buildReport(compare(first.traceDir, second.traceDir), { root: dir }));
  const once = render();
  assert.equal(render(), once);
  assert.equal(JSON.parse(once).verdict, 'agree');
});

test('a branch on Math.random: the draw is blamed at its line, not the clock read before it', () => {
  const dir = project({
    'app.js': [
      'const started = Date.now();',
      'const coin = Math.random() < 0.5;',
      "console.log(coin ? 'heads' : 'tails');",
      'if (started < 0) console.log("never");',
    ].join('\n'),
  });
  // Run until two runs disagree: each has even odds, so a few runs suffice (and the test is exact once they do).
  const runs = [runHooked(['app.js'], { cwd: dir })];
  while (runs.length < 40 && runs.every((run) => run.stdout === runs[0]!.stdout))
    runs.push(runHooked(['app.js'], { cwd: dir }));
  const other = runs.find((run) => run.stdout !== runs[0]!.stdout);
  assert.ok(other, 'two runs disagreed within 40 tries');
  const report = buildReport(compare(runs[0]!.traceDir, other.traceDir), { root: dir });
  assert.equal(report.verdict, 'diverge');
  assert.equal(report.firstDivergence?.reason, 'output');
  assert.equal(report.cause?.api, 'Math.random');
  assert.equal(report.cause?.site?.file, 'app.js');
  assert.equal(report.cause?.site?.line, 2);
  assert.equal(report.cause?.source?.lines.find(([line]) => line === 2)?.[1], 'const coin = Math.random() < 0.5;');
});

test('a trace cannot make a report print files outside the project (absolute or ../ frame paths)', () => {
  const report = pair(
    [
      { api: 'mathRandom', at: '/etc/hostname:1', value: 0.1 },
      { api: 'stdout', at: '../../etc/passwd:1', value: 'a' },
    ],
    [
      { api: 'mathRandom', at: '/etc/hostname:1', value: 0.9 },
      { api: 'stdout', at: '../../etc/passwd:1', value: 'b' },
    ],
  );
  assert.equal(report.cause?.site?.file, '/etc/hostname');
  assert.equal(report.cause?.source, null, 'no code frame read from outside the project');
});
