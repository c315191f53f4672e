import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { bisect, type BisectResult } from '../../diffing/bisect.js';
import type { Comparison } from '../../diffing/compare.js';
import { sameOutputsAs } from '../../diffing/outputs.js';
import { pinsThrough } from '../../diffing/stacks.js';
import { REPLAYABLE_FAMILIES } from '../../tracer/apis.js';
import type { Mode } from '../../tracer/format.js';
import { encode } from '../../tracer/settings.js';
import type { CommandContext } from './options.js';
import { DEFAULTS } from './defaults.js';
import type { Progress } from './progress.js';
import { recordRun } from './recording.js';
import { prepareOutDir } from './traces.js';
import { makeWorkDir } from './workdir.js';

export interface ConfirmSetup {
  /** run A's trace directory: the values to pin */
  readonly traceA: string;
  readonly comparison: Comparison;
  readonly command: readonly string[];
  readonly cwd: string;
  readonly seed: string | null;
  readonly progress: Progress;
  readonly logger: CommandContext['logger'];
  /** stacks to take in the probes (cli/shared/stacks.ts): a probe re-runs run A anyway */
  readonly stacks?: { probe(pinned: number): ProbeStacks | null } | null;
}

/** What one probe asks the hook for besides its replay, and reads from its trace before it is deleted. */
export interface ProbeStacks {
  readonly env: Readonly<Record<string, string | undefined>>;
  collect(out: string): void;
}

/**
 * Confirms the cause by replay bisection (diffing/bisect.ts): re-runs the command with run A's
 * first k values pinned in the diverging process, and asks whether all outputs equal run A's.
 * Not run when the runs agree, or when the code differs (a bump: A's values belong to other code).
 */
export async function confirmByReplay(setup: ConfirmSetup): Promise<BisectResult | null> {
  const focus = setup.comparison.diverging;
  if (!focus?.a || setup.comparison.codeChanged) return null;
  // Replay pins a process's values, and a runner hands a test to whichever worker is free: the test
  // may run in another process in the re-run, where nothing of its own is pinned. Until replay
  // feeds values test by test, a test's cause stays the comparison's (the report says "likely").
  if (focus.test) {
    setup.logger.info({ test: focus.test.name }, 'replay confirmation is not made for a test');
    return null;
  }
  // A cause found in a child (diffing/crossing.ts) is bisected over that child's values, every other
  // process's pinned whole: reproducing A is still judged by the diverging process's outputs.
  const bisected = focus.cause?.process ?? focus;
  if (!bisected.a) return null;
  const total = bisected.a.calls.replayable().length;
  // Reproducing A means its outputs through the first that differed from B's; all of them when none did.
  const parted = focus.output?.a;
  const through = parted ? { lineage: focus.lineage, outputs: parted.index + 1 } : null;
  const reproducesA = sameOutputsAs(setup.traceA, through, setup.comparison.runners);
  const work = makeWorkDir('replay');
  setup.progress.phase(`confirming by replay: bisecting over ${total} recorded values of process ${bisected.lineage}`);
  try {
    let attempt = 0;
    const replayOnce = async (pinned: number, fresh: 'shift' | 'real'): Promise<boolean> => {
      const out = join(work, `replay-${++attempt}`);
      prepareOutDir(out);
      const stacks = setup.stacks?.probe(pinned) ?? null;
      const env = {
        ...encode({
          replay: setup.traceA,
          replayLimit: { lineage: bisected.lineage, count: pinned },
          replayFresh: fresh,
        }),
        ...stacks?.env,
      };
      await recordRun(
        { out, mode: 'replay', seed: setup.seed, command: setup.command, cwd: setup.cwd },
        'pipe',
        setup.logger,
        env,
      );
      stacks?.collect(out);
      const same = reproducesA(out);
      rmSync(out, { recursive: true, force: true });
      return same;
    };
    // Reproducing must not be luck: with the unpinned values shifted away from A's, and with real ones.
    const reproduces = async (pinned: number) =>
      (await replayOnce(pinned, 'shift')) && (pinned === total || replayOnce(pinned, 'real'));
    const result = await bisect(total, reproduces, {
      maxRuns: DEFAULTS.maxReplayRuns,
      guess: guessedPins(focus, bisected),
      onRun: (runs, pinned, reproduced, about) => {
        setup.logger.debug({ runs, pinned, reproduced }, 'replay probe');
        setup.progress.step(
          `replay ${runs}: ${pinned} of ${total} pinned: ${reproduced ? 'reproduces run A' : 'differs'}`,
          runs,
          about,
        );
      },
    });
    setup.progress.clear();
    setup.logger.info({ ...result }, 'replay bisection');
    return result;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

type Diverging = NonNullable<Comparison['diverging']>;

/**
 * The values to pin through the call the comparison blamed, when it blamed one of run A's recorded
 * values: if it is right, pinning them reproduces A and pinning one fewer does not.
 */
function guessedPins(focus: Diverging, bisected: Diverging): number | null {
  const row = focus.cause?.kind === 'call' && focus.cause.side === 'a' ? focus.cause.row : null;
  if (!row || !bisected.a || !REPLAYABLE_FAMILIES.has(bisected.a.calls.kind(row.index).spec.family)) return null;
  return pinsThrough(bisected.a, row.index);
}

/** The one-line shell command that replays run A's trace locally. */
export function replayCommand(trace: string, command: readonly string[]): string {
  return ['npx', 'detdrift', 'replay', trace, '--', ...command].map(shellQuote).join(' ');
}

/** The one-line shell command that checks `seed` again and keeps its traces: a replay of a run whose traces are gone. */
export function checkCommand(
  { mode, runs, seed }: { readonly mode: Mode; readonly runs: number; readonly seed: string | null },
  command: readonly string[],
): string {
  const flags = ['--keep', '--mode', mode, '--runs', String(runs), ...(seed ? ['--seed', seed] : [])];
  return ['npx', 'detdrift', 'check', ...flags, '--', ...command].map(shellQuote).join(' ');
}

export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
