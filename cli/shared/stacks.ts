import { rmSync } from 'node:fs';
import type { Cause } from '../../diffing/cause.js';
import { takenKey, type Comparison } from '../../diffing/compare.js';
import { leavesOut, leftOut, type IgnoreRules, type TakenStacks } from '../../diffing/ignore.js';
import type { Rows } from '../../diffing/load.js';
import type { Frame } from '../../tracer/format.js';
import { encode, encodeStacksAt } from '../../tracer/settings.js';
import {
  askFor,
  callKey,
  pinsThrough,
  takenStack,
  unaskable,
  type StackAsk,
  type StackOutcome,
} from '../../diffing/stacks.js';
import type { CommandContext } from './options.js';
import type { ProbeStacks } from './confirm.js';
import type { Progress } from './progress.js';
import { recordRun } from './recording.js';
import { prepareOutDir } from './traces.js';
import { makeWorkDir } from './workdir.js';

/** A recorded run that can be run again here: its trace directory (replayed), and how it was started. */
export interface Rerunnable {
  readonly trace: string;
  readonly command: readonly string[];
  readonly cwd: string;
  readonly seed: string | null;
}

/**
 * The stacks of blamed calls that their runs did not sample. Sampling leaves most calls of a hot
 * loop without a stack, so the cause can be one; a replay of its run (every recorded value pinned,
 * so it makes the same calls) with DETDRIFT_STACKS_AT asking for that one call takes it (DESIGN.md,
 * The trace). Replay bisection already re-runs run A: its probes ask too (`probe`), so a confirmed
 * `check` needs no run of its own; `forCause` re-runs only when no probe took the stack.
 */
export class CauseStacks {
  private readonly outcomes = new Map<string, StackOutcome>();
  private replayableA: Rows | null = null;
  /** how many values a probe must pin to make the heuristic cause's call as run A did */
  private causePins: number | null = null;

  constructor(
    private readonly comparison: Comparison,
    private readonly logger: CommandContext['logger'],
  ) {}

  /** What every outcome, taken or not, says: the report's input (BuildOptions.stacks). */
  list(): StackOutcome[] {
    return [...this.outcomes.values()];
  }

  /** The stack taken for `cause`'s call, when one was. */
  framesOf(cause: Cause | null): StackOutcome['frames'] {
    return cause?.row ? (this.outcomes.get(callKey(cause.side, cause.row.index))?.frames ?? null) : null;
  }

  /**
   * The asks of a bisection probe that pins run A's first `pinned` values: the heuristic cause, and
   * the call that this probe would confirm (the `pinned`-th value), each when its run did not
   * sample it and the probe pins every value before it, so that the probe makes the same calls.
   */
  probe(pinned: number): ProbeStacks | null {
    const focus = this.comparison.diverging;
    // a cause in a child is bisected over the child's values: its probes are not this process's
    if (!focus?.a || focus.cause?.process) return null;
    const trace = focus.a;
    const asks: StackAsk[] = [];
    const want = (index: number) => {
      if (trace.calls.kind(index).site !== 0 || this.outcomes.get(`a:${index}`)?.frames) return;
      const ask = askFor(trace, focus.lineage, 'a', trace.calls.at(index)!);
      if (unaskable(ask) === null && !asks.some((other) => other.index === index)) asks.push(ask);
    };
    const cause = focus.cause;
    if (cause?.row && cause.side === 'a' && pinned >= (this.causePins ??= pinsThrough(trace, cause.row.index)))
      want(cause.row.index);
    this.replayableA ??= trace.calls.replayable();
    if (pinned >= 1 && pinned <= this.replayableA.length) want(this.replayableA.index(pinned - 1));
    if (asks.length === 0) return null;
    return {
      env: encode({ stacksAt: asks.flatMap((ask) => ask.at) }),
      collect: (out) => {
        for (const ask of asks) this.keep(takenStack(out, ask));
      },
    };
  }

  /**
   * Takes the stack of `cause`'s call when its run did not sample it and no probe took it: one
   * replay of that side's run. Without a run to replay (`sides[side]` null: a recorded trace from
   * elsewhere) nothing is taken, and the report says how to take it.
   */
  async forCause(
    cause: Cause | null,
    sides: { readonly a: Rerunnable | null; readonly b: Rerunnable | null },
    progress: Progress,
  ): Promise<void> {
    const focus = this.comparison.diverging;
    const trace = cause?.side === 'a' ? focus?.a : focus?.b;
    // a call in a child keeps the stack its run took, else the report says how to take it
    if (cause?.process) return;
    if (!focus || !trace || !cause?.row || trace.calls.kind(cause.row.index).site !== 0) return;
    if (this.outcomes.has(callKey(cause.side, cause.row.index))) return; // a probe asked: it pinned every value before the call
    const rerun = sides[cause.side];
    const ask = askFor(trace, focus.lineage, cause.side, cause.row);
    if (rerun === null || unaskable(ask) !== null) return;
    this.keep(await replayForStack(ask, rerun, progress, this.logger));
  }

  /** A taken stack stands; a failure is kept only while nothing better is known. */
  private keep(outcome: StackOutcome): void {
    const key = callKey(outcome.ask.side, outcome.ask.index);
    if (this.outcomes.get(key)?.frames) return;
    const stacksAt = encodeStacksAt(outcome.ask.at);
    if (outcome.frames)
      this.logger.debug({ stacksAt, site: outcome.frames[0] }, 'a replay re-run took the stack of an unsampled call');
    else
      this.logger.debug(
        { stacksAt, reason: outcome.reason },
        'a replay re-run did not reproduce an unsampled call; its stack is not used',
      );
    this.outcomes.set(key, outcome);
  }
}

/** One replay of `rerun` that takes the stack of the call `ask` names. */
async function replayForStack(
  ask: StackAsk,
  rerun: Rerunnable,
  progress: Progress,
  logger: CommandContext['logger'],
): Promise<StackOutcome> {
  progress.phase(
    `taking the stack of ${ask.api} call #${ask.ordinal} of process ${ask.lineage} (not sampled) by replaying run ${ask.side.toUpperCase()}`,
  );
  const out = makeWorkDir('stack');
  try {
    prepareOutDir(out);
    const env = encode({ replay: rerun.trace, stacksAt: ask.at });
    await recordRun(
      { out, mode: 'replay', seed: rerun.seed, command: rerun.command, cwd: rerun.cwd },
      'pipe',
      logger,
      env,
    );
    return takenStack(out, ask);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** How many times settleUnsampled compares again at most: each time costs a replay or two. */
const SETTLE_ROUNDS = 3;

/**
 * Runs that part at a call their run did not sample may part at work the comparison leaves out
 * (a test runner's, or what the config ignores) that the sampling could not tell apart: a context
 * whose first call was thinned out, a runner's module cache hit in one run and missed in the
 * other. The stack of each such call at the first divergence is taken by a replay of its run, and
 * when it is work left out, the runs are compared again without it (`compareAgain`).
 */
export async function settleUnsampled(
  comparison: Comparison,
  compareAgain: (taken: ReadonlyMap<string, TakenStacks>) => Comparison,
  sides: { readonly a: Rerunnable; readonly b: Rerunnable },
  rules: IgnoreRules | undefined,
  progress: Progress,
  logger: CommandContext['logger'],
): Promise<Comparison> {
  const taken = new Map<string, Map<number, readonly Frame[]>>();
  for (let round = 0; round < SETTLE_ROUNDS; round++) {
    const focus = comparison.diverging;
    if (!focus?.first || focus.first === focus.output || !leavesOut(rules, comparison.runners)) break;
    let found = false;
    for (const side of ['a', 'b'] as const) {
      const trace = focus[side];
      const row = focus.first[side];
      if (!trace || !row || trace.calls.kind(row.index).site !== 0) continue;
      const ask = askFor(trace, focus.lineage, side, row);
      if (unaskable(ask) !== null) continue;
      const { frames } = await replayForStack(ask, sides[side], progress, logger);
      if (!frames || !leftOut({ frames, skipped: 0 }, rules, comparison.runners)) continue;
      const key = takenKey(side, focus.lineage);
      taken.set(key, (taken.get(key) ?? new Map()).set(row.index, frames));
      found = true;
    }
    if (!found) break;
    comparison = compareAgain(taken);
  }
  return comparison;
}
