/**
 * Whole-program overhead and trace size on a simulation (bench/fixtures/sim.mjs: 10^4 timers,
 * 10^5 clock reads, 10^6 Math.random draws, 10^3 directory reads), run in alternating child
 * processes in one run: plain node, the hook in observe and in control mode, and the simulation
 * under @sinonjs/fake-timers driving its clock (sim-fake-timers.mjs). Prints medians and their
 * ratios, in wall time (what a CI job waits) and CPU time (what the process spent, which a loaded
 * machine disturbs less), and the trace's bytes per event in observe and control mode. Then the
 * same simulation cut to a unit test's size (about 3·10^4 events), where start-up and the JIT's
 * warm-up of the hook weigh most, and an async-heavy program (bench/fixtures/awaits.mjs, 2·10^5
 * awaits), plain and observed: the async hook names every promise's context, a cost the
 * simulation's timers do not show. Last, what the CLI costs over the bare hook: `detdrift record --
 * node sim.mjs` against `node --import` of the hook.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { TraceReader } from '../tracer/reader.js';
import {
  BENCH_FIXTURES,
  CLI,
  CLI_UNBUNDLED,
  REGISTER,
  REPO,
  type TimedRun,
  benchEnv,
  median,
  runTimed,
  table,
} from './common.js';

type Variant = 'plain' | 'observe' | 'control' | 'fake-timers';
const VARIANTS: readonly Variant[] = ['plain', 'observe', 'control', 'fake-timers'];
const SHORT_SERVERS = 30;

interface Sample {
  readonly wallMs: number;
  readonly cpuMs: number;
}

interface TraceSize {
  readonly bytes: number;
  readonly events: number;
  /** events per api name, to show the run did the calls the workload claims */
  readonly apis: Map<string, number>;
}

export function benchWorkload(rounds: number): void {
  const sizes = new Map<Variant, TraceSize>();
  const { wall, cpu } = alternate(VARIANTS, rounds, undefined, (variant, dir) => {
    if (variant === 'observe' || variant === 'control') sizes.set(variant, traceSize(join(dir, 'trace')));
  });
  const ratio = (of: (variant: Variant) => number, a: Variant, b: Variant) => `${(of(a) / of(b)).toFixed(2)}x`;
  console.log(`\nWhole-program workload (bench/fixtures/sim.mjs, median of ${rounds} alternating rounds)`);
  console.log(shape(sizes.get('observe')!));
  console.log(
    table(
      [
        'run',
        'wall ms',
        'cpu ms',
        'wall ÷ plain',
        'cpu ÷ plain',
        'wall ÷ fake-timers',
        'cpu ÷ fake-timers',
        'trace bytes/event',
      ],
      VARIANTS.map((variant) => {
        const size = sizes.get(variant);
        return [
          variant,
          wall(variant).toFixed(0),
          cpu(variant).toFixed(0),
          ratio(wall, variant, 'plain'),
          ratio(cpu, variant, 'plain'),
          ratio(wall, variant, 'fake-timers'),
          ratio(cpu, variant, 'fake-timers'),
          size ? (size.bytes / size.events).toFixed(2) : '-',
        ];
      }),
    ),
  );
  console.log(
    "issue #8's targets: observe and control ÷ plain at most 1.5x and below fake-timers; at most 12 (observe) and 4 (control) trace bytes per event",
  );
  benchShort(rounds);
  benchAwaits(rounds);
  benchCli(rounds);
}

/** The simulation with 30 servers: about 3·10^4 events, a unit test's worth. */
function benchShort(rounds: number): void {
  const variants = ['plain', 'observe'] as const;
  const { wall, cpu } = alternate(variants, rounds, 'sim.mjs', undefined, [String(SHORT_SERVERS)]);
  console.log(
    `\nA short run (bench/fixtures/sim.mjs ${SHORT_SERVERS}: ${SHORT_SERVERS}·10 timers, about 3·10^4 events, median of ${rounds} alternating rounds)`,
  );
  printRatios(variants, wall, cpu);
}

function benchAwaits(rounds: number): void {
  const variants = ['plain', 'observe'] as const;
  const { wall, cpu } = alternate(variants, rounds, 'awaits.mjs');
  console.log(
    `\nAsync-heavy program (bench/fixtures/awaits.mjs, 2·10^5 awaits, median of ${rounds} alternating rounds)`,
  );
  printRatios(variants, wall, cpu);
}

/**
 * What the CLI adds to the bare hook: `detdrift record -- node sim.mjs` (the CLI's start, execa,
 * NODE_OPTIONS, the summary it reads from the trace) against `node --import` of the hook, CPU of
 * both processes; the floor of any CLI written for Node, a script that only spawns the hooked
 * command and waits for it (one more Node process's start and end); and the same CLI as tsc's
 * modules, what its bundle saves.
 */
function benchCli(rounds: number): void {
  const dir = mkdtempSync(join(tmpdir(), 'detdrift-workload-cli-'));
  try {
    const sim = join(BENCH_FIXTURES, 'sim.mjs');
    const env = benchEnv();
    const out = join(dir, 'cli');
    const record = (cli: string) => [process.execPath, cli, 'record', '--out', out, '--', process.execPath, sim];
    const hooked = { ...env, DETDRIFT_TRACE: join(dir, 'hook'), DETDRIFT_MODE: 'observe' };
    const spawnOnly = [
      process.execPath,
      join(BENCH_FIXTURES, 'spawn-only.mjs'),
      process.execPath,
      '--import',
      REGISTER,
      sim,
    ];
    const variants = [
      ['node --import register sim.mjs', [process.execPath, '--import', REGISTER, sim], hooked],
      ['floor: a Node script that only spawns it', spawnOnly, hooked],
      ['detdrift record -- node sim.mjs', record(CLI), env],
      ["the same, the CLI unbundled (tsc's modules)", record(CLI_UNBUNDLED), env],
    ] as const;
    const runs = variants.map((): TimedRun[] => []);
    for (let round = 0; round < rounds; round++) {
      variants.forEach(([, command, variantEnv], index) => {
        runs[index]!.push(runTimed(command, { cwd: REPO, env: variantEnv }));
        for (const trace of ['hook', 'cli']) rmSync(join(dir, trace), { recursive: true, force: true });
      });
    }
    const wall = runs.map((samples) => median(samples.map((run) => run.wallMs)));
    const cpu = runs.map((samples) => median(samples.map((run) => run.cpuMs)));
    console.log(
      `\nThe CLI over the bare hook (bench/fixtures/sim.mjs, observe, median of ${rounds} alternating rounds)`,
    );
    console.log(
      table(
        ['run', 'wall ms', 'cpu ms', 'wall ÷ hook', 'cpu ÷ hook'],
        variants.map(([name], index) => [
          name,
          wall[index]!.toFixed(0),
          cpu[index]!.toFixed(0),
          `${(wall[index]! / wall[0]!).toFixed(2)}x`,
          `${(cpu[index]! / cpu[0]!).toFixed(2)}x`,
        ]),
      ),
    );
    console.log("issue #25's target: the CLI at most 1.10x the bare hook");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function printRatios(
  variants: readonly Variant[],
  wall: (variant: Variant) => number,
  cpu: (variant: Variant) => number,
): void {
  console.log(
    table(
      ['run', 'wall ms', 'cpu ms', 'wall ÷ plain', 'cpu ÷ plain'],
      variants.map((variant) => [
        variant,
        wall(variant).toFixed(0),
        cpu(variant).toFixed(0),
        `${(wall(variant) / wall('plain')).toFixed(2)}x`,
        `${(cpu(variant) / cpu('plain')).toFixed(2)}x`,
      ]),
    ),
  );
}

/**
 * Runs each variant once per round, alternating, each in a fresh directory (`after` reads it before
 * it goes); returns the median wall and CPU time of each.
 */
function alternate(
  variants: readonly Variant[],
  rounds: number,
  script?: string,
  after?: (variant: Variant, dir: string) => void,
  args: readonly string[] = [],
): { wall: (variant: Variant) => number; cpu: (variant: Variant) => number } {
  const samples = new Map<Variant, Sample[]>(variants.map((variant) => [variant, []]));
  for (let round = 0; round < rounds; round++) {
    for (const variant of variants) {
      const dir = mkdtempSync(join(tmpdir(), 'detdrift-workload-'));
      try {
        samples.get(variant)!.push(runSimulation(variant, dir, script, args));
        after?.(variant, dir);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  return {
    wall: (variant) => median(samples.get(variant)!.map((sample) => sample.wallMs)),
    cpu: (variant) => median(samples.get(variant)!.map((sample) => sample.cpuMs)),
  };
}

/** `script` runs in place of the simulation when given: the same fixture whatever the variant. */
function runSimulation(variant: Variant, dir: string, script?: string, scriptArgs: readonly string[] = []): Sample {
  const cpuFile = join(dir, 'cpu.json');
  const env: NodeJS.ProcessEnv = { ...benchEnv(), BENCH_CPU_FILE: cpuFile };
  const args = ['--import', join(BENCH_FIXTURES, 'cpu.mjs')];
  if (variant === 'observe' || variant === 'control') {
    args.unshift('--import', REGISTER);
    Object.assign(env, { DETDRIFT_TRACE: join(dir, 'trace'), DETDRIFT_MODE: variant, DETDRIFT_SEED: '42' });
  }
  args.push(
    join(BENCH_FIXTURES, script ?? (variant === 'fake-timers' ? 'sim-fake-timers.mjs' : 'sim.mjs')),
    ...scriptArgs,
  );
  const started = performance.now();
  const child = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  const wallMs = performance.now() - started;
  if (child.status !== 0 || child.stderr !== '')
    throw new Error(`the ${variant} simulation failed (${child.status}): ${child.stderr}`);
  const usage = JSON.parse(readFileSync(cpuFile, 'utf8')) as { user: number; system: number };
  return { wallMs, cpuMs: (usage.user + usage.system) / 1000 };
}

function traceSize(dir: string): TraceSize {
  const size = { bytes: 0, events: 0, apis: new Map<string, number>() };
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    const reader = TraceReader.open(file);
    try {
      for (const event of reader.events()) {
        size.events++;
        size.apis.set(event.api, (size.apis.get(event.api) ?? 0) + 1);
      }
    } finally {
      reader.close();
    }
    size.bytes += statSync(file).size;
  }
  return size;
}

/** One line with what the observed run called, most frequent first. */
function shape(size: TraceSize): string {
  const counts = [...size.apis].sort((a, b) => b[1] - a[1]).map(([api, count]) => `${count} ${api}`);
  return `events recorded: ${size.events} (${counts.join(', ')})`;
}
