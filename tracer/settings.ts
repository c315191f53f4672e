/**
 * The contract between the CLI and the hook: the environment variables the hook reads, what each
 * holds, and how its settings are written into them (`encode`, the CLI and a parent's hook) and
 * read back (`decode`, the hook). Node builtins only: the hook's bundle holds it, and so do the CLI
 * and the report, which name a variable in what they print.
 */
import type { createHash as CreateHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { HookError } from './errors.js';
import { MODES, type Mode, type TraceHeader } from './format.js';
import { isLineageName } from './lineage.js';
import { isDigits } from './primordials.js';

/** Every variable the hook reads, by what it sets. */
export const VARS = Object.freeze({
  traceDir: 'DETDRIFT_TRACE',
  mode: 'DETDRIFT_MODE',
  seed: 'DETDRIFT_SEED',
  root: 'DETDRIFT_ROOT',
  sites: 'DETDRIFT_SITES',
  stacksAt: 'DETDRIFT_STACKS_AT',
  spawn: 'DETDRIFT_SPAWN',
  lockfile: 'DETDRIFT_LOCKFILE',
  hold: 'DETDRIFT_HOLD',
  replay: 'DETDRIFT_REPLAY',
  replayLimit: 'DETDRIFT_REPLAY_LIMIT',
  replayFresh: 'DETDRIFT_REPLAY_FRESH',
  perturb: 'DETDRIFT_PERTURB',
  /** the pid of the detdrift command that records: once it is gone, the hook closes its trace */
  owner: 'DETDRIFT_OWNER',
  /**
   * the pid of the process that named a child (instrument/lineage.ts): tells a name given to us from one
   * passed through
   */
  parent: 'DETDRIFT_PARENT',
  /** where the hook keeps its bytecode (instrument/register.cts, which reads it before the bundle loads) */
  codeCache: 'DETDRIFT_CODE_CACHE',
  /** detdrift's own reliability tests only (instrument/faults.ts) */
  testFault: 'DETDRIFT_TEST_FAULT',
} as const);

export type HookVariable = (typeof VARS)[keyof typeof VARS];
/** The names in VARS: a child the hook starts gets each of them from its parent. */
export const HOOK_VARIABLES: readonly HookVariable[] = Object.freeze(Object.values(VARS));

/** The lockfiles a trace header can name, in the order a project directory is searched for one. */
export const LOCKFILE_NAMES = Object.freeze([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'pnpm-lock.yaml',
  'yarn.lock',
] as const);

/** Which calls get their stack taken (instrument/schedule.ts; the rule exactly: TraceHeader's `sites`). */
export interface SiteSampling {
  /** every call of an API up to this count gets its stack taken */
  readonly first: number;
  /** after that, one call in `every` (counted per API, so two runs sample the same calls) */
  readonly every: number;
  /**
   * the stride doubles after this many samples at it (0: never): a loop of 10^6 draws then takes
   * hundreds of stacks instead of thousands, and its first calls are sampled as densely as before
   */
  readonly doubling: number;
}

/** A call whose stack is taken whatever the sampling: the process, the API's id, its ordinal among that API's calls. */
export interface StackAt {
  readonly lineage: string;
  readonly api: number;
  readonly ordinal: number;
}

/** The hook's settings, read once from the environment (DESIGN.md, The hook). */
export interface HookSettings {
  /** the directory that receives one trace file per process */
  readonly traceDir: string;
  readonly mode: Mode;
  /** kept as given, so `42` and `0x2a` stay apart in the header */
  readonly seed: string | null;
  /** the project root that paths are made relative to; defaults to the cwd */
  readonly root: string;
  /** `FIRST/EVERY[/DOUBLING]` */
  readonly sites: SiteSampling;
  /** `LINEAGE:API:ORDINAL,...`: calls whose stack is taken whatever the sampling (the CLI asks for a divergence's) */
  readonly stacksAt: readonly StackAt[];
  /** the lineage the parent gave this process, if any */
  readonly spawn: string | null;
  /** `FILE:SHA256`, computed once by the CLI, read at its last colon */
  readonly lockfile: TraceHeader['lockfile'];
  /** `bytes`: keep the raw values replay needs (crypto bytes, UUIDs); they can be secrets */
  readonly hold: boolean;
  /** replay mode: the recorded run's trace directory */
  readonly replay: string | null;
  /** replay mode: `LINEAGE:COUNT`, pin only that process's first COUNT values */
  readonly replayLimit: { readonly lineage: string; readonly count: number } | null;
  /** replay mode: `real` (default) or `shift`: what values past the limit are */
  readonly replayFresh: 'real' | 'shift';
  /**
   * perturb mode: what to vary, `dir-order,clock:dst` (instrument/perturb-dimensions.ts parses and
   * checks it when the hook starts); empty otherwise
   */
  readonly perturb: string;
  /**
   * the pid of the detdrift command recording this run, null for a bare hook: a traced process that
   * outlives it (a SIGKILLed check) closes its trace at its next write instead of filling the disk
   */
  readonly owner: number | null;
}

const DEFAULT_TRACE_DIR = '.detdrift/trace';
const DEFAULT_SITES: SiteSampling = Object.freeze({ first: 64, every: 256, doubling: 64 });

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The variables that carry `settings`: only those given, each a string, or undefined where the
 * setting is null or off, so that spreading the result over an environment unsets what a parent
 * had set.
 */
export function encode(settings: Partial<HookSettings>): { [V in HookVariable]?: string } {
  const env: { [V in HookVariable]?: string } = {};
  const put = <K extends keyof HookSettings>(
    key: K,
    write: (value: NonNullable<HookSettings[K]>) => string | undefined,
  ) => {
    if (key in settings) env[VARS[key]] = settings[key] == null ? undefined : write(settings[key]!);
  };
  put('traceDir', (dir) => dir);
  put('mode', (mode) => mode);
  put('seed', (seed) => seed);
  put('root', (root) => root);
  put('sites', ({ first, every, doubling }) => `${first}/${every}/${doubling}`);
  put('stacksAt', (asks) => (asks.length > 0 ? encodeStacksAt(asks) : undefined));
  put('spawn', (spawn) => spawn);
  put('lockfile', ({ file, sha256 }) => `${file}:${sha256}`);
  put('hold', (hold) => (hold ? 'bytes' : undefined));
  put('replay', (dir) => dir);
  put('replayLimit', ({ lineage, count }) => `${lineage}:${count}`);
  put('replayFresh', (fresh) => fresh);
  put('perturb', (perturb) => perturb || undefined);
  put('owner', (owner) => String(owner));
  return env;
}

/** DETDRIFT_STACKS_AT's value for these calls, which the report also shows. */
export function encodeStacksAt(asks: readonly StackAt[]): string {
  return asks.map(({ lineage, api, ordinal }) => `${lineage}:${api}:${ordinal}`).join(',');
}

/**
 * The settings `env` carries, paths resolved against `cwd`; throws a HookError naming a variable that holds
 * no valid value.
 */
export function decode(env: Env, cwd: string): HookSettings {
  const read = (key: keyof HookSettings) => env[VARS[key]];
  const root = read('root') ? resolve(cwd, read('root')!) : cwd;
  const traceDir = read('traceDir') || DEFAULT_TRACE_DIR;
  const mode = (read('mode') || 'observe') as Mode;
  if (!MODES.includes(mode)) {
    throw new HookError(
      'ERR_DETDRIFT_MODE',
      `${VARS.mode} is ${JSON.stringify(mode)}; this version records in: ${MODES.join(', ')}`,
    );
  }
  const replay = read('replay') ? resolve(cwd, read('replay')!) : null;
  if (mode === 'replay' && replay === null) {
    throw new HookError(
      'ERR_DETDRIFT_REPLAY',
      `${VARS.mode} is "replay" but ${VARS.replay} (the recorded trace directory) is not set`,
    );
  }
  return Object.freeze({
    traceDir: isAbsolute(traceDir) ? traceDir : resolve(cwd, traceDir),
    mode,
    seed: read('seed') ?? null,
    root,
    sites: decodeSites(read('sites')),
    stacksAt: decodeStacksAt(read('stacksAt')),
    spawn: decodeSpawn(read('spawn')),
    lockfile: decodeLockfile(read('lockfile')),
    hold: read('hold') === 'bytes',
    replay,
    replayLimit: decodeLimit(read('replayLimit')),
    replayFresh: read('replayFresh') === 'shift' ? 'shift' : 'real',
    perturb: mode === 'perturb' ? (read('perturb') ?? '') : '',
    owner: isDigits(read('owner') ?? '') ? Number(read('owner')) : null,
  });
}

function decodeSites(value: string | undefined): SiteSampling {
  if (!value) return DEFAULT_SITES;
  // split by hand, as the other settings: the hook decodes them before the program runs, and a
  // regular expression's match would leave the program a RegExp.lastMatch of the hook's
  const parts = value.split('/');
  const match = (parts.length === 2 || parts.length === 3) && parts.every(isDigits) ? parts : null;
  const every = Number(match?.[1]);
  if (!match || every < 1) {
    throw new HookError(
      'ERR_DETDRIFT_SITES',
      `${VARS.sites} is ${JSON.stringify(value)}; expected FIRST/EVERY[/DOUBLING], e.g. 64/256/64 (EVERY at least 1; without DOUBLING, or with 0, the stride is fixed)`,
    );
  }
  // FIRST/EVERY alone keeps the meaning it had before the stride could double: a fixed stride.
  return Object.freeze({ first: Number(match[0]), every, doubling: match[2] === undefined ? 0 : Number(match[2]) });
}

function decodeStacksAt(value: string | undefined): StackAt[] {
  if (!value) return [];
  return value.split(',').map((entry) => {
    const [rest, ordinal] = lastField(entry);
    const [lineage, api] = lastField(rest);
    if (!lineage || !isDigits(api) || !isDigits(ordinal))
      throw new HookError(
        'ERR_DETDRIFT_STACKS_AT',
        `${VARS.stacksAt} has ${JSON.stringify(entry)}; expected LINEAGE:API:ORDINAL, e.g. 0:5:1234`,
      );
    return { lineage, api: Number(api), ordinal: Number(ordinal) };
  });
}

/** DETDRIFT_SPAWN: a lineage name (tracer/lineage.ts), which names a file in the trace folder and nothing outside it. */
function decodeSpawn(value: string | undefined): string | null {
  if (!value) return null;
  if (!isLineageName(value))
    throw new HookError(
      'ERR_DETDRIFT_SPAWN',
      `${VARS.spawn} is ${JSON.stringify(value)}; expected a lineage name: segments of letters, digits, _ + - ~ @ joined by dots, e.g. 0.2`,
    );
  return value;
}

function decodeLockfile(value: string | undefined): HookSettings['lockfile'] {
  if (!value) return null;
  const at = value.lastIndexOf(':');
  return at > 0 ? { file: value.slice(0, at), sha256: value.slice(at + 1) } : null;
}

function decodeLimit(value: string | undefined): HookSettings['replayLimit'] {
  if (!value) return null;
  const [lineage, count] = lastField(value);
  if (!lineage || !isDigits(count))
    throw new HookError(
      'ERR_DETDRIFT_REPLAY',
      `${VARS.replayLimit} is ${JSON.stringify(value)}; expected LINEAGE:COUNT, e.g. 0:12`,
    );
  return { lineage, count: Number(count) };
}

/** `text` split at its last `:`: what comes before (empty without one) and after. */
function lastField(text: string): [string, string] {
  const at = text.lastIndexOf(':');
  return at < 0 ? ['', text] : [text.slice(0, at), text.slice(at + 1)];
}

/**
 * Digests remembered by a file's path and identity (its inode, size, modification and change
 * times: every write moves the change time, which no program can set back).
 */
export interface DigestMemo {
  get(path: string, identity: string): string | null;
  set(path: string, identity: string, sha256: string): void;
}

/**
 * The first of LOCKFILE_NAMES in `root` and its SHA-256, which tells two traces' dependency trees
 * apart. With a `memo`, a lockfile unchanged since it was last digested is not read again.
 */
export function digestLockfile(root: string, memo?: DigestMemo): TraceHeader['lockfile'] {
  for (const file of LOCKFILE_NAMES) {
    const path = join(root, file);
    if (!existsSync(path)) continue;
    if (!memo) return { file, sha256: sha256Of(readFileSync(path)) };
    const fd = openSync(path, 'r');
    try {
      const identity = identityOf(fstatSync(fd));
      const known = memo.get(path, identity);
      if (known !== null) return { file, sha256: known };
      const sha256 = sha256Of(readFileSync(fd));
      // remembered only if the file did not change while it was read
      if (identityOf(fstatSync(fd)) === identity) memo.set(path, identity, sha256);
      return { file, sha256 };
    } finally {
      closeSync(fd);
    }
  }
  return null;
}

function identityOf({ ino, size, mtimeMs, ctimeMs }: Stats): string {
  return `${ino}-${size}-${mtimeMs}-${ctimeMs}`;
}

function sha256Of(bytes: Buffer): string {
  // node:crypto loaded here, not with this module: the hook starts without it (instrument/deferred.ts)
  const { createHash } = process.getBuiltinModule('node:crypto') as { createHash: typeof CreateHash };
  return createHash('sha256').update(bytes).digest('hex');
}
