/**
 * What every test file shares: fixture projects from object literals, running a program under the
 * real hook in a real child process, and reading the traces it wrote with the real reader.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { SiteDef, ContextDef, TraceHeader, Frame, SourceDef } from '../tracer/format.js';
import { compareLineage } from '../tracer/lineage.js';
import { TraceReader, type TraceEnding, type TraceEvent } from '../tracer/reader.js';

// The suite fails on any process warning.
process.on('warning', (warning) => {
  process.exitCode = 1;
  console.error(`unexpected process warning: ${warning.stack ?? warning.message}`);
});

/** The repository root (tests run from dist/test). */
export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const REGISTER = join(REPO, 'dist', 'instrument', 'register.js');
/** The CommonJS preload `detdrift record` puts into NODE_OPTIONS (`--require`). */
export const PRELOAD = join(REPO, 'dist', 'instrument', 'register.cjs');
/** The bin users run: the CLI's bundle (scripts/bundle-cli.mjs), not tsc's modules. */
export const CLI = join(REPO, 'dist', 'cli', 'bundle', 'main.js');
export const FIXTURES = join(REPO, 'test', 'fixtures');

const made: string[] = [];
after(() => {
  if (process.env.DETDRIFT_KEEP_TEST_DIRS) return;
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A temporary directory removed after the test file. */
export function tempDir(prefix = 'detdrift-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/**
 * A fixture project from an object literal: `{ 'app.js': '...', 'node_modules/dep/package.json':
 * '{...}' }`. Objects are written as JSON. Returns the project's directory.
 */
export function project(files: Record<string, string | object>): string {
  const dir = tempDir('detdrift-project-');
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2) + '\n');
  }
  return dir;
}

/** Whether process `pid` still runs (a signal 0 reaches it). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly cwd: string;
  readonly env?: Record<string, string | undefined>;
  readonly input?: string;
  /** bytes of stdout or stderr past which the child is killed: spawnSync's 1 MiB unless given */
  readonly maxBuffer?: number;
}

/** Runs `node ...args` without the hook: the baseline a hooked run must match. */
export function runPlain(args: readonly string[], options: RunOptions): Run {
  const result = spawnSync(process.execPath, args, {
    cwd: options.cwd,
    env: cleanEnv(options.env),
    input: options.input ?? '',
    encoding: 'utf8',
    maxBuffer: options.maxBuffer,
  });
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

export interface HookedRun extends Run {
  readonly traceDir: string;
  readonly traces: Map<string, Trace>;
}

/** Runs `node ...args` under the real hook (through NODE_OPTIONS, as children inherit it). */
export function runHooked(args: readonly string[], options: RunOptions): HookedRun {
  const traceDir = options.env?.DETDRIFT_TRACE ?? join(tempDir('detdrift-trace-'), 'trace');
  const run = runPlain(args, {
    ...options,
    env: {
      NODE_OPTIONS: `--import="${REGISTER}"`,
      DETDRIFT_TRACE: traceDir,
      DETDRIFT_ROOT: options.cwd,
      ...options.env,
    },
  });
  return { ...run, traceDir, traces: readTraces(traceDir) };
}

/** runHooked for a program expected to succeed: the test fails with its output unless it exits 0. */
export function runHookedOk(args: readonly string[], options: RunOptions): HookedRun {
  const run = runHooked(args, options);
  assert.equal(run.code, 0, `exit ${run.code} (${run.signal ?? 'no signal'})\n${run.stderr}${run.stdout}`);
  return run;
}

function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('DETDRIFT_') && key !== 'NODE_OPTIONS' && key !== 'NODE_TEST_CONTEXT') env[key] = value;
  }
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export interface Trace {
  readonly file: string;
  readonly header: TraceHeader;
  readonly events: TraceEvent[];
  readonly sites: Map<number, SiteDef>;
  readonly contexts: Map<number, ContextDef>;
  readonly sources: Map<string, SourceDef>;
  readonly ending: TraceEnding;
}

/** Reads a whole trace file with the real reader. */
export function readTrace(file: string): Trace {
  const reader = TraceReader.open(file);
  try {
    const events = [...reader.events()];
    const { header, sites, contexts, sources, ending } = reader;
    return { file, header, events, sites, contexts, sources, ending };
  } finally {
    reader.close();
  }
}

/** Every trace in a directory, by lineage (`0`, `0.1`, `0.w1`). */
export function readTraces(dir: string): Map<string, Trace> {
  const traces = new Map<string, Trace>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return traces;
  }
  for (const name of names.sort((a, b) => compareLineage(a.replace(/\.ddtrace$/, ''), b.replace(/\.ddtrace$/, '')))) {
    if (name.endsWith('.ddtrace')) traces.set(name.slice(0, -'.ddtrace'.length), readTrace(join(dir, name)));
  }
  return traces;
}

/** Offsets of a trace's chunks (tracer/format.ts), and where the data starts: for tests that damage one. */
export function chunksOf(bytes: Uint8Array): { start: number; chunks: number[] } {
  const start = bytes.indexOf(0x0a, bytes.indexOf(0x0a) + 1) + 1;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks: number[] = [];
  for (let at = start; at < bytes.length; at += 9 + view.getUint32(at + 1, true)) chunks.push(at);
  return { start, chunks };
}

/** The call site (first kept frame) of an event, or undefined when its stack was not taken. */
export function siteOf(trace: Trace, event: TraceEvent): Frame | undefined {
  return trace.sites.get(event.site)?.frames[0];
}

/** The events of one API (canonical name), optionally of one form. */
export function eventsOf(trace: Trace, api: string, form?: string): TraceEvent[] {
  return trace.events.filter((event) => event.api === api && (form === undefined || event.form === form));
}

/**
 * Runs `args` without and with the hook and asserts the program cannot tell: the same stdout,
 * stderr and exit status. Returns the hooked run for further checks.
 */
export function assertSameAsPlain(args: readonly string[], options: RunOptions, expectedCode: number): HookedRun {
  const plain = runPlain(args, options);
  const hooked = runHooked(args, options);
  assert.equal(plain.code, expectedCode, plain.stderr);
  assert.equal(hooked.stdout, plain.stdout);
  assert.equal(hooked.stderr, plain.stderr);
  assert.equal(hooked.code, plain.code);
  return hooked;
}
