import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { test } from 'node:test';
import { Controller } from '../../instrument/control.js';
import { Api } from '../../tracer/apis.js';
import { Derivation } from '../../tracer/derive.js';
import { Control, Tag } from '../../tracer/format.js';
import { Stream } from '../../tracer/generator.js';
import { TraceReader, type ChunkStart } from '../../tracer/reader.js';
import { project, runHooked } from '../helpers.js';
import { header } from '../synthetic.js';

test('the generator draws the same words as ever: a reader draws again the values older traces left out', () => {
  // Pinned since trace format 3 (the seed's digest became MurmurHash3); a change needs a new version.
  const stream = new Stream('42', 'Math.random');
  assert.deepEqual([stream.next(), stream.next(), stream.double()], [3675960406, 389120012, 0.9982519674321553]);
});

test('the derivation draws what control mode draws: Math.random from its stream, every clock from one virtual clock', () => {
  const controller = new Controller('s');
  const derivation = new Derivation(header({ seed: 's' }));
  const random = controller.stream('Math.random');
  const expected: Array<[number, number, number]> = [
    [Api.mathRandom, Tag.f64, random.double()],
    [Api.dateNow, Tag.f64, Controller.wallMs(controller.tick())],
    [Api.dateConstruct, Tag.f64, Controller.wallMs(controller.tick())],
    [Api.performanceNow, Tag.f64, controller.tick() / 1e6],
    [Api.performanceTimeOrigin, Tag.f64, Controller.wallMs(0)],
    [Api.uptime, Tag.f64, controller.tick() / 1e9],
    [Api.hrtime, Tag.hrtime, controller.tick()],
    [Api.hrtimeBigint, Tag.bigint, controller.tick()],
    [Api.mathRandom, Tag.f64, random.double()],
  ];
  assert.deepEqual(
    expected.map(([api, tag]) => derivation.next(api, tag)),
    expected.map(([, , value]) => value),
  );
});

test("what does not follow from the seed is NaN: an api control mode does not draw, a value under another tag, Date()'s string", () => {
  const derivation = new Derivation(header({ seed: 's' }));
  assert.ok(Number.isNaN(derivation.next(Api.setTimeout, Tag.uint)));
  assert.ok(Number.isNaN(derivation.next(Api.randomUUID, Tag.digest)));
  assert.ok(
    Number.isNaN(derivation.next(Api.mathRandom, Tag.uint)),
    'a Math.random value under another tag still moves the stream',
  );
  assert.ok(Number.isNaN(derivation.next(Api.dateCall, Tag.string)), 'Date() moves the clock');
  const controller = new Controller('s');
  const random = controller.stream('Math.random');
  random.double();
  controller.tick();
  assert.equal(derivation.next(Api.mathRandom, Tag.f64), random.double());
  assert.equal(derivation.next(Api.dateNow, Tag.f64), Controller.wallMs(controller.tick()));
});

const APP = `
const seen = [];
for (let i = 0; i < 2000; i++) seen.push(Math.random());
seen.push(Date.now(), new Date().getTime(), performance.now(), process.uptime(), performance.timeOrigin);
const [s, ns] = process.hrtime();
seen.push(s * 1e9 + ns, Number(process.hrtime.bigint()));
Date();
seen.push(Date.now());
const real = Math.random;
Math.random = () => 0.25; // the program's own seeded harness: its draws are not recorded
if (Math.random() !== 0.25) throw new Error('the harness was not called');
Math.random = real;
seen.push(Math.random());
console.log(JSON.stringify(seen));
`;

test("a real control-mode run: the trace leaves the seed's values out and the reader gives back every value the program got from a source", () => {
  const dir = project({ 'app.js': APP });
  const run = runHooked(['app.js'], { cwd: dir, env: { DETDRIFT_MODE: 'control', DETDRIFT_SEED: '9' } });
  assert.equal(run.stderr, '');
  const seen = JSON.parse(run.stdout) as number[];
  const trace = run.traces.get('0')!;
  const sources = new Set([
    Api.mathRandom,
    Api.dateNow,
    Api.dateConstruct,
    Api.performanceNow,
    Api.uptime,
    Api.performanceTimeOrigin,
    Api.hrtime,
    Api.hrtimeBigint,
  ]);
  const values = trace.events
    .filter((event) => sources.has(event.apiId))
    .map((event) => (Array.isArray(event.value) ? event.value[0]! * 1e9 + event.value[1]! : Number(event.value)));
  assert.deepEqual(values, seen);
  assert.equal(trace.events.filter((event) => event.control === Control.program).length, 0);
  // 2000 draws of 8 bytes each would be 16 kB; left out, they cost a few bytes of run records.
  const size = statSync(trace.file).size;
  assert.ok(size < 8000, `${size} bytes for ${trace.events.length} events`);
});

test('a chunk of a control-mode trace read again on its own gives the values the whole pass gave', () => {
  // Enough draws for several chunks, each starting with the generators part-way through the seed's stream.
  const dir = project({
    'app.js': 'let sum = 0;\nfor (let i = 0; i < 30000; i++) sum += Math.random() + Date.now();\nconsole.log(sum);\n',
  });
  const run = runHooked(['app.js'], { cwd: dir, env: { DETDRIFT_MODE: 'control', DETDRIFT_SEED: '3' } });
  assert.equal(run.stderr, '');
  const trace = run.traces.get('0')!;
  const reader = TraceReader.open(trace.file);
  try {
    const starts: ChunkStart[] = [];
    reader.scan({ chunk: (start) => starts.push(start), event: () => {} });
    assert.ok(starts.length > 3, `${starts.length} chunks`);
    const again = [...starts]
      .reverse()
      .map((start) => reader.eventsAt(start))
      .reverse()
      .flat();
    assert.deepEqual(again, trace.events);
  } finally {
    reader.close();
  }
});
