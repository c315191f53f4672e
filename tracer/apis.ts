/**
 * The table of intercepted APIs. An event stores one byte: the index of its row here. The table is
 * written into every trace header, so a trace names its own APIs and a reader needs no copy of it.
 *
 * `api` is the canonical family name used everywhere (trace, `show`, reports); `form` is the detail
 * (sync, promise, the event of a timer firing) that two runs may legitimately differ in.
 */

/**
 * `output` is what the program shows the world and what runs are compared on; `log` (stderr) is
 * recorded but not compared: a timestamped log line must not make two runs diverge (a child's
 * message to its parent is a log event too); `meta` is
 * detdrift's own note (a replay mismatch).
 */
export type Family = 'clock' | 'random' | 'crypto' | 'timers' | 'fs' | 'process' | 'output' | 'log' | 'meta';

export interface ApiSpec {
  readonly key: string;
  readonly api: string;
  readonly form: string;
  readonly family: Family;
}

/** The form of a child's message to its parent (`process.send`, `parentPort.postMessage`). */
export const MESSAGE_FORM = 'message';

const SPECS = [
  { key: 'dateNow', api: 'Date.now', form: 'call', family: 'clock' },
  { key: 'dateConstruct', api: 'new Date', form: 'construct', family: 'clock' },
  { key: 'dateCall', api: 'Date()', form: 'call', family: 'clock' },
  { key: 'performanceNow', api: 'performance.now', form: 'call', family: 'clock' },
  { key: 'performanceTimeOrigin', api: 'performance.timeOrigin', form: 'get', family: 'clock' },
  { key: 'hrtime', api: 'process.hrtime', form: 'call', family: 'clock' },
  { key: 'hrtimeBigint', api: 'process.hrtime.bigint', form: 'call', family: 'clock' },
  { key: 'uptime', api: 'process.uptime', form: 'call', family: 'clock' },
  // format() and formatToParts() without a date read the clock inside V8, past Date.now
  { key: 'intlFormat', api: 'Intl.DateTimeFormat', form: 'format', family: 'clock' },
  { key: 'intlFormatToParts', api: 'Intl.DateTimeFormat', form: 'formatToParts', family: 'clock' },

  { key: 'mathRandom', api: 'Math.random', form: 'call', family: 'random' },
  // the six characters libuv draws from the OS for a temporary directory's name (value: those six)
  { key: 'mkdtemp', api: 'fs.mkdtemp', form: 'callback', family: 'random' },
  { key: 'mkdtempSync', api: 'fs.mkdtemp', form: 'sync', family: 'random' },
  { key: 'mkdtempPromise', api: 'fs.mkdtemp', form: 'promise', family: 'random' },
  { key: 'mkdtempDisposableSync', api: 'fs.mkdtemp', form: 'disposable', family: 'random' },
  { key: 'mkdtempDisposable', api: 'fs.mkdtemp', form: 'disposable-promise', family: 'random' },

  { key: 'randomUUID', api: 'crypto.randomUUID', form: 'module', family: 'crypto' },
  { key: 'randomUUIDWeb', api: 'crypto.randomUUID', form: 'webcrypto', family: 'crypto' },
  { key: 'randomBytes', api: 'crypto.randomBytes', form: 'sync', family: 'crypto' },
  { key: 'randomBytesCallback', api: 'crypto.randomBytes', form: 'callback', family: 'crypto' },
  { key: 'randomFill', api: 'crypto.randomFill', form: 'callback', family: 'crypto' },
  { key: 'randomFillSync', api: 'crypto.randomFillSync', form: 'sync', family: 'crypto' },
  { key: 'randomInt', api: 'crypto.randomInt', form: 'sync', family: 'crypto' },
  { key: 'randomIntCallback', api: 'crypto.randomInt', form: 'callback', family: 'crypto' },
  { key: 'getRandomValues', api: 'crypto.getRandomValues', form: 'module', family: 'crypto' },
  { key: 'getRandomValuesWeb', api: 'crypto.getRandomValues', form: 'webcrypto', family: 'crypto' },
  // keys drawn from OpenSSL's random source (value: a digest of the key, a pair's public key)
  { key: 'generateKeySync', api: 'crypto.generateKey', form: 'sync', family: 'crypto' },
  { key: 'generateKey', api: 'crypto.generateKey', form: 'callback', family: 'crypto' },
  { key: 'generateKeyWeb', api: 'crypto.generateKey', form: 'webcrypto', family: 'crypto' },
  { key: 'generateKeyPairSync', api: 'crypto.generateKeyPair', form: 'sync', family: 'crypto' },
  { key: 'generateKeyPair', api: 'crypto.generateKeyPair', form: 'callback', family: 'crypto' },

  { key: 'setTimeout', api: 'setTimeout', form: 'schedule', family: 'timers' },
  { key: 'setTimeoutFire', api: 'setTimeout', form: 'fire', family: 'timers' },
  { key: 'setTimeoutPromise', api: 'setTimeout', form: 'promise', family: 'timers' },
  { key: 'setInterval', api: 'setInterval', form: 'schedule', family: 'timers' },
  { key: 'setIntervalFire', api: 'setInterval', form: 'fire', family: 'timers' },
  { key: 'setIntervalPromise', api: 'setInterval', form: 'promise', family: 'timers' },
  { key: 'setImmediate', api: 'setImmediate', form: 'schedule', family: 'timers' },
  { key: 'setImmediateFire', api: 'setImmediate', form: 'fire', family: 'timers' },
  { key: 'setImmediatePromise', api: 'setImmediate', form: 'promise', family: 'timers' },
  { key: 'abortSignalTimeout', api: 'AbortSignal.timeout', form: 'schedule', family: 'timers' },
  { key: 'abortSignalTimeoutFire', api: 'AbortSignal.timeout', form: 'fire', family: 'timers' },

  { key: 'readdir', api: 'fs.readdir', form: 'callback', family: 'fs' },
  { key: 'readdirSync', api: 'fs.readdir', form: 'sync', family: 'fs' },
  { key: 'readdirPromise', api: 'fs.readdir', form: 'promise', family: 'fs' },
  { key: 'opendir', api: 'fs.opendir', form: 'callback', family: 'fs' },
  { key: 'opendirSync', api: 'fs.opendir', form: 'sync', family: 'fs' },
  { key: 'opendirPromise', api: 'fs.opendir', form: 'promise', family: 'fs' },
  { key: 'dirRead', api: 'fs.opendir', form: 'read', family: 'fs' },
  { key: 'stat', api: 'fs.stat', form: 'callback', family: 'fs' },
  { key: 'statSync', api: 'fs.stat', form: 'sync', family: 'fs' },
  { key: 'statPromise', api: 'fs.stat', form: 'promise', family: 'fs' },

  { key: 'hostname', api: 'os.hostname', form: 'call', family: 'process' },
  { key: 'cpus', api: 'os.cpus', form: 'call', family: 'process' },
  { key: 'tmpdir', api: 'os.tmpdir', form: 'call', family: 'process' },
  { key: 'pid', api: 'process.pid', form: 'get', family: 'process' },

  { key: 'stdout', api: 'process.stdout', form: 'write', family: 'output' },
  { key: 'stderr', api: 'process.stderr', form: 'write', family: 'log' },
  { key: 'fileWrite', api: 'fs.writeFile', form: 'write', family: 'output' },
  { key: 'checkpoint', api: 'checkpoint', form: 'call', family: 'output' },
  { key: 'exit', api: 'process.exit', form: 'exit', family: 'output' },
  // A test runner's test (instrument/tests.ts): its start (`file\0full name`), what the runner
  // attributes to it (its console output), and its outcome (`pass`, `skip`, `fail\n<messages>`).
  { key: 'testStart', api: 'test', form: 'start', family: 'output' },
  { key: 'testOutput', api: 'test', form: 'output', family: 'output' },
  { key: 'testEnd', api: 'test', form: 'end', family: 'output' },

  { key: 'replayMismatch', api: 'replay', form: 'mismatch', family: 'meta' },

  // What a child hands its parent (instrument/messages.ts): seen, never compared, as a log line is;
  // the cause search follows a value that crossed this way (diffing/crossing.ts).
  { key: 'ipcSend', api: 'process.send', form: MESSAGE_FORM, family: 'log' },
  { key: 'portMessage', api: 'parentPort.postMessage', form: MESSAGE_FORM, family: 'log' },
] as const satisfies readonly ApiSpec[];

export type ApiKey = (typeof SPECS)[number]['key'];

/** The families replay feeds back and bisection pins: the ones control mode covers. */
export const REPLAYABLE_FAMILIES: ReadonlySet<string> = new Set<Family>(['clock', 'random', 'crypto']);

/**
 * APIs of a replayed family whose values replay cannot feed back (a key is no value to hand a
 * program): pinning every recorded value leaves them fresh, so replay cannot confirm or clear them.
 */
export const UNPINNED_APIS: ReadonlySet<string> = new Set(['crypto.generateKey', 'crypto.generateKeyPair']);

/** Row 0 is reserved: an event byte of 0 is never valid. */
export const API_TABLE: readonly ApiSpec[] = Object.freeze([
  { key: 'reserved', api: '(reserved)', form: '', family: 'output' },
  ...SPECS,
]);

/** `Api.mathRandom` is the id the trace stores for a `Math.random()` call. */
export const Api = Object.freeze(Object.fromEntries(SPECS.map((spec, index) => [spec.key, index + 1]))) as Readonly<
  Record<ApiKey, number>
>;
