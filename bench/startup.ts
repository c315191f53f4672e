/**
 * Start-up cost of the hook: `node --import detdrift/register` against the same command without
 * it, in alternating child processes, in one run. Prints medians and the ratio hooked/plain for
 * `node -e 0` and for a small ESM program that imports the builtins the hook patches (so a hook
 * that merely deferred its work to the program's first import would show it there), and two
 * floors for `node -e 0`: `--import` of an empty module, what any import hook costs before it
 * does anything, and of one that loads the builtins the hook must patch before the program runs.
 * `node -e 0` is also measured, in the same alternation, without the hook's code cache (its first
 * start on a machine: DETDRIFT_CODE_CACHE=off), and under the hook's code as tsc emits it, module
 * by module: what the cache and bundling the code into one file save. `node -e` loads node:crypto
 * as it starts and a file does not: an empty module file is measured too, which pays for any
 * builtin the hook loads. Last, the CLI: `detdrift --version` against `node -e 0`, the bundle the bin
 * runs and tsc's modules it is built from, and the module files each loads for `--version` and for
 * `record -- node -e 0`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_FIXTURES, CLI, CLI_UNBUNDLED, REGISTER, REPO, benchEnv, median, table } from './common.js';

/** Runs of each command per round: one start-up is tens of milliseconds, so medians need many. */
const RUNS_PER_ROUND = 6;

const EVAL_ZERO = ['-e', '0'];
const IMPORTS = [join(BENCH_FIXTURES, 'startup-imports.mjs')];
const UNBUNDLED = join(BENCH_FIXTURES, 'unbundled.mjs');
const EMPTY_FILE = [join(BENCH_FIXTURES, 'empty.mjs')];
const CLI_VERSION = [CLI, '--version'];

/** What any hook pays: `node --import` of a module that does nothing, and of one that loads what ours patches. */
const FLOORS: ReadonlyArray<readonly [string, string]> = [
  ['floor: --import of an empty module', 'empty.mjs'],
  ['floor: --import loading the builtins patched', 'builtins.mjs'],
];

export function benchStartup(rounds: number): void {
  const traceDir = mkdtempSync(join(tmpdir(), 'detdrift-bench-startup-'));
  try {
    const runs = rounds * RUNS_PER_ROUND;
    const rows = FLOORS.map(([name, fixture]) =>
      row(
        name,
        measure(
          runs,
          [
            ['plain', EVAL_ZERO],
            [name, ['--import', join(BENCH_FIXTURES, fixture), ...EVAL_ZERO]],
          ],
          traceDir,
        ),
      ),
    );
    const hooked = ['--import', REGISTER, ...EVAL_ZERO];
    const [plain, bundled, uncached, unbundled] = measure(
      runs,
      [
        ['plain', EVAL_ZERO],
        ['hooked', hooked],
        ['uncached', hooked, { DETDRIFT_CODE_CACHE: 'off' }],
        ['unbundled', ['--import', UNBUNDLED, ...EVAL_ZERO]],
      ],
      traceDir,
    );
    rows.push(
      row('node -e 0', [plain!, bundled!]),
      row('node -e 0, no code cache (the first start)', [plain!, uncached!]),
      row("node -e 0, the hook unbundled (tsc's modules)", [plain!, unbundled!]),
    );
    rows.push(
      row(
        'node empty.mjs (a file: no node:crypto at start)',
        measure(
          runs,
          [
            ['plain', EMPTY_FILE],
            ['hooked', ['--import', REGISTER, ...EMPTY_FILE]],
          ],
          traceDir,
        ),
      ),
    );
    rows.push(
      row(
        'ESM importing child_process, fs, crypto',
        measure(
          runs,
          [
            ['plain', IMPORTS],
            ['hooked', ['--import', REGISTER, ...IMPORTS]],
          ],
          traceDir,
        ),
      ),
    );
    const [zero, cli, unbundledCli] = measure(
      runs,
      [
        ['plain', EVAL_ZERO],
        ['cli', CLI_VERSION],
        ['cli, unbundled', [CLI_UNBUNDLED, '--version']],
      ],
      traceDir,
    );
    rows.push(
      row('cli: detdrift --version, against node -e 0', [zero!, cli!]),
      row("cli: detdrift --version, the CLI unbundled (tsc's modules)", [zero!, unbundledCli!]),
    );
    console.log(`\nStart-up (observe mode, cwd ${REPO}, median of ${runs} alternating runs)`);
    console.log(table(['program', 'plain ms', 'with --import ms', 'ratio'], rows));
    console.log('\nWhat the CLI loads (distinct module files, their size; bench/fixtures/loaded-files.mjs)');
    // each in a directory of its own, the cwd: record writes its traces to `out` there
    const commands: ReadonlyArray<readonly [string, readonly string[]]> = [
      ['--version', ['--version']],
      ['record -- node -e 0', ['record', '--out', 'out', '--', process.execPath, '-e', '0']],
    ];
    console.log(
      table(
        ['command', 'bundle', "tsc's modules"],
        commands.map(([name, args]) => [name, loadedFiles([CLI, ...args]), loadedFiles([CLI_UNBUNDLED, ...args])]),
      ),
    );
  } finally {
    rmSync(traceDir, { recursive: true, force: true });
  }
}

/** The distinct files a CLI command loads as modules, and their size. */
function loadedFiles(args: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'detdrift-bench-loaded-'));
  try {
    const list = join(dir, 'files');
    const child = spawnSync(process.execPath, ['--import', join(BENCH_FIXTURES, 'loaded-files.mjs'), ...args], {
      cwd: dir,
      env: { ...benchEnv(), BENCH_LOADED_FILE: list },
      encoding: 'utf8',
    });
    if (child.status !== 0) throw new Error(`${args.join(' ')} failed (${child.status}): ${child.stderr}`);
    const files = new Set(readFileSync(list, 'utf8').split('\n').filter(Boolean));
    const bytes = [...files].reduce((sum, file) => sum + statSync(file).size, 0);
    return `${files.size} files, ${Math.round(bytes / 1024)} KiB`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Wall-clock milliseconds of each command, the commands alternating so load drifts hit both alike. */
function measure(
  runs: number,
  commands: ReadonlyArray<readonly [string, readonly string[], NodeJS.ProcessEnv?]>,
  traceDir: string,
): number[] {
  // benchEnv: no extra CA certificates (set on some CI machines), which cost every node process tens
  // of milliseconds of start-up and would hide the hook's share behind a larger `node -e 0`
  const env: NodeJS.ProcessEnv = { ...benchEnv(), DETDRIFT_TRACE: traceDir };
  const times = commands.map((): number[] => []);
  for (let run = 0; run < runs; run++) {
    commands.forEach(([name, args, extra], index) => {
      const started = process.hrtime.bigint();
      const child = spawnSync(process.execPath, args, { cwd: REPO, env: { ...env, ...extra }, encoding: 'utf8' });
      times[index]!.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (child.status !== 0 || child.stderr !== '')
        throw new Error(`${name} ${args.join(' ')} failed (${child.status}): ${child.stderr}`);
      // each run starts from an empty directory, as a recording does: no `0~N` names to step over
      for (const file of readdirSync(traceDir)) rmSync(join(traceDir, file));
    });
  }
  return times.map(median);
}

function row(name: string, [plain, hooked]: number[]): string[] {
  return [name, plain!.toFixed(1), hooked!.toFixed(1), `${(hooked! / plain!).toFixed(2)}x`];
}
