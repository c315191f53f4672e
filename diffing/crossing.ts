/**
 * Follows a divergence across a process boundary: parent and children (and worker threads) are one
 * run, and a value drawn in a child can part its parent's output. When no intercepted call of the
 * process that diverged explains it, its children are searched, in spawn order, for one that sent
 * something different in the two runs (what it showed: its stdout, which a parent may read, files,
 * its exit code; or what it handed its parent: `process.send`, `parentPort.postMessage`), and the
 * cause is the call that explains what it sent, found there by the same rules (diffing/cause.ts).
 * A child whose sends agree kept its values to itself: it is never blamed.
 */
import { MESSAGE_FORM } from '../tracer/apis.js';
import { TraceReader } from '../tracer/reader.js';
import { compareLineage } from '../tracer/lineage.js';
import { findCause, NOT_EXPLAINED, type Cause } from './cause.js';
import type { ProcessComparison } from './compare.js';
import { isCall, type LoadedTrace } from './load.js';
import type { Divergence } from './localize.js';

/** The cause of `focus`'s divergence found in one of its descendants; null when none explains it. */
export function crossedCause(
  focus: ProcessComparison,
  processes: readonly ProcessComparison[],
  codeChanged: boolean,
  changed: ReadonlySet<string> | undefined,
): Cause | null {
  const children = processes
    .filter((process) => process.test === null && isChild(process.lineage, focus.lineage))
    .sort((x, y) => compareLineage(x.lineage, y.lineage));
  for (const child of children) {
    const { a, b, alignment } = child;
    const sent = a && b && alignment ? firstSent(child, a, b) : null;
    if (!sent) continue;
    const first = child.first && child.first.indexA <= sent.divergence.indexA ? child.first : sent.divergence;
    const cause = findCause(alignment!, first, child.output, codeChanged, a!, b!, changed);
    const found = cause.rule === NOT_EXPLAINED ? crossedCause(child, processes, codeChanged, changed) : cause;
    if (!found) continue;
    if (found.process) return found;
    return { ...found, process: child, rule: `${found.rule}, in process ${child.lineage}, whose ${sent.what} differs` };
  }
  return null;
}

/** A child process (`0.1`) or worker thread (`0.w1`) of `parent`, or of one of its children. */
function isChild(lineage: string, parent: string): boolean {
  return lineage.startsWith(`${parent}.`);
}

/** What a child sent that differs between the runs first: an output, or a message to its parent. */
function firstSent(
  child: ProcessComparison,
  a: LoadedTrace,
  b: LoadedTrace,
): { divergence: Divergence; what: string } | null {
  const output = child.output ? { divergence: child.output, what: 'output' } : null;
  const message = firstMessage(a, b);
  if (!message) return output;
  return output && output.divergence.indexA <= message.divergence.indexA ? output : message;
}

function firstMessage(a: LoadedTrace, b: LoadedTrace): { divergence: Divergence; what: string } | null {
  const sentA = messagesOf(a);
  const sentB = messagesOf(b);
  for (let i = 0; i < Math.max(sentA.length, sentB.length); i++) {
    const x = sentA[i];
    const y = sentB[i];
    if (x && y && x.api === y.api && x.value === y.value) continue;
    const divergence: Divergence = {
      reason: 'output',
      indexA: x?.callsBefore ?? a.calls.length,
      indexB: y?.callsBefore ?? b.calls.length,
      a: null,
      b: null,
    };
    return { divergence, what: `message to its parent (${(x ?? y)!.api} #${i + 1})` };
  }
  return null;
}

interface Message {
  readonly api: string;
  /** the description's digest and length, as recorded */
  readonly value: string;
  /** the calls the child made before it sent it */
  readonly callsBefore: number;
}

/** The messages a trace's process handed its parent, in order. */
function messagesOf(trace: LoadedTrace): Message[] {
  if (!trace.file) return [];
  const reader = TraceReader.open(trace.file);
  try {
    const apis = reader.header.apis;
    const messages: Message[] = [];
    let calls = 0;
    reader.scan({
      chunk() {},
      event({ apiId, value }) {
        const spec = apis[apiId]!;
        if (isCall(spec)) calls++;
        else if (spec.form === MESSAGE_FORM && spec.family === 'log')
          messages.push({ api: spec.api, value: JSON.stringify(value), callsBefore: calls });
      },
    });
    return messages;
  } finally {
    reader.close();
  }
}
