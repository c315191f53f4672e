import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { API_TABLE, REPLAYABLE_FAMILIES } from '../tracer/apis.js';
import { digestBytes, digestHex, digestNumber, digestString } from '../tracer/digest.js';
import { TRACE_EXTENSION, type Frame } from '../tracer/format.js';
import { TraceReader, type TraceValue } from '../tracer/reader.js';
import type { StackAt } from '../tracer/settings.js';
import { siteKey } from '../tracer/stack.js';
import type { Side } from './cause.js';
import type { LoadedTrace, Row } from './load.js';
import { comparable } from './slot.js';

/**
 * A call whose stack its run did not sample (site 0), named the way the hook's
 * `DETDRIFT_STACKS_AT=LINEAGE:API:ORDINAL` asks for it: the process, the API, and the call's
 * ordinal among that API's calls there, which is the count the sampling keeps too.
 */
export interface StackAsk {
  readonly side: Side;
  readonly lineage: string;
  /** the call's index among its trace's calls (Row.index) */
  readonly index: number;
  readonly api: string;
  readonly form: string;
  /** the API's id in this tool's table (the hook's `Api.*`), which the trace's own table may number otherwise */
  readonly apiId: number;
  readonly ordinal: number;
  /** the value the run recorded, which a re-run's call at that ordinal must have too */
  readonly value: TraceValue;
  /**
   * the calls DETDRIFT_STACKS_AT asks for to take this one's stack: its own, and for fs and timers its
   * neighbours' too (see NEIGHBOURS)
   */
  readonly at: readonly StackAt[];
  /** the earlier calls of this API whose stacks the run sampled: ordinal → `file:line:column` */
  readonly sampled: ReadonlyMap<number, string>;
}

/** Which call of which run an ask or an outcome is about: the key stacks are kept and looked up by. */
export function callKey(side: Side, index: number): string {
  return `${side}:${index}`;
}

/** What a re-run gave for an ask: the stack, or why none is shown (the re-run parted before the call). */
export interface StackOutcome {
  readonly ask: StackAsk;
  readonly frames: readonly Frame[] | null;
  readonly reason: string | null;
}

/**
 * An fs or timers call takes its site when it is called and records its event when it completes,
 * or never (a failed stat, a timer that was not created): its event's ordinal can be a few off the
 * sampling's count. A stack is always its own event's, so asking for the neighbours' too gives the
 * call its stack whichever of them it was counted as.
 */
const NEIGHBOURS = 8;

/** The ask for `row` of `trace` (process `lineage`, run `side`). */
export function askFor(trace: LoadedTrace, lineage: string, side: Side, row: Row): StackAsk {
  const kind = trace.calls.kind(row.index);
  const sampled = new Map<number, string>();
  let ordinal = 0;
  for (let index = 0; index < row.index; index++) {
    const other = trace.calls.kind(index);
    if (other.apiId !== kind.apiId) continue;
    const key = siteKey(trace.sites.get(other.site));
    if (key !== null) sampled.set(ordinal, key);
    ordinal++;
  }
  const { api, form } = kind.spec;
  const apiId = API_TABLE.findIndex((spec) => spec.api === api && spec.form === form);
  const spread = kind.spec.family === 'fs' || kind.spec.family === 'timers' ? NEIGHBOURS : 0;
  const at: StackAt[] = [];
  for (let near = Math.max(0, ordinal - spread); near <= ordinal + spread; near++)
    at.push({ lineage, api: apiId, ordinal: near });
  return { side, lineage, index: row.index, api, form, apiId, ordinal, value: row.event.value, at, sampled };
}

/**
 * Why a re-run cannot take this call's stack, or null when it can. A timer's firing is recorded
 * with its scheduling call's site and never counts toward the sampling itself.
 */
export function unaskable(ask: StackAsk): string | null {
  if (ask.apiId < 0) return `this version of detdrift does not intercept ${ask.api} (${ask.form})`;
  if (ask.form === 'fire')
    return `a timer's firing carries the stack of the call that scheduled it, and that call's stack was not sampled either`;
  return null;
}

/**
 * How many of the trace's recorded clock, random and crypto values a replay must pin to reproduce the run
 * through `index`.
 */
export function pinsThrough(trace: LoadedTrace, index: number): number {
  let count = 0;
  for (let at = 0; at <= index && at < trace.calls.length; at++)
    if (REPLAYABLE_FAMILIES.has(trace.calls.kind(at).spec.family)) count++;
  return count;
}

/**
 * Reads the stack a re-run (into `dir`, a replay of the recorded run) took for `ask`. A re-run that
 * parted from the recording before the call (a call made or skipped, a value not pinned) would give
 * another call's stack, and a call recorded after its site was taken (an fs callback, a Dir read)
 * can land at another ordinal when completions reorder; no stack is better than a wrong one. So
 * the replay must not have met a call the recording does not have before it, every earlier call
 * of the API that both runs took a stack at must be at the same place, and the call at the
 * ordinal must have the recorded value.
 */
export function takenStack(dir: string, ask: StackAsk): StackOutcome {
  const file = join(dir, ask.lineage + TRACE_EXTENSION);
  if (!existsSync(file)) return { ask, frames: null, reason: `the re-run did not record process ${ask.lineage}` };
  // a torn or foreign re-run trace costs this stack, not the report the command is making
  const unreadable = (error: unknown): StackOutcome => ({
    ask,
    frames: null,
    reason: `the re-run's trace of process ${ask.lineage} cannot be read: ${(error as Error).message}`,
  });
  const parted = (why: string): StackOutcome => ({
    ask,
    frames: null,
    reason: `the re-run parted from the recording before ${ask.api} call #${ask.ordinal}: ${why}`,
  });
  let reader: TraceReader;
  try {
    reader = TraceReader.open(file);
  } catch (error) {
    return unreadable(error);
  }
  /** What the re-run's call #`n` of the asked API tells, null when it is before the asked one and agrees. */
  const atCall = (n: number, site: number, value: TraceValue): StackOutcome | null => {
    const here = siteKey(reader.sites.get(site));
    if (n < ask.ordinal) {
      const recorded = ask.sampled.get(n);
      return recorded !== undefined && here !== null && recorded !== here
        ? parted(`its call #${n} is at ${here}, the recording's at ${recorded}`)
        : null;
    }
    if (!sameRecordedValue(ask.value, value))
      return parted(`its call #${ask.ordinal} has another value than the recorded one`);
    const frames = reader.sites.get(site)?.frames;
    if (!frames || frames.length === 0)
      return { ask, frames: null, reason: `the re-run took no stack at ${ask.api} call #${ask.ordinal}` };
    return { ask, frames, reason: null };
  };
  try {
    const apis = reader.header.apis;
    let calls = 0;
    let outcome: StackOutcome | null = null;
    // scan, not events(): the asked call can come after a million others, and no object is made for them
    reader.scan({
      chunk() {},
      event({ apiId, site, value }) {
        const { api, form, family } = apis[apiId]!;
        if (family === 'meta' && typeof value === 'string') outcome = parted(`replay met ${value}`);
        else if (api === ask.api && form === ask.form) outcome = atCall(calls++, site, value);
        return outcome !== null;
      },
    });
    return outcome ?? parted(`it made only ${calls} ${ask.api} calls`);
  } catch (error) {
    return unreadable(error);
  } finally {
    reader.close();
  }
}

/**
 * Two recordings of one value: equal as compared, or a digest (a run that did not hold raw
 * values) and the bytes, text or number it digests (a replay run holds them).
 */
function sameRecordedValue(recorded: TraceValue, rerun: TraceValue): boolean {
  if (comparable(recorded) === comparable(rerun)) return true;
  return digestOf(rerun) === recorded || digestOf(recorded) === rerun;
}

function digestOf(value: TraceValue): string | null {
  let digest = null;
  if (value instanceof Uint8Array) digest = digestBytes(value);
  else if (typeof value === 'string') digest = digestString(value);
  else if (typeof value === 'number') digest = digestNumber(value);
  return digest ? digestHex(digest.high, digest.low) : null;
}
