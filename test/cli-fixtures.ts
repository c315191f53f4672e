/**
 * What the end-to-end tests of `check`, `diff` and `demo` share: the real CLI in a child process,
 * fixture projects with one dependency at a chosen version, and the JSON report they print.
 */
import assert from 'node:assert/strict';
import { opendirSync } from 'node:fs';
import type { Report } from '../report/types.js';
import { CLI, project, runPlain, type Run } from './helpers.js';

/** Runs the built `detdrift` bin in `cwd`, on the node running the tests. */
export function detdrift(args: readonly string[], cwd: string): Run {
  return runPlain([CLI, ...args], { cwd });
}

/** The `--json` report a comparing command printed, after checking it exited with `status`. */
export function reportOf(run: Run, status: number): Report {
  assert.equal(run.code, status, `exit status; stderr: ${run.stderr}`);
  return JSON.parse(run.stdout) as Report;
}

export interface Dependency {
  readonly name: string;
  readonly version: string;
  /** the package's files besides package.json, by path inside it */
  readonly files: Readonly<Record<string, string>>;
}

/**
 * A project: `app` files at the root and `dependency` written into node_modules, with a
 * package-lock.json naming its version, so base and head of a bump have different lockfiles.
 */
export function appWith(app: Readonly<Record<string, string>>, dependency?: Dependency): string {
  const deps = dependency ? { [dependency.name]: dependency.version } : {};
  const files: Record<string, string | object> = {
    'package.json': { name: 'fixture-app', version: '1.0.0', private: true, dependencies: deps },
    'package-lock.json': {
      name: 'fixture-app',
      lockfileVersion: 3,
      packages: {
        '': { name: 'fixture-app', version: '1.0.0', dependencies: deps },
        ...(dependency ? { [`node_modules/${dependency.name}`]: { version: dependency.version } } : {}),
      },
    },
    ...app,
  };
  if (dependency) {
    const root = `node_modules/${dependency.name}`;
    files[`${root}/package.json`] = { name: dependency.name, version: dependency.version, main: 'index.js' };
    for (const [path, text] of Object.entries(dependency.files)) files[`${root}/${path}`] = text;
  }
  return project(files);
}

/** `detdrift record` of `node ...args` in `dir` into `out` (absolute), which must succeed. */
export function record(
  dir: string,
  out: string,
  args: readonly string[],
  mode: 'observe' | 'control' = 'observe',
): string {
  const run = detdrift(['record', '--mode', mode, '--seed', '1', '--out', out, '--', process.execPath, ...args], dir);
  assert.equal(run.code, 0, `record ${args.join(' ')}: ${run.stderr}`);
  return out;
}

/** The 1-based line of the first line of `source` that contains `needle`: fixtures name their own lines. */
export function lineOf(source: string, needle: string): number {
  const index = source.split('\n').findIndex((line) => line.includes(needle));
  assert.notEqual(index, -1, `fixture has no line with ${JSON.stringify(needle)}`);
  return index + 1;
}

/** A fixture source from its lines. */
export function lines(...text: string[]): string {
  return text.join('\n') + '\n';
}

/** The parts of a report every story pins: the verdict, why the runs part, and the blamed call. */
export function causeOf(report: Report) {
  const at = (frame: { file: string; line: number } | null | undefined) =>
    frame ? `${frame.file}:${frame.line}` : null;
  return {
    verdict: report.verdict,
    reason: report.firstDivergence?.reason ?? null,
    kind: report.cause?.kind ?? null,
    api: report.cause?.api ?? null,
    package: report.cause?.package ?? null,
    site: at(report.cause?.site),
    firstPartySite: at(report.cause?.firstPartySite),
    confidence: report.cause?.confidence ?? null,
  };
}

/** A directory's entries in the order opendir gives them here (raw file-system order). */
export function listing(dir: string): string[] {
  const handle = opendirSync(dir);
  const names: string[] = [];
  for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) names.push(entry.name);
  handle.closeSync();
  return names;
}
