/**
 * Transparency to the letter (issue #28): every built-in the hook patches (clock, random, crypto,
 * timers, fs, process, and the `vm`, `child_process` and `worker_threads` entry points it watches)
 * reflects exactly as without it, in the main realm, in a `vm` context and in a worker thread, in
 * observe and control mode. The expectation of each row of the table (test/transparency-probe.ts)
 * is what the same probe prints without the hook. What still differs is listed in APART with the
 * reason; a difference that goes away fails the test too, so the list stays true.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PRELOAD, project, REPO, runHooked, runPlain, type Run } from '../helpers.js';
import { BEHAVIOURS, CONTEXT_ROWS, FAKE_TIMERS, MAIN_ROWS, probe } from '../transparency-probe.js';

type Realm = 'main' | 'context' | 'worker';
type Described = Record<Realm, Record<string, { props?: Record<string, unknown> }>>;

/** What the hook still shows, by realm and row (own keys it adds, or a whole row), and why. */
// V8 quotes a non-constructor's source in this message, not through Function.prototype.toString: a
// Proxy would quote the native, but costs the hot sources 20 ns a call and V8's inlining (patch.ts imitate).
const QUOTED = { 'Reflect.construct(Date.now, [])': 'V8 quotes the source of the wrapper (patch.ts imitate)' };
type Apart = Record<string, Record<string, string> | string>;
const APART: Record<Realm, Apart> = { main: QUOTED, context: QUOTED, worker: QUOTED };

function described(run: Run): Described {
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, '');
  return JSON.parse(run.stdout) as Described;
}

/** Takes what APART lists off both sides, after checking that it does differ. */
function withoutApart(realm: Realm, row: string, plain: Described[Realm], hooked: Described[Realm]): void {
  const apart = APART[realm][row];
  if (typeof apart === 'string') {
    assert.notDeepEqual(hooked[row], plain[row], `${realm} ${row} is listed apart but shows no difference`);
    plain[row] = hooked[row] = {};
    return;
  }
  for (const key of Object.keys(apart ?? {})) {
    assert.notDeepEqual(
      hooked[row]!.props?.[key],
      plain[row]!.props?.[key],
      `${realm} ${row}.${key} is listed apart but shows no difference`,
    );
    delete plain[row]!.props?.[key];
    delete hooked[row]!.props?.[key];
  }
}

/** Every row that differs, with the first difference spelled out. */
function assertSame(plain: Described, hooked: Described): void {
  const differing: string[] = [];
  let first: [unknown, unknown, string] | null = null;
  for (const realm of ['main', 'context', 'worker'] as const) {
    const rows = [...(realm === 'context' ? CONTEXT_ROWS : MAIN_ROWS).map(([label]) => label), ...BEHAVIOURS];
    assert.deepEqual(Object.keys(plain[realm]), rows, `${realm}: the probe described every row`);
    for (const row of Object.keys(plain[realm])) {
      withoutApart(realm, row, plain[realm], hooked[realm]);
      try {
        assert.deepEqual(hooked[realm][row], plain[realm][row]);
      } catch {
        differing.push(`${realm}: ${row.replace(/\s+/g, ' ')}`);
        first ??= [hooked[realm][row], plain[realm][row], `${realm}: ${row}`];
      }
    }
  }
  if (first)
    assert.deepEqual(first[0], first[1], `${first[2]} (${differing.length} rows differ: ${differing.join('; ')})`);
}

/** Runs the probe without and with the hook, in `dir`; the same rows must come out. */
function assertProbeSame(dir: string, env: Record<string, string> = {}): void {
  // node:test's mock timers warn that they are experimental on Node 20: not what is compared here
  const args = ['--no-warnings', 'probe.cjs'];
  assertSame(described(runPlain(args, { cwd: dir })), described(runHooked(args, { cwd: dir, env })));
}

for (const mode of ['observe', 'control'] as const) {
  test(`every patched built-in reflects as without the hook, row by row, in the main realm, a vm context and a worker (${mode})`, () => {
    assertProbeSame(project({ 'probe.cjs': probe() }), { DETDRIFT_MODE: mode, DETDRIFT_SEED: '1' });
  });
}

test("fake timers come and go (sinon's every fake, node:test's mock timers and mock.method), then every row reflects as without the hook", () => {
  const dir = project({ 'probe.cjs': probe(FAKE_TIMERS) });
  mkdirSync(join(dir, 'node_modules', '@sinonjs'), { recursive: true });
  symlinkSync(
    join(REPO, 'node_modules', '@sinonjs', 'fake-timers'),
    join(dir, 'node_modules', '@sinonjs', 'fake-timers'),
    'junction',
  );
  assertProbeSame(dir);
});

test("the program's RegExp statics are its own: at its start, after Node's fs use through the hook, after a stack names code with an inline map", () => {
  // Any match the hook ran would set RegExp.lastMatch, $1, input and the rest for the program.
  const statics =
    'JSON.stringify([RegExp.lastMatch, RegExp.$1, RegExp.leftContext, RegExp.rightContext, RegExp.input])';
  const dir = project({
    'package-lock.json': '{"lockfileVersion":3}\n', // a start takes its digest from the memo: the second one here
    'app.cjs': `
      const fs = require('node:fs');
      const path = require('node:path');
      console.log(${statics});
      /(b)c/.exec('abcd');
      const tree = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'detdrift-statics-'));
      fs.mkdirSync(path.join(tree, 'a'));
      fs.writeFileSync(path.join(tree, 'a', 'f'), 'x');
      fs.rmSync(tree, { recursive: true }); // Node's own listing, through the wrapped readdir
      const map = Buffer.from('{"version":3,"sources":["gen.ts"],"mappings":"AAAA"}').toString('base64');
      require('node:vm').runInThisContext(\`Math.random();\\n//# sourceMappingURL=data:application/json;base64,\${map}\\n\`, { filename: 'gen.js' });
      console.log(${statics});
    `,
  });
  const plain = runPlain(['app.cjs'], { cwd: dir });
  assert.deepEqual([plain.code, plain.stderr], [0, '']);
  assert.match(plain.stdout, /^\[.*\]\n\["bc","b","a","d","abcd"\]\n$/);
  for (const env of [{}, {}, { NODE_OPTIONS: `--require="${PRELOAD}"` }]) {
    const hooked = runHooked(['app.cjs'], { cwd: dir, env });
    assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [0, plain.stdout, ''], JSON.stringify(env));
  }
});

test('an error made while a CommonJS module is evaluated has the stack it has without the hook: no frame of the hook in Module#_compile', () => {
  const dir = project({
    'lib.cjs': "module.exports = new Error('made').stack;\n",
    'main.cjs': "console.log(require('./lib.cjs'));\nthrow new Error('boom');\n",
  });
  const plain = runPlain(['main.cjs'], { cwd: dir });
  // as the CLI loads the hook: an --import would run the entry point through the ESM loader, hook or not
  const hooked = runHooked(['main.cjs'], { cwd: dir, env: { NODE_OPTIONS: `--require="${PRELOAD}"` } });
  assert.equal(plain.code, 1);
  assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [plain.code, plain.stdout, plain.stderr]);
  assert.equal(hooked.traces.get('0')?.ending.exitCode, 1, 'recorded');
  assert.doesNotMatch(hooked.stderr + hooked.stdout, /bundle\.js|Object\.apply/);
});
