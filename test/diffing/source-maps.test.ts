/**
 * Sites at their original source positions: a dependency that ships a bundle and its `.map` is
 * shown at the module it bundled, by `show` and by `check` (with the code frame of that module);
 * a map that cannot be read is said to be, with the generated position; and a TypeScript
 * program's own code frame shows its TypeScript lines, in the terminal and in the HTML report.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildSync } from 'esbuild';
import { appWith, causeOf, detdrift, lineOf, lines, reportOf } from '../cli-fixtures.js';
import { project, REPO, tempDir } from '../helpers.js';

const JITTER = lines(
  "'use strict';",
  '// 1.1.0: a little jitter, "for realism" (unrounded: two runs print the same one with odds 2^-52, not 1/1000)',
  'exports.jitter = function jitter() {',
  '  return Math.random() * 1000;',
  '};',
);
const INDEX = lines(
  "'use strict';",
  "const { jitter } = require('./jitter');",
  'exports.simulate = function simulate(seed) {',
  '  let x = seed >>> 0;',
  '  for (let i = 0; i < 10; i++) x = (Math.imul(x, 1103515245) + 12345) >>> 0;',
  '  return x + jitter();',
  '};',
);
const APP = lines(
  "'use strict';",
  "const { writeFileSync } = require('node:fs');",
  "const { simulate } = require('dep');",
  'const result = simulate(42);',
  "writeFileSync('result.txt', `${result}\\n`);",
);

/** dep 1.1.0 as its publisher builds it: src/ bundled by esbuild into dist/index.js and its map. */
function bundled(): Record<string, string> {
  const src = project({ 'src/index.js': INDEX, 'src/jitter.js': JITTER });
  const built = buildSync({
    absWorkingDir: src,
    entryPoints: ['src/index.js'],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: 'dist/index.js',
    sourcemap: true,
    write: false,
    logLevel: 'silent',
  });
  const files = Object.fromEntries(
    built.outputFiles.map((file) => [
      file.path
        .slice(src.length + 1)
        .split('\\')
        .join('/'),
      file.text,
    ]),
  );
  assert.match(files['dist/index.js']!, /\/\/# sourceMappingURL=index\.js\.map\n$/);
  return files;
}

function depProject(files: Record<string, string>): string {
  const manifest = JSON.stringify({ name: 'dep', version: '1.1.0', main: 'dist/index.js' });
  return appWith({ 'app.js': APP }, { name: 'dep', version: '1.1.0', files: { ...files, 'package.json': manifest } });
}

const check = (dir: string, ...options: string[]) =>
  detdrift(['check', '--seed', '7', '--no-confirm', ...options, '--', process.execPath, 'app.js'], dir);

test("a dependency's bundle with its .map: show and check name the bundled module's file and line, and check its code", () => {
  const files = bundled();
  const dir = depProject(files);
  const out = join(tempDir(), 'trace');
  assert.equal(detdrift(['record', '--out', out, '--', process.execPath, 'app.js'], dir).code, 0);
  const shown = detdrift(['show', '--json', out], dir);
  const draw = shown.stdout
    .split('\n')
    .map((line) => (line ? JSON.parse(line) : null))
    .find((event) => event?.api === 'Math.random');
  assert.equal(`${draw.site.file}:${draw.site.line}`, `dep@1.1.0/src/jitter.js:${lineOf(JITTER, 'Math.random')}`);
  assert.equal(draw.site.generated.file, 'dep@1.1.0/dist/index.js');
  assert.equal(draw.site.generated.line, lineOf(files['dist/index.js']!, 'Math.random'));

  const report = reportOf(check(dir, '--json'), 1);
  const { api, package: pkg, site, firstPartySite } = causeOf(report);
  assert.deepEqual(
    { api, package: pkg, site, firstPartySite },
    {
      api: 'Math.random',
      package: 'dep@1.1.0',
      site: `dep@1.1.0/src/jitter.js:${lineOf(JITTER, 'Math.random')}`,
      firstPartySite: `app.js:${lineOf(APP, 'simulate(42)')}`,
    },
  );
  // the module's lines: from its file where the package ships it, else from the map's copy
  assert.ok(
    report.cause?.source?.lines.some(([, text]) => text.includes('return Math.random() * 1000;')),
    JSON.stringify(report.cause?.source),
  );
  const withoutSources = depProject({
    'dist/index.js': files['dist/index.js']!,
    'dist/index.js.map': files['dist/index.js.map']!,
  });
  const copied = reportOf(check(withoutSources, '--json'), 1);
  assert.deepEqual(copied.cause?.source, report.cause?.source);
});

test('a map the bundle names but that cannot be read: the generated position, and why', () => {
  const files = bundled();
  const dir = depProject({ 'dist/index.js': files['dist/index.js']! });
  const report = reportOf(check(dir, '--json'), 1);
  assert.equal(
    `${report.cause?.site?.file}:${report.cause?.site?.line}`,
    `dep@1.1.0/dist/index.js:${lineOf(files['dist/index.js']!, 'Math.random')}`,
  );
  assert.equal(report.cause?.site?.sourceMapError, 'index.js.map not found');
  assert.equal(report.cause?.site?.generated, undefined);
  assert.match(
    check(dir).stdout,
    /dep@1\.1\.0\/dist\/index\.js:\d+:\d+ jitter\d* \(source map not read: index\.js\.map not found\)/,
  );
});

test("a TypeScript program's own draw: its code frame shows the TypeScript lines, in the terminal and in the HTML report", () => {
  const program = lines(
    'interface Roll {',
    '  readonly value: number;',
    '}',
    '',
    'function roll(): Roll {',
    '  const value: number = Math.random();',
    '  return { value };',
    '}',
    '',
    'console.log(roll().value);',
  );
  const dir = project({ 'package.json': { name: 'roll', version: '1.0.0' }, 'roll.ts': program });
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(join(REPO, 'node_modules', 'tsx'), join(dir, 'node_modules', 'tsx'), 'junction');
  const html = join(dir, 'drift.html');
  const run = detdrift(
    [
      'check',
      '--seed',
      '7',
      '--no-confirm',
      '--report',
      `html=${html}`,
      '--',
      process.execPath,
      '--import',
      'tsx',
      'roll.ts',
    ],
    dir,
  );
  assert.equal(run.code, 1, run.stderr);
  const line = lineOf(program, 'Math.random');
  // Where the map moved the frame from is --verbose's (and JSON's) detail.
  assert.match(run.stdout, new RegExp(`at roll\\.ts:${line}:\\d+ roll$`, 'm'));
  assert.doesNotMatch(run.stdout, /\(generated: /);
  assert.match(run.stdout, new RegExp(`> *${line} .*const value: number = Math\\.random\\(\\);`));
  assert.match(readFileSync(html, 'utf8'), /const value: number = Math\.random\(\);/);
});

test("scan: a bundled dependency's sites at the modules it bundled, and a TypeScript project's at its .ts lines", () => {
  const files = bundled();
  const dep = join(
    depProject({ 'dist/index.js': files['dist/index.js']!, 'dist/index.js.map': files['dist/index.js.map']! }),
    'node_modules',
    'dep',
  );
  const scanned = detdrift(['scan', dep], dep);
  assert.equal(scanned.code, 0, scanned.stderr);
  assert.match(
    scanned.stdout,
    new RegExp(
      `^Math\\.random  src/jitter\\.js:${lineOf(JITTER, 'Math.random')}:\\d+ \\(generated: dist/index\\.js:\\d+:\\d+\\)$`,
      'm',
    ),
  );
  const program = lines(
    'type Seed = number;',
    '',
    'export function roll(seed: Seed): number {',
    '  return seed + Math.random();',
    '}',
  );
  const ts = project({
    'package.json': { name: 'roll', version: '1.0.0' },
    'src/roll.ts': program,
    'src/roll.d.ts': 'export declare function roll(seed: number): number;\n',
  });
  const own = detdrift(['scan', ts], ts);
  assert.equal(own.code, 0, own.stderr);
  assert.equal(own.stdout, `Math.random  src/roll.ts:${lineOf(program, 'Math.random')}:22\n`);
});
