import { isAbsolute, resolve } from 'node:path';
import type { Mode } from '../tracer/format.js';
import { HookError } from './patch.js';
import { parsePerturbations, type Perturbation } from './perturb-dimensions.js';
import type { SitePolicy } from './recorder.js';

/** The hook's settings, read once from the environment (DESIGN.md, The hook). */
export interface HookSettings {
  /** DETDRIFT_TRACE: the directory that receives one trace file per process */
  readonly traceDir: string;
  /** DETDRIFT_MODE */
  readonly mode: Mode;
  /** DETDRIFT_SEED: kept as given, so `42` and `0x2a` stay apart in the header */
  readonly seed: string | null;
  /** DETDRIFT_ROOT: the project root that paths are made relative to; defaults to the cwd */
  readonly root: string;
  /** DETDRIFT_SITES=`first/every[/doubling]`: which calls get their stack taken */
  readonly sites: SitePolicy;
  /** DETDRIFT_STACKS_AT=`lineage:api:ordinal,...`: calls whose stack is taken whatever the sampling (the CLI asks for a divergence's) */
  readonly stacksAt: ReadonlyArray<{ readonly lineage: string; readonly api: number; readonly ordinal: number }>;
  /** DETDRIFT_SPAWN: the lineage the parent gave this process, if any */
  readonly spawn: string | null;
  /** DETDRIFT_LOCKFILE=`file:sha256`, computed once by the CLI */
  readonly lockfile: { readonly file: string; readonly sha256: string } | null;
  /** DETDRIFT_HOLD=bytes: keep the raw values replay needs (crypto bytes, UUIDs); they can be secrets */
  readonly hold: boolean;
  /** replay mode: DETDRIFT_REPLAY, the recorded run's trace directory */
  readonly replay: string | null;
  /** replay mode: DETDRIFT_REPLAY_LIMIT=`lineage:k`, pin only that process's first k values */
  readonly replayLimit: { readonly lineage: string; readonly count: number } | null;
  /** replay mode: DETDRIFT_REPLAY_FRESH=`real` (default) or `shift`: what values past the limit are */
  readonly replayFresh: 'real' | 'shift';
  /** perturb mode: DETDRIFT_PERTURB=`dir-order,clock:dst`, what to vary (perturb-dimensions.ts); empty otherwise */
  readonly perturb: readonly Perturbation[];
}

export const DEFAULT_TRACE_DIR = '.detdrift/trace';
export const DEFAULT_SITES: SitePolicy = Object.freeze({ first: 64, every: 256, doubling: 64 });
const MODES: readonly Mode[] = ['observe', 'control', 'replay', 'perturb'];

export function readSettings(env: NodeJS.ProcessEnv, cwd: string): HookSettings {
  const root = env.DETDRIFT_ROOT ? resolve(cwd, env.DETDRIFT_ROOT) : cwd;
  const traceDir = env.DETDRIFT_TRACE || DEFAULT_TRACE_DIR;
  const mode = (env.DETDRIFT_MODE || 'observe') as Mode;
  if (!MODES.includes(mode)) {
    throw new HookError('ERR_DETDRIFT_MODE', `DETDRIFT_MODE is ${JSON.stringify(mode)}; this version records in: ${MODES.join(', ')}`);
  }
  const replay = env.DETDRIFT_REPLAY ? resolve(cwd, env.DETDRIFT_REPLAY) : null;
  if (mode === 'replay' && replay === null) {
    throw new HookError('ERR_DETDRIFT_REPLAY', 'DETDRIFT_MODE is "replay" but DETDRIFT_REPLAY (the recorded trace directory) is not set');
  }
  return Object.freeze({
    traceDir: isAbsolute(traceDir) ? traceDir : resolve(cwd, traceDir),
    mode,
    seed: env.DETDRIFT_SEED ?? null,
    root,
    sites: parseSites(env.DETDRIFT_SITES),
    stacksAt: parseStacksAt(env.DETDRIFT_STACKS_AT),
    spawn: env.DETDRIFT_SPAWN || null,
    lockfile: parseLockfile(env.DETDRIFT_LOCKFILE),
    hold: env.DETDRIFT_HOLD === 'bytes',
    replay,
    replayLimit: parseLimit(env.DETDRIFT_REPLAY_LIMIT),
    replayFresh: env.DETDRIFT_REPLAY_FRESH === 'shift' ? 'shift' : 'real',
    perturb: mode === 'perturb' ? parsePerturb(env.DETDRIFT_PERTURB) : [],
  });
}

/** Read in perturb mode only, which needs at least one dimension. */
function parsePerturb(value: string | undefined): Perturbation[] {
  try {
    return parsePerturbations(value ?? '');
  } catch (error) {
    throw new HookError('ERR_DETDRIFT_PERTURB', `DETDRIFT_PERTURB is ${JSON.stringify(value ?? '')}: ${(error as Error).message}`, { cause: error });
  }
}

function parseSites(value: string | undefined): SitePolicy {
  if (!value) return DEFAULT_SITES;
  const match = /^(\d+)\/(\d+)(?:\/(\d+))?$/.exec(value);
  const every = Number(match?.[2]);
  if (!match || every < 1) {
    throw new HookError('ERR_DETDRIFT_SITES', `DETDRIFT_SITES is ${JSON.stringify(value)}; expected FIRST/EVERY[/DOUBLING], e.g. 64/256/64 (EVERY at least 1; without DOUBLING, or with 0, the stride is fixed)`);
  }
  // FIRST/EVERY alone keeps the meaning it had before the stride could double: a fixed stride.
  return Object.freeze({ first: Number(match[1]), every, doubling: match[3] === undefined ? 0 : Number(match[3]) });
}

function parseStacksAt(value: string | undefined): HookSettings['stacksAt'] {
  if (!value) return [];
  return value.split(',').map((entry) => {
    const match = /^(.+):(\d+):(\d+)$/.exec(entry);
    if (!match) throw new HookError('ERR_DETDRIFT_STACKS_AT', `DETDRIFT_STACKS_AT has ${JSON.stringify(entry)}; expected LINEAGE:API:ORDINAL, e.g. 0:5:1234`);
    return { lineage: match[1]!, api: Number(match[2]), ordinal: Number(match[3]) };
  });
}

/** DETDRIFT_LOCKFILE's `file:sha256` form, which parseLockfile reads at its last colon. */
export function lockfileVariable(lockfile: NonNullable<HookSettings['lockfile']>): string {
  return `${lockfile.file}:${lockfile.sha256}`;
}

function parseLockfile(value: string | undefined): HookSettings['lockfile'] {
  if (!value) return null;
  const at = value.lastIndexOf(':');
  return at > 0 ? { file: value.slice(0, at), sha256: value.slice(at + 1) } : null;
}

function parseLimit(value: string | undefined): HookSettings['replayLimit'] {
  if (!value) return null;
  const match = /^(.+):(\d+)$/.exec(value);
  if (!match) throw new HookError('ERR_DETDRIFT_REPLAY', `DETDRIFT_REPLAY_LIMIT is ${JSON.stringify(value)}; expected LINEAGE:COUNT, e.g. 0:12`);
  return { lineage: match[1]!, count: Number(match[2]) };
}
