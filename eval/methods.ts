/**
 * The two methods on one upgrade: the raw log (the harness run twice on base and twice on head,
 * its own output kept), and detdrift through its real CLI (`bump`, plus one `record` per side for
 * the traces, and `check --perturb` for the platform stand-in).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BumpReport, DetdriftRun, RawRuns } from './score.js';
import type { Trees } from './install.js';

const TIMEOUT_MS = 20 * 60_000;

function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const start = performance.now();
  const result = spawnSync(command, args, {
    cwd,
    env,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: TIMEOUT_MS,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { ...result, ms: performance.now() - start };
}

/** The harness's environment: no detdrift variables, no colours, so a log is the harness's own. */
function harnessEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const key of Object.keys(env)) if (key.startsWith('DETDRIFT_')) delete env[key];
  delete env.NODE_OPTIONS;
  delete env.FORCE_COLOR;
  return env;
}

/** Runs the test file twice in each tree and keeps the logs (stdout, then stderr) under logs/. */
export function runRaw(trees: Trees, testPath: string, logs: string): RawRuns {
  mkdirSync(logs, { recursive: true });
  let ms = 0;
  const side = (name: 'base' | 'head'): [string, string] => {
    const out: string[] = [];
    for (const n of [1, 2]) {
      const result = run(process.execPath, [testPath], trees[name], harnessEnv());
      ms += result.ms;
      const log = `${result.stdout}${result.stderr}`;
      writeFileSync(join(logs, `${name}-${n}.log`), log);
      out.push(log);
    }
    return [out[0]!, out[1]!];
  };
  return { base: side('base'), head: side('head'), ms };
}

/** `detdrift bump --base HEAD~1 --seed N --json` in head's tree; the report is kept as bump.json. */
export function runBump(cli: string, trees: Trees, testPath: string, seed: number, out: string): DetdriftRun {
  mkdirSync(out, { recursive: true });
  const args = [cli, 'bump', '--base', 'HEAD~1', '--seed', String(seed), '--json', '--log-level', 'error'];
  const result = run(process.execPath, [...args, '--', 'node', testPath], trees.head);
  writeFileSync(join(out, 'bump.json'), result.stdout);
  writeFileSync(join(out, 'bump.stderr.txt'), result.stderr);
  let report: BumpReport | null = null;
  try {
    report = JSON.parse(result.stdout) as BumpReport;
  } catch {
    report = null;
  }
  return {
    exitCode: result.status,
    report,
    ms: result.ms,
    ...(report ? {} : { error: result.stderr.slice(-600) || String(result.error ?? '') }),
  };
}

/** One control-mode trace per side (`detdrift record`), for `detdrift diff` or `show` afterwards. */
export function recordTraces(cli: string, trees: Trees, testPath: string, seed: number, out: string): void {
  for (const side of ['base', 'head'] as const) {
    const args = [cli, 'record', '--out', join(out, `trace-${side}`), '--seed', String(seed), '--mode', 'control'];
    run(process.execPath, [...args, '--log-level', 'error', '--', 'node', testPath], trees[side]);
  }
}

export interface PerturbResult {
  readonly exitCode: number | null;
  readonly verdict: string;
  readonly dimension: string | null;
  readonly cause: string | null;
  readonly ms: number;
}

/** `detdrift check --perturb --seed N --json` on a tree: the dimensions another machine would vary. */
export function runPerturb(cli: string, dir: string, testPath: string, seed: number, out: string): PerturbResult {
  mkdirSync(out, { recursive: true });
  const args = [cli, 'check', '--perturb', '--seed', String(seed), '--json', '--no-confirm', '--log-level', 'error'];
  const result = run(process.execPath, [...args, '--', 'node', testPath], dir);
  writeFileSync(join(out, 'perturb.json'), result.stdout);
  writeFileSync(join(out, 'perturb.stderr.txt'), result.stderr);
  try {
    const report = JSON.parse(result.stdout) as {
      verdict: string;
      perturbation?: { dimension?: string } | null;
      cause: { api: string | null; kind: string; site: { file: string; line: number } | null } | null;
    };
    const site = report.cause?.site ? ` at ${report.cause.site.file}:${report.cause.site.line}` : '';
    return {
      exitCode: result.status,
      verdict: report.verdict,
      dimension: report.perturbation?.dimension ?? null,
      cause: report.cause ? `${report.cause.api ?? report.cause.kind}${site}` : null,
      ms: result.ms,
    };
  } catch {
    return {
      exitCode: result.status,
      verdict: `error (exit ${result.status})`,
      dimension: null,
      cause: result.stderr.slice(-300),
      ms: result.ms,
    };
  }
}

/** What `runRaw` and `runBump` recorded under out/, read back for `--rescore` (no install, no run). */
export function readRecorded(out: string, seed: number): { raw: RawRuns; bump: DetdriftRun } {
  const times = JSON.parse(readFileSync(join(out, 'times.json'), 'utf8')) as {
    raw: number;
    bump: Omit<DetdriftRun, 'report'>;
  };
  const log = (name: string) => readFileSync(join(out, 'raw', `${name}.log`), 'utf8');
  let report: BumpReport | null = null;
  try {
    report = JSON.parse(readFileSync(join(out, `seed-${seed}`, 'bump.json'), 'utf8')) as BumpReport;
  } catch {
    report = null;
  }
  return {
    raw: { base: [log('base-1'), log('base-2')], head: [log('head-1'), log('head-2')], ms: times.raw },
    bump: { ...times.bump, report },
  };
}

/** The times and exit status `readRecorded` needs besides the logs and the report. */
export function writeTimes(out: string, raw: RawRuns, bump: DetdriftRun): void {
  const { report: _report, ...rest } = bump;
  writeFileSync(join(out, 'times.json'), `${JSON.stringify({ raw: raw.ms, bump: rest }, null, 2)}\n`);
}
