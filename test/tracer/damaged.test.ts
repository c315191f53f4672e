/**
 * Damaged traces (issue #22): real traces recorded by the real hook, then emptied, given a chunk
 * twice or a broken length field, read by the real `show` and `diff`. What could be read is
 * shown and compared, and what was wrong is said, with its code and bytes, in text and in JSON.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { chunksOf, CLI, project, readTrace, runPlain, type Run } from '../helpers.js';
import { detdrift, record, reportOf } from '../cli-fixtures.js';

/** 20,000 draws: three chunks of the hook's 8,192 events. */
const DRAWS = 'let sum = 0;\nfor (let i = 0; i < 20000; i++) sum += Math.random();\nconsole.log(sum > 0);\n';

/** A project that drew, its recorded run `base`, and that run's trace bytes and chunk offsets. */
function drawn() {
  const dir = project({ 'app.js': DRAWS });
  const base = record(dir, join(dir, 'base'), ['app.js']);
  const bytes = readFileSync(join(base, '0.ddtrace'));
  const { start, chunks } = chunksOf(bytes);
  assert.equal(chunks.length, 3, 'three chunks');
  return { dir, bytes, start, chunks, events: readTrace(join(base, '0.ddtrace')).events.length };
}

/** `detdrift show`: a line per event, more than spawnSync keeps by default for a trace of 20,000. */
function show(file: string, cwd: string): Run {
  return runPlain([CLI, 'show', file], { cwd, maxBuffer: 1 << 26 });
}

/** `bytes` as the root trace of a run directory `name` in `dir`. */
function runOf(dir: string, name: string, bytes: Uint8Array): string {
  mkdirSync(join(dir, name));
  writeFileSync(join(dir, name, '0.ddtrace'), bytes);
  return join(dir, name, '0.ddtrace');
}

/** The events of one chunk, decoded on its own (no value of an observed run depends on the chunks before it). */
function eventsIn(dir: string, bytes: Buffer, start: number, from: number, to: number): number {
  const file = join(dir, `chunk-${from}.ddtrace`);
  writeFileSync(file, Buffer.concat([bytes.subarray(0, start), bytes.subarray(from, to)]));
  return readTrace(file).events.length;
}

test('a trace file of no bytes (a run killed before its first write) is an empty, incomplete trace: show and diff of its directory say so', () => {
  const dir = project({
    'app.js':
      "require('node:child_process').spawnSync(process.execPath, [require('node:path').join(__dirname, 'child.js')]);\nconsole.log('done');\n",
    'child.js': 'Math.random();\n',
  });
  const a = record(dir, join(dir, 'a'), ['app.js']);
  record(dir, join(dir, 'b'), ['app.js']);
  truncateSync(join(a, '0.1.ddtrace'), 0);
  const said = `${join('a', '0.1.ddtrace')}: 0 events, empty (the run stopped before its first write)`;

  const shown = detdrift(['show', 'a'], dir);
  assert.equal(shown.code, 0, shown.stderr);
  assert.ok(shown.stderr.split('\n').includes(`detdrift: ${said}`), shown.stderr);

  const problem = {
    process: '0.1',
    run: 'a',
    trace: join(a, '0.1.ddtrace'),
    code: 'ERR_TRACE_EMPTY',
    bytes: { from: 0, to: 0 },
    message: 'empty (the run stopped before its first write)',
  };
  const report = reportOf(detdrift(['diff', '--no-confirm', '--json', 'a', 'b'], dir), 1);
  assert.deepEqual(report.traceProblems, [problem]);
  // It recorded nothing: every call of run B's child is missing from run A's.
  assert.deepEqual(
    report.differences.processes.map(({ process, verdict, inA }) => [process, verdict, inA]),
    [
      ['0', 'agree', true],
      ['0.1', 'diverge', false],
    ],
  );
  assert.deepEqual([report.firstDivergence?.process, report.firstDivergence?.reason], ['0.1', 'missing']);
  const text = detdrift(['diff', '--no-confirm', 'a', 'b'], dir);
  assert.equal(text.code, 1, text.stderr);
  assert.ok(text.stdout.includes(`\n  run A ${problem.trace}: ERR_TRACE_EMPTY: ${problem.message}\n`), text.stdout);
});

test('a chunk written twice is no longer read as a sound, complete trace: show and diff report ERR_TRACE_COUNT and the repeated chunk', () => {
  const { dir, bytes, start, chunks, events } = drawn();
  const twice = Buffer.concat([
    bytes.subarray(0, chunks[2]),
    bytes.subarray(chunks[1], chunks[2]),
    bytes.subarray(chunks[2]),
  ]);
  const file = runOf(dir, 'twice', twice);
  const read = events + eventsIn(dir, bytes, start, chunks[1]!, chunks[2]!);
  const count = new RegExp(
    `ERR_TRACE_COUNT: the end record at byte \\d+ counts ${events} events, ${read} were read before it; the chunk at byte ${chunks[2]} repeats the one before it \\(written twice\\)`,
  );

  const shown = show(file, dir);
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(shown.stdout.split('\n').length - 1, read);
  assert.match(
    shown.stderr,
    new RegExp(`^detdrift: ${join('twice', '0.ddtrace')}: ${read} events, complete, exit code 0; ${count.source}\\n$`),
  );

  const report = reportOf(detdrift(['diff', '--no-confirm', '--json', 'twice', 'base'], dir), 1);
  assert.deepEqual(
    report.traceProblems?.map(({ process, run, trace, code }) => [process, run, trace, code]),
    [['0', 'a', file, 'ERR_TRACE_COUNT']],
  );
  assert.match(`ERR_TRACE_COUNT: ${report.traceProblems![0]!.message}`, count);
});

test('a damaged length field mid-file is corruption, not truncation: the chunks after it are read, and the skipped bytes are told', () => {
  const { dir, bytes, start, chunks, events } = drawn();
  const damaged = Buffer.from(bytes);
  damaged.writeUInt32LE(0xffffffff, chunks[0]! + 1);
  const file = runOf(dir, 'damaged', damaged);
  const read = events - eventsIn(dir, bytes, start, chunks[0]!, chunks[1]!);
  const skipped = `ERR_TRACE_CORRUPT: bytes ${chunks[0]} to ${chunks[1]} skipped: expected a chunk of 4294967295 bytes, found ${bytes.length - chunks[0]! - 9} before the end of the file`;

  const shown = show(file, dir);
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(shown.stdout.split('\n').length - 1, read, 'the later chunks are read');
  assert.match(
    shown.stderr,
    new RegExp(
      `^detdrift: ${join('damaged', '0.ddtrace')}: ${read} events, complete, exit code 0; ${skipped}; ERR_TRACE_COUNT: the end record at byte \\d+ counts ${events} events, ${read} were read before it\\n$`,
    ),
  );

  const json = detdrift(['diff', '--no-confirm', '--json', 'damaged', 'base'], dir);
  const report = reportOf(json, 1);
  assert.deepEqual(
    report.traceProblems?.map(({ run, code, bytes: range }) => [run, code, range]),
    [
      ['a', 'ERR_TRACE_CORRUPT', { from: chunks[0], to: chunks[1] }],
      ['a', 'ERR_TRACE_COUNT', report.traceProblems![1]!.bytes],
    ],
  );
  const text = detdrift(['diff', '--no-confirm', 'damaged', 'base'], dir);
  assert.equal(text.code, 1, text.stderr);
  assert.ok(text.stdout.includes(`\n  run A ${file}: ${skipped}\n`), text.stdout);

  // A short last chunk at the end of the file is what a run killed mid-write leaves: truncation still.
  const torn = runOf(dir, 'torn', bytes.subarray(0, chunks[2]! + 20));
  const cut = show(torn, dir);
  assert.equal(cut.code, 0, cut.stderr);
  assert.equal(
    cut.stderr,
    `detdrift: ${join('torn', '0.ddtrace')}: ${events - eventsIn(dir, bytes, start, chunks[2]!, bytes.length)} events, truncated at byte ${chunks[2]} (the run stopped mid-write)\n`,
  );
});
