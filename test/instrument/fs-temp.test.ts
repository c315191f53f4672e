import assert from 'node:assert/strict';
import fs, { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Control } from '../../tracer/format.js';
import { eventsOf, project, runHookedOk, siteOf, tempDir, type HookedRun } from '../helpers.js';

/** Node 24's disposable forms, where this Node has them. */
const DISPOSABLE = typeof (fs as { mkdtempDisposableSync?: unknown }).mkdtempDisposableSync === 'function';

/**
 * Makes a temporary directory in every form under the directory given as argv[2], and prints the
 * names it got, one per line, in the order of the calls (lines 7 to 12). `--remove` removes each.
 */
const APP = [
  "import fs from 'node:fs';",
  "import { mkdtemp } from 'node:fs/promises';",
  "import path from 'node:path';",
  'const base = path.join(process.argv[2], "run-");',
  'const got = [];',
  'const disposable = typeof fs.mkdtempDisposableSync === "function";',
  'got.push(fs.mkdtempSync(base));',
  'got.push(await new Promise((resolve, reject) => fs.mkdtemp(base, (error, dir) => (error ? reject(error) : resolve(dir)))));',
  'got.push(await mkdtemp(base));',
  'got.push(fs.mkdtempSync(Buffer.from(base), "buffer").toString());',
  'if (disposable) { const made = fs.mkdtempDisposableSync(base); got.push(made.path); made.remove(); }',
  'if (disposable) { const made = await fs.promises.mkdtempDisposable(base); got.push(made.path); await made.remove(); }',
  'for (const dir of got) if (process.argv[3] === "--remove") fs.rmSync(dir, { recursive: true, force: true });',
  'console.log(got.map((dir) => path.basename(dir)).join("\\n"));',
].join('\n');

const FORMS = ['sync', 'callback', 'promise', 'sync', ...(DISPOSABLE ? ['disposable', 'disposable-promise'] : [])];
const LINES = [7, 8, 9, 10, ...(DISPOSABLE ? [11, 12] : [])];

function runApp(mode: string, base: string, env: Record<string, string> = {}, remove = true): HookedRun {
  const dir = project({ 'app.mjs': APP });
  const args = ['app.mjs', base, ...(remove ? ['--remove'] : [])];
  return runHookedOk(args, { cwd: dir, env: { DETDRIFT_MODE: mode, DETDRIFT_SEED: '5', ...env } });
}

/** The six characters each directory got, as the program printed them and as the trace holds them. */
function names(run: HookedRun): { printed: string[]; recorded: unknown[]; control: number[] } {
  assert.equal(run.stderr, '');
  const printed = run.stdout.trim().split('\n');
  const events = eventsOf(run.traces.get('0')!, 'fs.mkdtemp');
  return {
    printed: printed.map((name) => name.slice('run-'.length)),
    recorded: events.map((event) => event.value),
    control: events.map((event) => event.control),
  };
}

test('fs.mkdtemp in every form records the six characters the program got, at the call site', () => {
  const base = tempDir();
  const run = runApp('observe', base);
  const trace = run.traces.get('0')!;
  const events = eventsOf(trace, 'fs.mkdtemp');
  const { printed, recorded, control } = names(run);
  assert.deepEqual(
    events.map((event) => [event.form, event.family, siteOf(trace, event)?.file, siteOf(trace, event)?.line]),
    FORMS.map((form, i) => [form, 'random', 'app.mjs', LINES[i]]),
  );
  assert.deepEqual(recorded, printed, 'the name the program got, not another');
  assert.equal(new Set(printed).size, printed.length);
  assert.deepEqual(
    control,
    printed.map(() => Control.none),
  );
  assert.deepEqual(readdirSync(base), [], 'each directory Node made is the one the program removed');
});

test('control mode: every form gets a name drawn from the seed, the same in two runs, made 0o700; a name taken is drawn again', () => {
  const base = tempDir();
  const first = names(runApp('control', base));
  const second = names(runApp('control', base));
  assert.deepEqual(second.printed, first.printed);
  assert.deepEqual(first.recorded, first.printed);
  assert.deepEqual(
    first.control,
    first.printed.map(() => Control.detdrift),
  );
  for (const name of first.printed) assert.match(name, /^[A-Za-z0-9]{6}$/);
  assert.deepEqual(readdirSync(base), [], "the substitutes are the program's directories, and Node's are gone");
  // Kept this time: the next run's first draw is taken, so it draws again, and still as the seed says.
  const kept = names(runApp('control', base, {}, false));
  assert.deepEqual(kept.printed, first.printed);
  const left = readdirSync(base).sort();
  assert.equal(left.length, first.printed.length - (DISPOSABLE ? 2 : 0), 'no directory of Node left beside them');
  for (const name of left) assert.equal(statSync(join(base, name)).mode & 0o777, 0o700);
  const retried = names(runApp('control', base));
  for (const name of retried.printed) assert.ok(!left.includes(`run-${name}`), `${name} was taken`);
  assert.deepEqual(
    retried.control,
    FORMS.map((form) => (form.startsWith('disposable') ? Control.detdrift : Control.none)),
    "a name drawn again was chosen by what is on disk; the calls after still get the seed's",
  );
  assert.deepEqual(names(runApp('control', base)).printed, retried.printed, 'the retries follow from the seed too');
  rmSync(base, { recursive: true, force: true });
});

test('replay gives the program the recorded names; perturb mode draws them as control mode does', () => {
  const base = tempDir();
  const recorded = runApp('observe', base);
  const observed = names(recorded);
  const replayed = names(runApp('replay', base, { DETDRIFT_REPLAY: recorded.traceDir }));
  assert.deepEqual(replayed.printed, observed.printed);
  assert.deepEqual(
    replayed.control,
    observed.printed.map(() => Control.replay),
  );
  const controlled = names(runApp('control', base));
  const perturbed = names(runApp('perturb', base, { DETDRIFT_PERTURB: 'tmpdir' }));
  assert.deepEqual(perturbed.printed, controlled.printed);
  assert.deepEqual(perturbed.control, controlled.control);
});

test("control mode keeps Node's errors and its result's shape: a missing parent, a Buffer name", () => {
  const dir = project({
    'app.cjs': [
      "const fs = require('fs');",
      'const out = [];',
      'try { fs.mkdtempSync("/nonexistent-detdrift/x-"); } catch (error) { out.push(error.message); }',
      'fs.mkdtemp("/nonexistent-detdrift/x-", (error) => { out.push(error.message);',
      '  const made = fs.mkdtempSync(Buffer.from(require("os").tmpdir() + "/dd-"), { encoding: "buffer" });',
      '  out.push(Buffer.isBuffer(made)); fs.rmdirSync(made); console.log(JSON.stringify(out)); });',
    ].join('\n'),
  });
  const run = runHookedOk(['app.cjs'], { cwd: dir, env: { DETDRIFT_MODE: 'control', DETDRIFT_SEED: '1' } });
  // Node's own messages: the callback form's names the name libuv tried, drawn afresh
  const [sync, callback, buffer] = JSON.parse(run.stdout);
  assert.deepEqual(
    [sync, buffer],
    ["ENOENT: no such file or directory, mkdtemp '/nonexistent-detdrift/x-XXXXXX'", true],
  );
  assert.match(callback, /^ENOENT: no such file or directory, mkdtemp '\/nonexistent-detdrift\/x-[A-Za-z0-9]{6}'$/);
  const events = eventsOf(run.traces.get('0')!, 'fs.mkdtemp');
  assert.deepEqual(
    events.map((event) => event.control),
    [Control.detdrift],
    'a failed call records nothing',
  );
});
