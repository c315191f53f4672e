import { compareLineage } from '../tracer/lineage.js';
import type { Interner, LoadedTrace, Rows } from './load.js';

/** A test as its runner named it: the file (project-relative) and its full name, and which run of that name. */
export interface TestIdentity {
  readonly file: string;
  readonly name: string;
  /** 1 for the first test of this file and name in the run, 2 for the next (a retried or repeated test) */
  readonly occurrence: number;
}

/** One test in one run: the process it ran in and the span of its events there. */
export interface TestWindow extends TestIdentity {
  readonly lineage: string;
  /** output positions [from, to): its start event, what it showed, and its end event (when it ended) */
  readonly outputs: readonly [number, number];
  /** call positions [from, to): the calls made from its start to its end */
  readonly calls: readonly [number, number];
  /** what its end event says (`pass`, `fail\n<messages>`, ...); null when it never ended */
  readonly outcome: string | null;
}

/** The same test in both runs (null where a run did not run it), in run A's order, then B's others. */
export interface TestPair extends TestIdentity {
  readonly a: TestWindow | null;
  readonly b: TestWindow | null;
}

type Process = readonly [lineage: string, a: LoadedTrace | null, b: LoadedTrace | null];

/**
 * Pairs the tests of two runs by file, name and occurrence, wherever they ran: a runner hands files
 * to its workers as they free up, so the same test can run in another process in each run. Null
 * when neither run reported a test (a plain program).
 */
export function pairTests(processes: readonly Process[], interner: Interner): TestPair[] | null {
  const a = processes.flatMap(([lineage, trace]) => (trace ? windowsOf(lineage, trace, interner) : []));
  const b = processes.flatMap(([lineage, , trace]) => (trace ? windowsOf(lineage, trace, interner) : []));
  if (a.length === 0 && b.length === 0) return null;
  const inB = new Map<string, TestWindow>();
  for (const window of numbered(b)) inB.set(idOf(window), window);
  const pairs: TestPair[] = [];
  for (const window of numbered(a)) {
    const id = idOf(window);
    pairs.push({
      file: window.file,
      name: window.name,
      occurrence: window.occurrence,
      a: window,
      b: inB.get(id) ?? null,
    });
    inB.delete(id);
  }
  for (const window of inB.values()) pairs.push({ ...identityOf(window), a: null, b: window });
  // By file, then in the order the file ran them: the order workers took files in is the runner's.
  return pairs
    .map((pair, order) => ({ pair, order }))
    .sort(byFile)
    .map(({ pair }) => pair);
}

/** The processes whose tests are compared test by test, in either run: their other work is the runner's. */
export function testProcesses(pairs: readonly TestPair[]): Set<string> {
  const lineages = new Set<string>();
  for (const { a, b } of pairs) {
    if (a) lineages.add(a.lineage);
    if (b) lineages.add(b.lineage);
  }
  return lineages;
}

/** The rows of one test's window among a process's rows (calls or outputs, in trace order). */
export function inWindow(rows: Rows, span: readonly [number, number]): Rows {
  return rows.within(span[0], span[1]);
}

/** `file › name`, and `(2)` after a test's second run. */
export function testLabel({ file, name, occurrence }: TestIdentity): string {
  return `${file} › ${name}${occurrence > 1 ? ` (${occurrence})` : ''}`;
}

/** Each test a trace shows, from its start event to its end event (or the trace's end, if it never ended). */
function windowsOf(lineage: string, trace: LoadedTrace, interner: Interner): Omit<TestWindow, 'occurrence'>[] {
  const { outputs } = trace;
  const windows: Omit<TestWindow, 'occurrence'>[] = [];
  let open: { key: string; from: number } | null = null;
  const close = (to: number, callsTo: number, outcome: string | null) => {
    const [file, name] = splitKey(open!.key);
    const calls = [outputs.callsBefore(open!.from), callsTo] as const;
    windows.push({ lineage, file, name, outputs: [open!.from, to], calls, outcome });
    open = null;
  };
  const text = (position: number) => interner.names[outputs.internedId(position)] ?? '';
  for (let position = 0; position < outputs.length; position++) {
    const { spec } = outputs.kind(position);
    if (spec.api !== 'test' || spec.form === 'output') continue;
    if (spec.form === 'start') {
      if (open) close(position, outputs.callsBefore(position), null);
      open = { key: text(position), from: position };
    } else if (open) {
      close(position + 1, outputs.callsBefore(position), text(position));
    }
  }
  if (open) close(outputs.length, trace.calls.length, null);
  return windows;
}

/** Windows in run order (process by lineage, then trace order), numbered by occurrence of their file and name. */
function numbered(windows: Omit<TestWindow, 'occurrence'>[]): TestWindow[] {
  const seen = new Map<string, number>();
  return windows
    .map((window, order) => ({ window, order }))
    .sort((x, y) => compareLineage(x.window.lineage, y.window.lineage) || x.order - y.order)
    .map(({ window }) => {
      const key = `${window.file}\u0000${window.name}`;
      const occurrence = (seen.get(key) ?? 0) + 1;
      seen.set(key, occurrence);
      return { ...window, occurrence };
    });
}

function byFile(x: { pair: TestPair; order: number }, y: { pair: TestPair; order: number }): number {
  return x.pair.file < y.pair.file ? -1 : x.pair.file > y.pair.file ? 1 : x.order - y.order;
}

function idOf(window: TestIdentity): string {
  return `${window.file}\u0000${window.name}\u0000${window.occurrence}`;
}

function identityOf({ file, name, occurrence }: TestIdentity): TestIdentity {
  return { file, name, occurrence };
}

function splitKey(key: string): [string, string] {
  const at = key.indexOf('\u0000');
  return at < 0 ? ['', key] : [key.slice(0, at), key.slice(at + 1)];
}
