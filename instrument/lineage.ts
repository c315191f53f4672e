import { join, relative, sep } from 'node:path';
import { makeDirectory, TRACE_FILE_MODE } from '../tracer/directory.js';
import { TRACE_EXTENSION } from '../tracer/format.js';
import { isMirror, type ChunkMirror } from '../tracer/mirror.js';
import { isLineageName } from '../tracer/lineage.js';
import { VARS } from '../tracer/settings.js';
import { loadedThreads, real, type Threads } from './real.js';
import {
  StringCharCodeAt,
  StringEndsWith,
  StringIncludes,
  StringLastIndexOf,
  StringReplaceAll,
  StringSlice,
  StringStartsWith,
} from '../tracer/primordials.js';

const MathMax = Math.max;

/** This thread's own lineage, for workers whose constructor did not pass through our wrapper. */
export const LINEAGE_KEY = 'detdrift.lineage';
/** The name the parent gave a worker it constructed (children.ts sets it around `new Worker`). */
export const WORKER_KEY = 'detdrift.worker';
/** The memory the parent reads a worker's unwritten events from (tracer/mirror.ts), set with the name. */
export const MIRROR_KEY = 'detdrift.mirror';

export interface Claimed {
  readonly lineage: string;
  readonly file: string;
  readonly fd: number;
  /** a worker's, when its parent's hook gave it one: where its open chunk is built */
  readonly mirror: ChunkMirror | null;
}

/** Names tried one after the other before the directory is listed for the highest taken. */
const TRIES = 8;
/** Names tried in all before giving up: only a race this wide, or a file system that always says EEXIST, gets there. */
const MAX_TRIES = 1000;

/**
 * Names this process (or worker) by spawn lineage, not pid, so two runs name the same process the
 * same: `0` is the root, `0.2` the root's second spawned child (the parent passes the name in
 * DETDRIFT_SPAWN), `0.w1` the root's first worker thread (passed as environment data, which a
 * worker receives when it is constructed). The trace file is created exclusively; a name already
 * taken gets `~2`, `~3`, ... in the order the processes claim it: two roots writing to one
 * directory, or a shell that runs several node commands under the one name its parent gave it.
 * After TRIES names taken, the directory is listed once and the next name follows the highest
 * `~N` there: a directory that one program writes into run after run never runs out of names, and
 * the thousandth run lists it once rather than trying a thousand names. Every name is still
 * created exclusively, so processes that race for one each get their own.
 */
export function claimTraceFile(traceDir: string, spawn: string | null): Claimed {
  const threads = loadedThreads();
  const worker = threads !== null && !threads.isMainThread ? threads : null;
  const wanted = worker ? workerName(worker, spawn) : processName(spawn);
  const mirror = worker ? takeMirror(worker) : null;
  makeDirectory(traceDir, (dir, mode) => real.mkdirSync(dir, mode));
  let suffix = 1;
  for (let tries = 1; ; tries++) {
    const lineage = suffix === 1 ? wanted : `${wanted}~${suffix}`;
    const file = join(traceDir, lineage + TRACE_EXTENSION);
    try {
      const fd = real.openSync(file, 'wx', TRACE_FILE_MODE);
      // without worker_threads yet, the workers family says it when the program loads them
      threads?.setEnvironmentData(LINEAGE_KEY, lineage);
      return { lineage, file, fd, mirror };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || tries >= MAX_TRIES) throw error;
    }
    suffix = tries % TRIES === 0 ? MathMax(suffix, highestTaken(traceDir, wanted)) + 1 : suffix + 1;
  }
}

/** The highest N of the `wanted~N` traces in `dir` (0 when there is none). */
function highestTaken(dir: string, wanted: string): number {
  const names = real.readdirSync(dir);
  const prefix = `${wanted}~`;
  let highest = 0;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (!StringStartsWith(name, prefix) || !StringEndsWith(name, TRACE_EXTENSION)) continue;
    highest = MathMax(highest, suffixOf(StringSlice(name, prefix.length, name.length - TRACE_EXTENSION.length)));
  }
  return highest;
}

/** `digits` as a number, or 0 when it is not decimal digits alone (`2.1`: a child of `~2`) or too long to count on. */
function suffixOf(digits: string): number {
  if (digits.length === 0 || digits.length > 15) return 0;
  let value = 0;
  for (let i = 0; i < digits.length; i++) {
    const code = StringCharCodeAt(digits, i);
    if (code < 0x30 || code > 0x39) return 0;
    value = value * 10 + code - 0x30;
  }
  return value;
}

/**
 * DETDRIFT_SPAWN, unless this is a `node --test` child: the runner starts its files in parallel,
 * so each is told apart by its file instead, `<runner>.@test+a_test_mjs`. The runner's name is
 * the one it passed on, when the hook does not run in it (under `--import`, which the runner does
 * not load), or the one it gave, when it does (`--require`: it comes with the runner's pid as
 * DETDRIFT_PARENT). A test file's own children (named under it, `.@` in the name) inherit the
 * runner's NODE_TEST_CONTEXT, and keep the name their parent gave.
 */
function processName(spawn: string | null): string {
  const given = spawn !== null && process.env[VARS.parent] === String(process.ppid);
  if (process.env.NODE_TEST_CONTEXT === undefined || (given && StringIncludes(spawn, '.@'))) return spawn ?? '0';
  const runner = given ? StringSlice(spawn, 0, MathMax(0, StringLastIndexOf(spawn, '.'))) || '0' : (spawn ?? '0');
  const script = process.argv[1] ? relative(process.cwd(), process.argv[1]) : 'eval';
  return `${runner}.@${fileSegment(StringReplaceAll(script, sep, '+'))}`;
}

/**
 * `text` with every character but letters, digits, `_`, `+` and `-` made `_`. A loop: a regular
 * expression's replacement would set the program's RegExp.lastMatch and the other statics.
 */
function fileSegment(text: string): string {
  let segment = '';
  for (let i = 0; i < text.length; i++) {
    const code = StringCharCodeAt(text, i);
    const kept =
      (code >= 48 && code <= 57) ||
      (code >= 65 && code <= 90) ||
      (code >= 97 && code <= 122) ||
      code === 95 ||
      code === 43 ||
      code === 45;
    segment += kept ? text[i]! : '_';
  }
  return segment;
}

/**
 * The name our Worker wrapper gave this worker, taken out of this thread's environment data so a
 * worker this one starts without the wrapper does not inherit it. Such a worker (started by
 * Node itself, or by an `eval` worker, where the hook does not run) falls back to the thread id:
 * `<parent>.t<threadId>`, stable only while workers start in the same order.
 */
function workerName(threads: Threads, spawn: string | null): string {
  // Environment data a program can set too: a name that is no lineage (`../x`) is not taken.
  const given = threads.getEnvironmentData(WORKER_KEY);
  if (typeof given === 'string') {
    threads.setEnvironmentData(WORKER_KEY, undefined);
    if (isLineageName(given)) return given;
  }
  const parent = threads.getEnvironmentData(LINEAGE_KEY);
  return `${typeof parent === 'string' && isLineageName(parent) ? parent : (spawn ?? '0')}.t${threads.threadId}`;
}

/** The mirror our Worker wrapper passed, taken out of this thread's environment data as the name is. */
function takeMirror(threads: Threads): ChunkMirror | null {
  const given = threads.getEnvironmentData(MIRROR_KEY);
  if (given === undefined) return null;
  threads.setEnvironmentData(MIRROR_KEY, undefined);
  return isMirror(given) ? given : null;
}
