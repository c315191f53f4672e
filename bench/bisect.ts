/**
 * How many re-runs replay bisection needs to confirm a cause, against how many uncontrolled calls
 * the run made: a program of N Math.random draws whose draw at 70% decides its output, checked
 * with the real CLI (`check --runs 2 --json`). Bisection should need about log2(N) + a few. Then
 * what each of those re-runs costs against the bare hook's run of the same program (benchReplays).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_FIXTURES, CLI, REGISTER, REPO, benchEnv, median, runTimed, table } from './common.js';

export function benchBisect(sizes: readonly number[]): void {
  const rows: string[][] = [];
  // the decisive draw at 70%, which the comparison's cause (the last draw whose value differs) is not;
  // then the last draw, which it is: the search starts there
  for (const decisive of ['70%', 'last'] as const) {
    for (const size of sizes) {
      const started = process.hrtime.bigint();
      const draws = [join(BENCH_FIXTURES, 'draws.cjs'), String(size), ...(decisive === 'last' ? ['last'] : [])];
      const child = spawnSync(
        process.execPath,
        [CLI, 'check', '--runs', '2', '--json', '--', process.execPath, ...draws],
        {
          encoding: 'utf8',
          maxBuffer: 1 << 26,
        },
      );
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const report = JSON.parse(child.stdout) as {
        confirmation: { status: string; runs: number; pinned: number; total: number } | null;
      };
      const confirmation = report.confirmation;
      const expected = decisive === 'last' ? size : Math.floor(size * 0.7) + 1;
      rows.push([
        decisive,
        size.toExponential(0),
        String(confirmation?.total ?? '-'),
        String(confirmation?.runs ?? '-'),
        Math.log2(Math.max(2, size)).toFixed(1),
        confirmation?.status ?? 'not run',
        `${confirmation?.pinned ?? '-'} (expect ${expected})`,
        seconds.toFixed(1),
      ]);
    }
  }
  console.log('\nReplay bisection: re-runs needed to confirm the cause (check --runs 2)');
  console.log(table(['decisive draw', 'draws', 'pinnable', 're-runs', 'log2(N)', 'status', 'pinned', 'seconds'], rows));
}

/**
 * What each re-run of `check`'s confirmation costs, against the bare hook running the program (10^6
 * draws): `check` with and without `--no-confirm` alternate with the bare hook in observe mode and
 * in replay mode (feeding a recording of the same program back), and a re-run's cost is the
 * confirmed check's time less the unconfirmed one's, over its re-runs. Wall and CPU of every
 * process, medians of `rounds` alternating rounds.
 */
export function benchReplays(rounds: number): void {
  const dir = mkdtempSync(join(tmpdir(), 'detdrift-bench-replays-'));
  try {
    const env = benchEnv();
    const program = [process.execPath, join(BENCH_FIXTURES, 'draws.cjs'), '1000000'];
    const recorded = join(dir, 'recorded');
    const hooked = [process.execPath, '--import', REGISTER, ...program.slice(1)];
    runTimed(hooked, { cwd: REPO, env: { ...env, DETDRIFT_TRACE: recorded } });
    const check = (...options: string[]) => [
      process.execPath,
      CLI,
      'check',
      '--runs',
      '2',
      '--json',
      ...options,
      '--',
      ...program,
    ];
    const confirmed = check();
    const variants = [
      ['the bare hook (observe)', hooked, { ...env, DETDRIFT_TRACE: join(dir, 'observed') }, 0],
      [
        'the bare hook replaying it',
        hooked,
        { ...env, DETDRIFT_TRACE: join(dir, 'replayed'), DETDRIFT_MODE: 'replay', DETDRIFT_REPLAY: recorded },
        0,
      ],
      ['check --no-confirm', check('--no-confirm'), env, 1],
      ['check', confirmed, env, 1],
    ] as const;
    const wall = variants.map((): number[] => []);
    const cpu = variants.map((): number[] => []);
    let reruns = 0;
    for (let round = 0; round < rounds; round++) {
      variants.forEach(([, command, variantEnv, status], index) => {
        const run = runTimed(command, { cwd: REPO, env: variantEnv, status });
        wall[index]!.push(run.wallMs);
        cpu[index]!.push(run.cpuMs);
        if (command === confirmed)
          reruns = (JSON.parse(run.stdout) as { confirmation: { runs: number } }).confirmation.runs;
        for (const trace of ['observed', 'replayed']) rmSync(join(dir, trace), { recursive: true, force: true });
      });
    }
    if (reruns === 0)
      throw new Error('check made no re-runs: the program did not diverge, there is nothing to measure');
    const [observeWall, replayWall, plainWall, confirmedWall] = wall.map(median) as [number, number, number, number];
    const [observeCpu, replayCpu, plainCpu, confirmedCpu] = cpu.map(median) as [number, number, number, number];
    const rerunWall = (confirmedWall - plainWall) / reruns;
    const rerunCpu = (confirmedCpu - plainCpu) / reruns;
    console.log(
      `\nWhat each of check's re-runs costs (draws.cjs 10^6, ${reruns} re-runs, median of ${rounds} alternating rounds)`,
    );
    console.log(
      table(
        ['run', 'wall ms', 'cpu ms'],
        [
          ...variants.map(([name], index) => [name, median(wall[index]!).toFixed(0), median(cpu[index]!).toFixed(0)]),
          ['a re-run: (check - check --no-confirm) / re-runs', rerunWall.toFixed(0), rerunCpu.toFixed(0)],
        ],
      ),
    );
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
    console.log(
      `a re-run ÷ the bare hook's run: ${ratio(rerunWall, observeWall)} wall, ${ratio(rerunCpu, observeCpu)} CPU; ÷ the bare hook replaying: ${ratio(rerunWall, replayWall)}, ${ratio(rerunCpu, replayCpu)}`,
    );
    console.log("issue #25's target: each replay of check adds at most 10% to the bare hook's run");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
