/**
 * The CLI's bundle (scripts/bundle-cli.mjs) keeps the lazy loading of its sources: what a start
 * loads is its chunk and the chunks that chunk imports statically; a dynamic import (a command's
 * options.ts, its run.ts, the help) loads only when it runs. Read from the built chunks and their
 * source maps, which name the files each chunk holds.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import module from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, project, runPlain, tempDir } from '../helpers.js';

const BUNDLE = join(CLI, '..');

interface Chunk {
  /** the files it holds, from the repository root (node_modules/... for a dependency) */
  readonly sources: readonly string[];
  /** the chunks it imports statically, which load with it */
  readonly imports: readonly string[];
}

const chunks = new Map<string, Chunk>(
  readdirSync(BUNDLE)
    .filter((name) => name.endsWith('.js'))
    .map((name) => {
      const code = readFileSync(join(BUNDLE, name), 'utf8');
      const map = JSON.parse(readFileSync(join(BUNDLE, `${name}.map`), 'utf8')) as { sources: string[] };
      const imports = [...code.matchAll(/(?:\bfrom|^import)\s*"\.\/([^"]+\.js)"/gm)].map((match) => match[1]!);
      return [name, { sources: map.sources.map((source) => source.replace(/^(\.\.\/)+/, '')), imports }];
    }),
);

/** The files a start loads when it evaluates `name`: its chunk and every chunk that chunk imports statically. */
function loadedWith(name: string): Set<string> {
  const seen = new Set<string>();
  const visit = (chunk: string) => {
    if (seen.has(chunk)) return;
    seen.add(chunk);
    for (const next of chunks.get(chunk)!.imports) visit(next);
  };
  visit(name);
  return new Set([...seen].flatMap((chunk) => chunks.get(chunk)!.sources));
}

/** The chunk that holds a source file (a dynamic import's target is the one chunk holding it). */
function chunkOf(source: string): string {
  const found = [...chunks].filter(([, chunk]) => chunk.sources.includes(source)).map(([name]) => name);
  assert.equal(found.length, 1, `${source} is in ${found.length} chunks`);
  return found[0]!;
}

const COMMAND_CODE = /^cli\/(?!shared\/)[^/]+\//;

test('the bin is the bundle, and its start (--version) loads no command, no command table and no execa, pino or semver', () => {
  const manifest = JSON.parse(readFileSync(join(BUNDLE, '..', '..', '..', 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  assert.equal(join(BUNDLE, '..', '..', '..', manifest.bin.detdrift!), CLI);
  // the entry turns the compile cache on, then imports main.ts, the start's one dynamic import
  const loaded = [...loadedWith('main.js'), ...loadedWith(chunkOf('cli/main.ts'))];
  assert.ok(loaded.includes('cli/entry.ts'), loaded.join(' '));
  assert.deepEqual(
    loaded.filter(
      (source) => COMMAND_CODE.test(source) || /commands\.ts$|help\.ts$|\/(execa|pino|semver)\//.test(source),
    ),
    [],
  );
});

test('--help loads the command table and the help, and no command', () => {
  for (const source of ['cli/commands.ts', 'cli/help.ts']) {
    const loaded = [...loadedWith(chunkOf(source))];
    assert.deepEqual(
      loaded.filter((source) => COMMAND_CODE.test(source)),
      [],
    );
  }
});

test("a command's options load without its code, and its code without another command's", () => {
  for (const command of ['record', 'check', 'diff', 'bump', 'scan']) {
    const options = [...loadedWith(chunkOf(`cli/${command}/options.ts`))];
    assert.deepEqual(
      options.filter((source) => COMMAND_CODE.test(source) && source !== `cli/${command}/options.ts`),
      [],
      command,
    );
    const run = [...loadedWith(chunkOf(`cli/${command}/run.ts`))];
    assert.deepEqual(
      run.filter((source) => COMMAND_CODE.test(source) && !source.startsWith(`cli/${command}/`)),
      [],
      command,
    );
  }
});

test('the bundle reads its version from the package it sits in', () => {
  const version = runPlain([CLI, '--version'], { cwd: project({}) });
  assert.equal(version.code, 0, version.stderr);
  const manifest = JSON.parse(readFileSync(join(BUNDLE, '..', '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  assert.equal(version.stdout, `${manifest.version}\n`);
});

test('`report --help` names the formats without loading a renderer', () => {
  const loaded = [...loadedWith(chunkOf('cli/report/options.ts'))];
  assert.ok(loaded.includes('report/formats.ts'), loaded.join(' '));
  assert.deepEqual(
    loaded.filter((source) => /^report\/(render|html|sarif|terminal|summary|github|comment)\.ts$/.test(source)),
    [],
  );
});

test("the bin keeps Node's compile cache of its chunks in the code-cache folder, and the command it records does not inherit it", {
  skip: !('enableCompileCache' in module) && 'Node 20 has no compile cache',
}, () => {
  const cache = tempDir('detdrift-code-cache-');
  const dir = project({ 'app.js': "console.log(process.env.NODE_COMPILE_CACHE ?? 'no compile cache');\n" });
  const env = { DETDRIFT_CODE_CACHE: cache };
  const recorded = runPlain([CLI, 'record', '--out', tempDir('detdrift-out-'), '--', process.execPath, 'app.js'], {
    cwd: dir,
    env,
  });
  assert.equal(recorded.code, 0, recorded.stderr);
  assert.equal(recorded.stdout, 'no compile cache\n');
  assert.ok(existsSync(join(cache, 'cli')) && readdirSync(join(cache, 'cli')).length > 0, readdirSync(cache).join(' '));

  const off = tempDir('detdrift-code-cache-');
  const version = runPlain([CLI, '--version'], { cwd: dir, env: { DETDRIFT_CODE_CACHE: 'off', TMPDIR: off } });
  assert.equal(version.code, 0, version.stderr);
  assert.deepEqual(readdirSync(off), [], 'off: no cache anywhere');
});
