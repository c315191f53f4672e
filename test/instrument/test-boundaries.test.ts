/**
 * Where tests begin and end under the real runners (instrument/runners/), as users run them:
 * `detdrift record` of Jest 30, Jest 29, Mocha 11 and `node --test` on three test files
 * (test/boundary-fixtures.ts). Each test has a start and an end in the trace, with its file, full
 * name and outcome, and its console output between them; in control mode what a test draws is the
 * same whichever tests ran before it, and in every run.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Chunk } from '../../tracer/reader.js';
import {
  BOUNDARY_RUNNERS,
  type BoundaryRunner,
  boundaryProject,
  FAILURE,
  FILES,
  type FileName,
  testFile,
  testNames,
} from '../boundary-fixtures.js';
import { detdrift } from '../cli-fixtures.js';
import { readTraces, tempDir } from '../helpers.js';

interface Seen {
  outcome: string | null;
  /** the digests of what the test printed: its draws */
  readonly output: string[];
}

const dir = boundaryProject();

/** Records `files` under the runner in control mode; every test seen, by `file\0full name`. */
function recordTests(runner: BoundaryRunner, files: readonly FileName[]): Map<string, Seen> {
  const out = join(tempDir(), 'trace');
  const command = runner.command(files.map((file) => testFile(runner, file)));
  const run = detdrift(['record', '--mode', 'control', '--seed', '3', '--out', out, '--', ...command], dir);
  const failing = files.includes('a') ? 1 : 0;
  assert.equal(run.code, failing, `the runner fails with file a's failing test alone; stderr: ${run.stderr}`);
  const tests = new Map<string, Seen>();
  for (const trace of readTraces(out).values()) {
    let running: Seen | null = null;
    for (const event of trace.events) {
      if (event.api === 'test' && event.form === 'start') {
        assert.equal(running, null, `a test began inside another: ${String(event.value)}`);
        assert.ok(!tests.has(event.value as string), `${String(event.value)} ran once`);
        running = { outcome: null, output: [] };
        tests.set(event.value as string, running);
      } else if (event.api === 'test' && event.form === 'end') {
        assert.ok(running, 'a test ended that began');
        running.outcome = event.value as string;
        running = null;
      } else if (running !== null && isOutput(runner, event.api, event.form, event.value)) {
        running.output.push((event.value as Chunk).digest);
      }
    }
  }
  return tests;
}

/** A line the test printed: Jest's own output events, or (Mocha, node:test) a stdout write that is one. */
function isOutput(runner: BoundaryRunner, api: string, form: string, value: unknown): boolean {
  const printed = runner.output === 'test' ? api === 'test' && form === 'output' : api === 'process.stdout';
  return printed && (value as Chunk).head.startsWith('drew ');
}

const key = (runner: BoundaryRunner, file: FileName, name: string) => `${testFile(runner, file)}\u0000${name}`;

for (const runner of Object.values(BOUNDARY_RUNNERS) as BoundaryRunner[]) {
  test(`${runner.label}: each test begins and ends with its file, full name, outcome and output; its draws are its own`, () => {
    const all = recordTests(runner, FILES);
    const expected = FILES.flatMap((file) => testNames(runner, file).map((name) => key(runner, file, name)));
    assert.deepEqual([...all.keys()].sort(), expected.sort());
    for (const file of FILES) {
      for (const name of testNames(runner, file)) {
        const seen = all.get(key(runner, file, name))!;
        const failing = file === 'a' && name === 'draws plainly';
        assert.equal(seen.outcome, failing ? `fail\n${FAILURE}` : 'pass', `${file}: ${name}`);
        assert.equal(seen.output.length, 1, `${file}: ${name} printed once, inside its own start and end`);
      }
    }
    // Again, and with fewer files in another order: b and c draw the same whatever ran before them.
    for (const files of [FILES, ['c', 'b'] as const]) {
      const again = recordTests(runner, files);
      for (const file of files) {
        for (const name of testNames(runner, file)) {
          const at = key(runner, file, name);
          assert.deepEqual(again.get(at), all.get(at), `${at.replace('\u0000', ': ')} after ${files.join(', ')}`);
        }
      }
    }
  });
}
