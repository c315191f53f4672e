/**
 * Lockfile reading, the part of `detdrift bump` that parses: each format's fixture lockfile (the
 * tests' generator, a small tree) and a large generated one (5,000 packages with nested
 * duplicates), parsed by this build and, with `--baseline DIST`, by another build's
 * `diffing/lockfile` (a checkout of an earlier commit, built), in this one run. First what a bump
 * pays, since it reads each lockfile once: a fresh process that loads the reader and its parser
 * and parses one file. Then the warm medians (throughput once the JIT has compiled the parser),
 * and whether both builds read the same packages.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import * as current from '../diffing/lockfile/index.js';
import {
  FILE_NAMES,
  FORMATS,
  lockfileText,
  manifest,
  nm,
  SAMPLE,
  type Install,
  type Tree,
} from '../test/lockfile-fixtures.js';
import { REPO, median, table } from './common.js';

type Reader = Pick<typeof current, 'parseLockfile'>;

/** Parses of each file per implementation: a parse is milliseconds, so medians need several. */
const ROUNDS = 9;
/** Parses before the measured ones, for the JIT: this many at least, and for this long. */
const WARM_UP = 5;
const WARM_UP_MS = 500;
/** Child processes per cold measurement. */
const COLD_RUNS = 5;

/** `count` packages in a chain with cross edges, every 50th with its own nested copy of `leaf` 2.x. */
function large(count: number): Tree {
  const installs: Record<string, Install> = { [nm('leaf')]: { version: '1.0.0' } };
  for (let i = 0; i < count; i++) {
    const dependencies: Record<string, string> = { leaf: i % 50 === 0 ? '^2.0.0' : '^1.0.0' };
    if (i + 1 < count) dependencies[`p${i + 1}`] = '^1.0.0';
    if (i + 7 < count) dependencies[`p${i + 7}`] = '^1.0.0';
    installs[nm(`p${i}`)] = { version: `1.${i % 10}.0`, dependencies };
    if (i % 50 === 0) installs[nm(`p${i}`, 'leaf')] = { version: '2.0.0' };
  }
  return { dependencies: { p0: '^1.0.0' }, installs };
}

export async function benchLockfile(baseline: string | undefined): Promise<void> {
  const old: Reader | null = baseline
    ? ((await import(pathToFileURL(join(baseline, 'diffing', 'lockfile', 'index.js')).href)) as Reader)
    : null;
  const inputs = [
    ['fixture', SAMPLE],
    ['5,000 packages', large(5_000)],
  ] as const;
  const files = mkdtempSync(join(tmpdir(), 'detdrift-bench-lockfile-'));
  const cold: string[][] = [];
  const warm: string[][] = [];
  try {
    for (const [label, tree] of inputs) {
      for (const format of FORMATS) {
        const text = lockfileText(tree, format);
        const name = `${format}, ${label}`;
        const file = join(files, `${cold.length}.lock`);
        writeFileSync(file, text);
        const args = [file, FILE_NAMES[format], JSON.stringify(manifest(tree))] as const;
        cold.push(
          row(name, text, coldParse(join(REPO, 'dist'), ...args), baseline ? coldParse(baseline, ...args) : null),
        );
        const parse = (reader: Reader) => () =>
          reader.parseLockfile(text, FILE_NAMES[format], { manifest: manifest(tree) });
        warm.push([
          ...row(name, text, timed(parse(current)), old ? timed(parse(old)) : null),
          old ? String(packagesOf(parse(current)()) === packagesOf(parse(old)())) : '',
        ]);
      }
    }
  } finally {
    rmSync(files, { recursive: true, force: true });
  }
  const where = baseline ? `; baseline ${baseline}` : '';
  console.log(
    `\nlockfile, as a bump reads it: a fresh process loads the reader and its parser, then parses once (median of ${COLD_RUNS} processes${where})\n`,
  );
  console.log(table(['lockfile', 'MB', 'ms', 'baseline ms', 'ratio'], cold));
  console.log(
    `\nlockfile, warm: median of ${ROUNDS} parses, after at least ${WARM_UP} parses and ${WARM_UP_MS} ms of them (the JIT has compiled the parser${where})\n`,
  );
  console.log(table(['lockfile', 'MB', 'ms', 'baseline ms', 'ratio', 'same packages'], warm));
}

function row(name: string, text: string, ours: number, theirs: number | null): string[] {
  return [
    name,
    (text.length / 1e6).toFixed(2),
    ms(ours),
    theirs === null ? '' : ms(theirs),
    theirs === null ? '' : `${(ours / theirs).toFixed(2)}×`,
  ];
}

function timed(run: () => unknown): number {
  for (let i = 0, start = performance.now(); i < WARM_UP || performance.now() - start < WARM_UP_MS; i++) run();
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
  return median(times);
}

function packagesOf(lock: current.Lockfile): string {
  return JSON.stringify(
    [...lock.packages.values()].map((pkg) => [
      pkg.key,
      pkg.name,
      pkg.version,
      pkg.direct,
      pkg.dev,
      pkg.optional,
      pkg.path,
    ]),
  );
}

/** Milliseconds from loading `dist`'s lockfile reader to the end of its first parse of `file`, in a fresh process. */
function coldParse(dist: string, file: string, name: string, manifestJson: string): number {
  const reader = pathToFileURL(join(dist, 'diffing', 'lockfile', 'index.js')).href;
  const script = [
    "const text = (await import('node:fs')).readFileSync(process.argv[1], 'utf8');",
    'const start = performance.now();',
    `const { parseLockfile } = await import(${JSON.stringify(reader)});`,
    'parseLockfile(text, process.argv[2], { manifest: JSON.parse(process.argv[3]) });',
    'console.log(performance.now() - start);',
  ].join('\n');
  const times: number[] = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script, file, name, manifestJson], {
      encoding: 'utf8',
    });
    if (child.status !== 0) throw new Error(`the cold parse of ${name} failed: ${child.stderr}`);
    times.push(Number(child.stdout.trim()));
  }
  return median(times);
}

const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1);
