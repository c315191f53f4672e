import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

/** The repository root (benchmarks run from dist/bench). */
export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const REGISTER = join(REPO, 'dist', 'instrument', 'register.js');
/** The bin users run, the CLI's bundle; and the same CLI as tsc's modules, what the bundle saves. */
export const CLI = join(REPO, 'dist', 'cli', 'bundle', 'main.js');
export const CLI_UNBUNDLED = join(REPO, 'dist', 'cli', 'main.js');
export const BENCH_FIXTURES = join(REPO, 'bench', 'fixtures');

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A plain-text table with right-aligned numeric columns. */
export function table(headings: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headings.map((heading, column) => Math.max(heading.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  return [line(headings), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

/** This environment without the hook's settings, NODE_OPTIONS, or extra CA certificates (tens of ms a node start). */
export function benchEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  delete env.NODE_EXTRA_CA_CERTS;
  for (const key of Object.keys(env)) if (key.startsWith('DETDRIFT_')) delete env[key];
  return env;
}

export interface TimedRun {
  readonly wallMs: number;
  /** user + system time of every process the command started, threads included */
  readonly cpuMs: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a command to its end and measures it whole: wall time, and the CPU time of all its
 * processes, from the shell's `times` (getrusage of the children it waited for, which holds every
 * descendant that was waited for in turn: a runner's worker processes, and its threads). Throws
 * unless it exits with `status` (0 unless given: `check` exits 1 on runs that diverge). A POSIX
 * shell is needed (not Windows).
 */
export function runTimed(
  command: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; status?: number },
): TimedRun {
  const timesFile = join(mkdtempSync(join(tmpdir(), 'detdrift-bench-times-')), 'times');
  try {
    const started = performance.now();
    const child = spawnSync(
      '/bin/sh',
      ['-c', '"$@"; status=$?; times > "$BENCH_TIMES"; exit $status', 'sh', ...command],
      {
        cwd: options.cwd,
        env: { ...options.env, BENCH_TIMES: timesFile },
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      },
    );
    const wallMs = performance.now() - started;
    if (child.status !== (options.status ?? 0)) {
      throw new Error(`${command.join(' ')} failed (${child.status}):\n${child.stdout}\n${child.stderr}`);
    }
    // `times` prints the shell's own user and system time, then its children's: `0m1.23s 0m0.45s`
    const seconds = [...readFileSync(timesFile, 'utf8').matchAll(/(\d+)m([\d.]+)s/g)].map(
      ([, minutes, rest]) => Number(minutes) * 60 + Number(rest),
    );
    if (seconds.length !== 4) throw new Error(`unexpected output of times: ${readFileSync(timesFile, 'utf8')}`);
    return { wallMs, cpuMs: (seconds[2]! + seconds[3]!) * 1000, stdout: child.stdout, stderr: child.stderr };
  } finally {
    rmSync(dirname(timesFile), { recursive: true, force: true });
  }
}
