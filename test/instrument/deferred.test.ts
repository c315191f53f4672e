import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { canDefer } from '../../instrument/deferred.js';
import { eventsOf, PRELOAD, project, REGISTER, runHooked, runPlain } from '../helpers.js';

const SKIP = !canDefer && 'families install up front where module.registerHooks is missing';

/**
 * Every way a program reaches a builtin whose family waits for it (deferred.ts): a named ESM
 * import, a dynamic import without `node:`, createRequire, a plain require, process.getBuiltinModule.
 * Then a require that fails, whose stack the program prints.
 */
const REACHES = {
  'app.mjs': `
    import { randomUUID } from 'node:crypto';
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    const imported = await import('crypto');
    console.log(randomUUID().length, imported.randomUUID().length, require('node:crypto').randomUUID().length);
    console.log(typeof process.getBuiltinModule('node:os').hostname(), typeof require('perf_hooks').performance.now());
    require('./late.cjs');
  `,
  'late.cjs': `
    try {
      require('./missing.cjs');
    } catch (error) {
      // the frames of the require that failed, up to the program's own
      const frames = error.stack.split('\\n').filter((line) => line.startsWith('    at '));
      console.log(error.code, frames.slice(0, frames.findIndex((line) => line.includes('late.cjs'))).join('|'));
    }
  `,
};

test("loaded first, in a process without ES module preloads, the hook hears of builtins through module loads: every way to one installs its family, and a failed require's stack holds no hook", {
  skip: SKIP,
}, () => {
  const dir = project(REACHES);
  // The hook tells that it came first without anything Node deprecates (`module.parent`).
  const strict = '--pending-deprecation --throw-deprecation';
  const plain = runPlain(['app.mjs'], { cwd: dir, env: { NODE_OPTIONS: strict } });
  const hooked = runHooked(['app.mjs'], { cwd: dir, env: { NODE_OPTIONS: `--require="${PRELOAD}" ${strict}` } });
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /^36 36 36\nstring number\nMODULE_NOT_FOUND .*\._resolveFilename.*\n$/);
  // Resolving through a hook would put Node's hook chain and the hook's own frames between the
  // program's require and Node's resolution (`nextStep`, `resolveWithHooks`, bundle.js).
  assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [0, plain.stdout, '']);
  const trace = hooked.traces.get('0')!;
  assert.equal(eventsOf(trace, 'crypto.randomUUID').length, 3);
  assert.equal(eventsOf(trace, 'os.hostname').length, 1);
  assert.equal(eventsOf(trace, 'performance.now').length, 1);
});

test("after a preload that imported a builtin as an ES module, the hook hears of builtins through resolutions: the program's own import of it still installs its family", {
  skip: SKIP,
}, () => {
  const dir = project({
    // require(esm): a CommonJS preload whose ES module imports node:crypto before the hook starts
    'preload.cjs': "require('./uses-crypto.mjs');\n",
    'uses-crypto.mjs': "import { randomUUID } from 'node:crypto';\nexport const id = randomUUID;\n",
    // an ES module preload that imports node:crypto, then requires the hook's CommonJS file itself
    'esm-preload.mjs': `import 'node:crypto';\nimport { createRequire } from 'node:module';\ncreateRequire(import.meta.url)(${JSON.stringify(PRELOAD)});\n`,
    'app.mjs': "import { randomUUID } from 'node:crypto';\nconsole.log(randomUUID().length);\n",
  });
  for (const preload of ['--require=./preload.cjs', '--import=./esm-preload.mjs']) {
    const options = preload.startsWith('--require') ? `${preload} --require="${PRELOAD}"` : preload;
    const hooked = runHooked(['app.mjs'], { cwd: dir, env: { NODE_OPTIONS: options } });
    assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [0, '36\n', ''], preload);
    // Node loads node:crypto for ESM once, before the hook: only the program's import of it is heard.
    assert.equal(eventsOf(hooked.traces.get('0')!, 'crypto.randomUUID').length, 1, preload);
  }
});

test("imported by the program's own ES module, after it imported a builtin, the hook hears of builtins through resolutions: the program's later import still installs its family", {
  skip: SKIP,
}, () => {
  const dir = project({
    'app.mjs': `
      import { randomUUID } from 'node:crypto';
      await import(${JSON.stringify(pathToFileURL(REGISTER).href)});
      const again = await import('node:crypto');
      console.log(again.randomUUID().length, randomUUID().length);
    `,
  });
  const hooked = runHooked(['app.mjs'], { cwd: dir, env: { NODE_OPTIONS: '' } });
  assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [0, '36 36\n', '']);
  // the program's own import of node:crypto after the hook started is heard; the one before it is not
  assert.equal(eventsOf(hooked.traces.get('0')!, 'crypto.randomUUID').length, 2);
});

test('an asynchronous module loader beside the hook (module.register from an --import, or --loader) runs, and the program is recorded', () => {
  // Node runs the preloads in the loaders' own thread too, where on Node 22 a module.registerHooks
  // hook fails every resolution, and the program's imports with it: there families install up front.
  const dir = project({
    'hooks.mjs':
      'export async function resolve(s, c, next) { return next(s, c); }\nexport async function load(u, c, next) { return next(u, c); }\n',
    'loader.mjs': "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n",
    'app.mjs':
      "import { randomUUID } from 'node:crypto';\nimport { b } from './b.mjs';\nconsole.log(randomUUID().length, b);\n",
    'b.mjs': 'export const b = 1;\n',
  });
  for (const loader of ['--import=./loader.mjs', '--loader=./hooks.mjs --no-warnings']) {
    const plain = runPlain(['app.mjs'], { cwd: dir, env: { NODE_OPTIONS: loader } });
    const hooked = runHooked(['app.mjs'], { cwd: dir, env: { NODE_OPTIONS: `--require="${PRELOAD}" ${loader}` } });
    assert.deepEqual([plain.code, plain.stdout, plain.stderr], [0, '36 1\n', ''], loader);
    assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [0, '36 1\n', ''], `${loader}: ${hooked.stderr}`);
    assert.equal(eventsOf(hooked.traces.get('0')!, 'crypto.randomUUID').length, 1, loader);
  }
});
