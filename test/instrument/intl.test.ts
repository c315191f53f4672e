import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VIRTUAL_EPOCH_MS } from '../../tracer/generator.js';
import { Control } from '../../tracer/format.js';
import { assertSameAsPlain, eventsOf, project, runHookedOk, siteOf, type HookedRun } from '../helpers.js';

/** Formats the time without a date in each way (lines 3 to 6), and a given date (line 7), to the millisecond in UTC. */
const APP = [
  "const options = { timeZone: 'UTC', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', fractionalSecondDigits: 3 };",
  'const formatter = new Intl.DateTimeFormat("en-US", options); const detached = formatter.format; const out = [];',
  'out.push(formatter.format());',
  'out.push(formatter.formatToParts().map((part) => part.value).join(""));',
  'out.push(Intl.DateTimeFormat("en-US", options).format(undefined));',
  'out.push(detached());',
  'out.push(formatter.format(new Date(0)), formatter.formatToParts(0).length > 0);',
  'console.log(JSON.stringify(out));',
].join('\n');

/** What each of the four dateless calls gives for `ms` (formatToParts' parts joined: its spaces are its own). */
const expected = (values: unknown[]) =>
  values.map((ms, i) =>
    i === 1
      ? formatter()
          .formatToParts(ms as number)
          .map((part) => part.value)
          .join('')
      : formatter().format(ms as number),
  );

const format = (ms: number) => formatter().format(ms);

const formatter = () =>
  new Intl.DateTimeFormat('en-US', {
    timeZone: 'UTC',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    fractionalSecondDigits: 3,
  });

function run(env: Record<string, string> = {}): { run: HookedRun; printed: unknown[]; values: unknown[] } {
  const dir = project({ 'app.cjs': APP });
  const hooked = runHookedOk(['app.cjs'], { cwd: dir, env: { DETDRIFT_SEED: '3', ...env } });
  assert.equal(hooked.stderr, '');
  const events = eventsOf(hooked.traces.get('0')!, 'Intl.DateTimeFormat');
  return { run: hooked, printed: JSON.parse(hooked.stdout), values: events.map((event) => event.value) };
}

test('a dateless format() or formatToParts() is a clock read: recorded at its site with the time it formatted', () => {
  const { run: hooked, printed, values } = run();
  const trace = hooked.traces.get('0')!;
  const events = eventsOf(trace, 'Intl.DateTimeFormat');
  assert.deepEqual(
    events.map((event) => [event.form, event.family, event.control, siteOf(trace, event)?.line]),
    [
      ['format', 'clock', Control.none, 3],
      ['formatToParts', 'clock', Control.none, 4],
      ['format', 'clock', Control.none, 5],
      ['format', 'clock', Control.none, 6],
    ],
  );
  assert.deepEqual(printed.slice(0, 4), expected(values), 'what the program got');
  assert.deepEqual(printed.slice(4), [format(0), true], 'a given date reads no clock');
});

test('control mode formats the virtual clock, the same in two runs; replay formats the recorded times', () => {
  const control = run({ DETDRIFT_MODE: 'control' });
  assert.deepEqual(
    control.values,
    [1, 2, 3, 4].map((tick) => VIRTUAL_EPOCH_MS + tick),
  );
  assert.deepEqual(control.printed.slice(0, 4), expected(control.values));
  assert.deepEqual(run({ DETDRIFT_MODE: 'control' }).printed, control.printed);
  const observed = run();
  const replayed = run({ DETDRIFT_MODE: 'replay', DETDRIFT_REPLAY: observed.run.traceDir });
  assert.deepEqual(replayed.printed, observed.printed);
  assert.deepEqual(
    eventsOf(replayed.run.traces.get('0')!, 'Intl.DateTimeFormat').map((event) => event.control),
    [Control.replay, Control.replay, Control.replay, Control.replay],
  );
});

test('the formatter behaves as without the hook: one bound format per formatter, its name, length, text and errors', () => {
  const dir = project({
    'app.cjs': [
      'const formatter = new Intl.DateTimeFormat("en-US", { timeZone: "UTC" });',
      'const proto = Intl.DateTimeFormat.prototype;',
      'const get = Object.getOwnPropertyDescriptor(proto, "format").get;',
      'const out = [formatter.format === formatter.format, formatter.format !== new Intl.DateTimeFormat().format];',
      'out.push(formatter.format.name, formatter.format.length, String(formatter.format), String(get), get.name);',
      'out.push(proto.formatToParts.name, proto.formatToParts.length, String(proto.formatToParts));',
      'for (const bad of [() => get.call({}), () => proto.formatToParts.call({}), () => formatter.format(NaN)])',
      '  try { bad(); } catch (error) { out.push(`${error.name}: ${error.message}`); }',
      'console.log(JSON.stringify(out));',
    ].join('\n'),
  });
  const hooked = assertSameAsPlain(['app.cjs'], { cwd: dir }, 0);
  assert.equal(JSON.parse(hooked.stdout).length, 13);
});
