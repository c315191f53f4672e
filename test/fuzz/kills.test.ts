/**
 * No trace lost (issue #9, item 2): a traced process killed at seeded random points, by SIGKILL
 * or by a signal it does not handle, dies as without the hook (which listens to no signal,
 * issue #22) and leaves a trace the real reader reads without an error: a prefix of whole chunks
 * marked incomplete. The fixture
 * prints a progress line after each burst of draws; the test kills it after a random number of
 * lines, so the kill lands at a random point of its work, with no sleep.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { TraceError } from '../../tracer/errors.js';
import { TraceReader, type TraceEnding, type TraceEvent } from '../../tracer/reader.js';
import { project, REGISTER, tempDir } from '../helpers.js';
import { caseCount, caseName, seeded } from './seeded.js';

const BURSTS = 24;
/** Events per chunk: a kill leaves whole chunks of this many events. */
const CAPACITY = 8192;
const KILLS = caseCount(25, 100);
const PARALLEL = 4;

/** `node burst.mjs`: BURSTS bursts of 1000 draws, a line after each, then it waits to be killed. */
const BURST = `
  let i = 0;
  const step = () => {
    for (let k = 0; k < 500; k++) { Date.now(); Math.random(); }
    console.log('progress ' + i);
    if (++i < ${BURSTS}) setImmediate(step); else process.stdin.resume();
  };
  step();
`;

const SIGNALS: readonly NodeJS.Signals[] = ['SIGKILL', 'SIGKILL', 'SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP'];

interface Killed {
  readonly signal: NodeJS.Signals;
  readonly after: number;
  readonly exit: { code: number | null; signal: NodeJS.Signals | null };
  readonly lines: number;
  readonly traceDir: string;
}

/** Runs the fixture hooked and sends `signal` once it printed `after` lines. */
function killAfter(dir: string, after: number, signal: NodeJS.Signals): Promise<Killed> {
  const traceDir = join(tempDir('detdrift-kill-'), 'trace');
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('DETDRIFT_') && key !== 'NODE_OPTIONS' && key !== 'NODE_TEST_CONTEXT') env[key] = value;
  }
  Object.assign(env, { NODE_OPTIONS: `--import="${REGISTER}"`, DETDRIFT_TRACE: traceDir, DETDRIFT_ROOT: dir });
  const child = spawn(process.execPath, ['burst.mjs'], { cwd: dir, env, stdio: ['pipe', 'pipe', 'inherit'] });
  let stdout = '';
  let sent = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (!sent && stdout.split('\n').length - 1 >= after) {
      sent = true;
      child.kill(signal);
    }
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, killedBy) => {
      resolve({ signal, after, exit: { code, signal: killedBy }, lines: stdout.split('\n').length - 1, traceDir });
    });
  });
}

/** Reads a trace whole with the real reader: its events and how it ended, or the error it threw. */
function read(file: string): { events: TraceEvent[]; ending: TraceEnding } | { error: unknown } {
  try {
    const reader = TraceReader.open(file);
    try {
      return { events: [...reader.events()], ending: reader.ending };
    } finally {
      reader.close();
    }
  } catch (error) {
    return { error };
  }
}

function check(killed: Killed, name: string): void {
  const result = read(join(killed.traceDir, '0.ddtrace'));
  if ('error' in result) {
    const code = result.error instanceof TraceError ? result.error.code : String(result.error);
    assert.fail(`${name}: ${killed.signal} after ${killed.after} lines: the reader refused the trace: ${code}`);
  }
  const { events, ending } = result;
  const progress = events
    .filter((event) => event.api === 'process.stdout')
    .map((event) => (event.value as { head: string }).head);
  assert.deepEqual(
    progress,
    progress.map((_line, i) => `progress ${i}\n`),
    `${name}: the lines in call order, none skipped`,
  );
  const clock = events.filter((event) => event.api === 'Date.now').map((event) => event.value as number);
  assert.ok(
    clock.every((value, i) => i === 0 || value >= clock[i - 1]!),
    `${name}: clock values in call order`,
  );
  assert.deepEqual(killed.exit, { code: null, signal: killed.signal }, name);
  assert.equal(ending.complete, false, `${name}: a killed run has no end record`);
  // Every chunk is one write: without a torn one, the prefix is whole chunks.
  if (!ending.truncated) assert.equal(events.length % CAPACITY, 0, `${name}: ${events.length} events`);
  assert.ok(progress.length <= killed.lines, name);
}

test(`a traced process killed at ${KILLS} seeded random points leaves a readable trace every time`, {
  timeout: 600_000,
}, async () => {
  const dir = project({ 'burst.mjs': BURST });
  const random = seeded(2);
  const plan = Array.from({ length: KILLS }, () => ({ after: 1 + random.int(BURSTS), signal: random.pick(SIGNALS) }));
  const seen = { SIGKILL: 0, other: 0 };
  let next = 0;
  const worker = async () => {
    while (next < plan.length) {
      const index = next++;
      const { after, signal } = plan[index]!;
      const killed = await killAfter(dir, after, signal);
      check(killed, caseName('kill', index));
      if (signal === 'SIGKILL') seen.SIGKILL++;
      else seen.other++;
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  assert.ok(seen.SIGKILL > 0 && seen.other > 0, 'both kinds of death were tried');
});
