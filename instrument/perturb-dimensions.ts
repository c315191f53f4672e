/**
 * The dimensions perturb mode varies: what differs between platforms and machines, emulated on
 * one machine (DESIGN.md, The hook). Pure data and parsing: the hook (perturb.ts) and the CLI
 * (`detdrift check --perturb`) share it.
 */
import { Stream } from './control.js';

export type Dimension =
  | 'dir-order'
  | 'timers'
  | 'clock'
  | 'timezone'
  | 'locale'
  | 'cpus'
  | 'hostname'
  | 'tmpdir'
  | 'eol';

/** One dimension to vary, and how: `dir-order:case`. */
export interface Perturbation {
  readonly dimension: Dimension;
  readonly variant: string;
}

interface Spec {
  /** the first is the default */
  readonly variants: readonly string[];
  readonly summary: string;
}

const DIMENSIONS: Readonly<Record<Dimension, Spec>> = Object.freeze({
  'dir-order': {
    variants: ['shuffle', 'reverse', 'case'],
    summary:
      'directory listing order (readdir, opendir and Dir reads): shuffled by the seed, reversed, or case-insensitive as NTFS and HFS+ list',
  },
  timers: {
    variants: ['jitter'],
    summary:
      'timers of some delays (chosen by the seed) fall due 1 ms later: timers due together fire in another order',
  },
  clock: {
    variants: ['skew', 'dst', 'resolution'],
    summary:
      'the virtual clock starts in another year (skew), one second before a DST change in America/New_York (dst), or reads in 16 ms steps (resolution)',
  },
  timezone: { variants: ['zone'], summary: 'TZ set to a zone with an unusual offset' },
  locale: { variants: ['lang'], summary: 'LANG and LC_ALL set to another locale' },
  cpus: { variants: ['count'], summary: 'os.cpus() lists another number of CPUs' },
  hostname: { variants: ['name'], summary: 'os.hostname() gives another name' },
  tmpdir: { variants: ['path'], summary: 'os.tmpdir() gives another directory, with a space in its path' },
  eol: { variants: ['crlf'], summary: "os.EOL is '\\r\\n', as on Windows" },
});

/**
 * What `detdrift check --perturb` tries when no dimension is named: every dimension once, each in its first
 * variant.
 */
export const DEFAULT_DIMENSIONS: readonly Dimension[] = Object.freeze(Object.keys(DIMENSIONS) as Dimension[]);

/** Wall-clock starts for `clock:skew`, picked by the seed: each in another year than the virtual epoch's 2024. */
export const SKEW_STARTS: readonly string[] = [
  '2031-06-15T12:00:00.000Z',
  '2038-01-19T03:13:07.000Z',
  '2000-02-29T23:59:59.000Z',
  '2026-12-31T23:59:59.000Z',
];
/** `clock:dst`: one second before 2 a.m. EST turned into 3 a.m. EDT, in the zone the run gets. */
export const DST_START = '2024-03-10T06:59:59.000Z';
const DST_ZONE = 'America/New_York';
const ZONES = ['Pacific/Chatham', 'Asia/Kathmandu', 'America/St_Johns', 'Australia/Lord_Howe', 'Pacific/Kiritimati'];
const LOCALES = ['tr_TR.UTF-8', 'de_DE.UTF-8', 'ar_EG.UTF-8', 'hi_IN.UTF-8', 'fr_CA.UTF-8'];

/**
 * `dir-order,clock:dst` → the perturbations, in the order given. Throws an Error naming the
 * entry, what it got and what is allowed; callers give it their own error code.
 */
export function parsePerturbations(text: string): Perturbation[] {
  const list: Perturbation[] = [];
  for (const entry of text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    const [name, variant, extra] = entry.split(':');
    if (!Object.hasOwn(DIMENSIONS, name!)) {
      throw new Error(`${JSON.stringify(entry)} names no dimension; allowed: ${Object.keys(DIMENSIONS).join(', ')}`);
    }
    const spec = DIMENSIONS[name as Dimension];
    if (extra !== undefined || (variant !== undefined && !spec.variants.includes(variant))) {
      throw new Error(
        `${JSON.stringify(entry)}: ${name} varies as ${spec.variants.map((known) => `${name}:${known}`).join(', ')}`,
      );
    }
    if (list.some((known) => known.dimension === name))
      throw new Error(`${JSON.stringify(entry)}: ${name} is named twice`);
    list.push(Object.freeze({ dimension: name as Dimension, variant: variant ?? spec.variants[0]! }));
  }
  if (list.length === 0) throw new Error(`no dimension named; allowed: ${Object.keys(DIMENSIONS).join(', ')}`);
  return list;
}

export function formatPerturbation(perturbation: Perturbation): string {
  return perturbation.variant === DIMENSIONS[perturbation.dimension].variants[0]
    ? perturbation.dimension
    : `${perturbation.dimension}:${perturbation.variant}`;
}

/**
 * What a perturbed run needs from its parent's environment. The time zone and the locale are read
 * by Node and ICU when the process starts (the locale only then), so the CLI sets them for the
 * child; the hook records what it finds. Picked by the seed, the same on every machine.
 */
export function perturbationEnv(perturbations: readonly Perturbation[], seed: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { dimension, variant } of perturbations) {
    if (dimension === 'timezone') env.TZ = pick(seed, 'timezone', ZONES);
    if (dimension === 'clock' && variant === 'dst') env.TZ = DST_ZONE;
    if (dimension === 'locale') env.LANG = env.LC_ALL = pick(seed, 'locale', LOCALES);
  }
  return env;
}

/** One of `items`, chosen by the seed and the dimension's name. */
export function pick<T>(seed: string, name: string, items: readonly T[]): T {
  return items[new Stream(seed, `perturb:${name}`).next() % items.length]!;
}
