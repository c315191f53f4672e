/**
 * TypeScript run every way a team runs it (test/typescript-fixtures.ts): under the hook the program
 * does what it does without it, `show` puts each planted call at its line of the `.ts` file, and
 * `check` on dep 1.1.0 names the dependency and the `.ts` line of the first project frame. Each
 * way's runs are made once, when its first test asks, and shared by its tests.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { causeOf, detdrift, lineOf, reportOf } from '../cli-fixtures.js';
import { CLI, runPlain, tempDir, type Run } from '../helpers.js';
import { DEP } from '../runner-fixtures.js';
import { programSource, typescriptProject, WAYS, type Way } from '../typescript-fixtures.js';

interface ShownEvent {
  readonly api: string;
  readonly site: { file: string; line: number; column: number; generated?: { line: number } } | null;
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | null = null;
  return () => (made ??= { value: make() }).value;
}

/** What a run left for comparing with another: the runner's own timings left out. */
function outcome(way: Way, run: Run, dir: string) {
  if (!way.runner)
    return { code: run.code, stdout: run.stdout, stderr: run.stderr.replace(/\(node:\d+\)/g, '(node:PID)') };
  const passed = /Tests:?\s+1 passed/.test(run.stdout + run.stderr);
  return { code: run.code, passed, result: readFileSync(join(dir, 'result.txt'), 'utf8') };
}

for (const way of WAYS) {
  const source = programSource(way);
  const recorded = once(() => {
    const dir = typescriptProject(way, '1.0.0');
    const plain = outcome(way, runPlain(way.command.slice(1), { cwd: dir }), dir);
    const out = join(tempDir(), 'trace');
    const run = runPlain([CLI, 'record', '--out', out, '--', ...way.command], { cwd: dir });
    // record's own summary lines follow the program's stderr
    const hooked = outcome(way, { ...run, stderr: run.stderr.replace(/^detdrift: .*\n/gm, '') }, dir);
    const shown = runPlain([CLI, 'show', '--json', out], { cwd: dir });
    assert.equal(shown.code, 0, shown.stderr);
    const events = shown.stdout
      .split('\n')
      .filter((line) => line.startsWith('{"seq"'))
      .map((line) => JSON.parse(line) as ShownEvent);
    return { plain, hooked, events };
  });

  test(`${way.label}: the program's output and exit status are what they are without the hook`, {
    skip: way.skip,
  }, () => {
    const { plain, hooked } = recorded();
    assert.equal(plain.code, 0, JSON.stringify(plain));
    assert.deepEqual(hooked, plain);
  });

  test(`${way.label}: record shows each planted call at its line of ${way.file}`, { skip: way.skip }, () => {
    const at = (api: string) =>
      recorded().events.find((event) => event.api === api && event.site?.file === way.file)?.site;
    for (const [api, needle] of [
      ['Math.random', 'Math.random()'],
      ['Date.now', 'Date.now()'],
      ['crypto.randomUUID', 'randomUUID()'],
    ]) {
      assert.equal(
        at(api!)?.line,
        lineOf(source, needle!),
        `${api} in ${JSON.stringify(recorded().events.filter((event) => event.api === api))}`,
      );
    }
  });

  test(`${way.label}: check on dep 1.1.0 names the dependency and the ${way.file} line of the first project frame`, {
    skip: way.skip,
  }, () => {
    const dir = typescriptProject(way, '1.1.0');
    const report = reportOf(detdrift(['check', '--seed', '7', '--no-confirm', '--json', '--', ...way.command], dir), 1);
    const { verdict, kind, api, package: pkg, site, firstPartySite } = causeOf(report);
    // A transform cache (Jest's, tsx's on Node 24), cold in run 1 and warm in run 2, can run the
    // program in other async contexts: the heuristic then blames the order, at the same call.
    if (kind === 'ordering') assert.equal(report.cause?.stack[0]?.file, report.cause?.site?.file);
    else assert.deepEqual({ kind, api }, { kind: 'call', api: 'Math.random' });
    const expected = {
      verdict: 'diverge',
      package: 'dep@1.1.0',
      site: `dep@1.1.0/index.js:${lineOf(DEP['1.1.0'], 'Math.random')}`,
      firstPartySite: `${way.file}:${lineOf(source, 'simulate(42)')}`,
    };
    assert.deepEqual({ verdict, package: pkg, site, firstPartySite }, expected);
  });
}
