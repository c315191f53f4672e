import fs from 'node:fs';
import { sep } from 'node:path';
import { digestString, digestHex } from '../tracer/digest.js';
import { ArrayFilter, ArraySort, MathFloor, StringSlice, StringToUpperCase, Utf8Text } from '../tracer/primordials.js';
import { VIRTUAL_EPOCH_MS } from './control.js';
import {
  DST_START,
  SKEW_STARTS,
  formatPerturbation,
  pick,
  type Dimension,
  type Perturbation,
} from './perturb-dimensions.js';
import { real, realOs, relativePath, SafeMap } from './real.js';

/** One perturbation as the trace header records it: what was varied, and to what. */
export interface PerturbRecord {
  readonly dimension: string;
  readonly variant: string;
  readonly detail: string;
}

/** Windows reports its classic 15.6 ms tick; `clock:resolution` reads every clock in steps of it, rounded. */
const RESOLUTION_MS = 16;
const CPU_COUNTS = [1, 2, 3, 6, 64];

// Saved when the hook loads, before any family patches fs: the snapshot of a Dir the program
// iterates is read with it and never recorded (real.ts holds the others, node:os's in realOs). A
// sync readdir creates no async resource; a second Dir would, and shift the context keys of
// everything after it.
const readdirSync = fs.readdirSync;

/**
 * Perturb mode's decisions (DETDRIFT_PERTURB, DETDRIFT_SEED): control mode's seeded sources plus,
 * in the named dimensions, what another platform or machine would give. Every choice is a function
 * of the seed, so a perturbed run is as repeatable as a controlled one. The families ask it:
 * fs reorders listings, clock shifts or coarsens the virtual clock, timers move some delays, process
 * returns another host name, CPU count or temporary directory. The real call still runs first, so
 * arguments are validated and errors thrown exactly as without the hook.
 */
export class Perturber {
  readonly perturbations: readonly Perturbation[];
  private readonly seed: string;
  private readonly variants: Map<Dimension, string>;
  private tmp: string | null = null;
  /** clock:skew and clock:dst: how far the wall clock is moved from the virtual epoch */
  private readonly wallShift: number;

  constructor(seed: string, perturbations: readonly Perturbation[]) {
    this.seed = seed;
    this.perturbations = perturbations;
    this.variants = new SafeMap(perturbations.map(({ dimension, variant }) => [dimension, variant]));
    // Worked out once: the clocks read it on every call.
    const start =
      this.variant('clock') === 'skew'
        ? pick(seed, 'clock', SKEW_STARTS)
        : this.variant('clock') === 'dst'
          ? DST_START
          : null;
    this.wallShift = start === null ? 0 : real.Date.parse(start) - VIRTUAL_EPOCH_MS;
  }

  /** The variant of `dimension` this run varies, or null when it leaves the dimension alone. */
  variant(dimension: Dimension): string | null {
    return this.variants.get(dimension) ?? null;
  }

  /**
   * A directory listing in the perturbed order. `shuffle` sorts by a digest of seed and name, so a
   * readdir and a Dir of one directory agree, and never gives back the order it got (two or more
   * entries); `reverse` reverses it; `case` sorts by the upper-cased name, as NTFS lists.
   */
  order<T>(entries: readonly T[], nameOf: (entry: T) => string): T[] {
    // loops and the saved sort: this runs inside the program's readdir, whose Array.prototype it may have replaced
    const variant = this.variant('dir-order');
    const count = entries.length;
    const list: T[] = [];
    for (let i = 0; i < count; i++) list[i] = entries[variant === 'reverse' ? count - 1 - i : i]!;
    if (variant === null || variant === 'reverse' || count < 2) return list;
    const keyed: Array<{ entry: T; index: number; key: string }> = [];
    for (let i = 0; i < count; i++)
      keyed[i] = { entry: list[i]!, index: i, key: this.sortKey(variant, nameOf(list[i]!)) };
    ArraySort(keyed, (x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : x.index - y.index));
    let unmoved = true;
    for (let i = 0; i < count; i++) {
      list[i] = keyed[i]!.entry;
      if (keyed[i]!.index !== i) unmoved = false;
    }
    // a shuffle that kept the order it got moves the first entry last
    if (variant === 'shuffle' && unmoved) for (let i = 0; i < count; i++) list[i] = keyed[(i + 1) % count]!.entry;
    return list;
  }

  /**
   * The entries of the directory a program's Dir reads, in the perturbed order: a readdir of it with
   * the Dir's encoding and recursion, read with the saved real fs. Its order starts from readdir's
   * (sorted on Unix), so `reverse` reverses that, and `shuffle` orders a readdir and a Dir alike.
   */
  dirSnapshot(path: unknown, options: unknown): fs.Dirent[] {
    const { encoding, recursive } = (options ?? {}) as { encoding?: unknown; recursive?: unknown };
    const entries = real.apply(readdirSync, fs, [
      path,
      { withFileTypes: true, encoding, recursive: recursive === true },
    ]) as fs.Dirent[];
    const base = typeof path === 'string' ? path : null;
    return this.order(entries, (entry) => {
      const name = typeof entry.name === 'string' ? entry.name : Utf8Text(entry.name as Buffer);
      const parent = entry.parentPath;
      return base !== null && parent && parent !== base ? `${relativePath(base, parent)}${sep}${name}` : name;
    });
  }

  /** A wall-clock reading (ms since 1970) of the virtual clock, as the perturbed machine shows it. */
  wall(ms: number): number {
    if (this.variant('clock') === 'resolution') return MathFloor(ms / RESOLUTION_MS) * RESOLUTION_MS;
    return ms + this.wallShift;
  }

  /** A monotonic reading (ns since the virtual start): only its resolution is perturbed. */
  monotonic(ns: number): number {
    return this.variant('clock') === 'resolution' ? MathFloor(ns / (RESOLUTION_MS * 1e6)) * RESOLUTION_MS * 1e6 : ns;
  }

  /** Whether the clocks read perturbed values: they are then recorded as uncontrolled, as a real clock's are. */
  get clock(): boolean {
    return this.variants.has('clock');
  }

  /** Extra milliseconds for a timer of `delay`: 0 or 1, the same for every timer of that delay. */
  timerJitter(delay: number): number {
    if (this.variant('timers') === null) return 0;
    return digestString(`${this.seed}\u0000timers\u0000${delay}`).low & 1;
  }

  cpuCount(real: number): number {
    return pick(
      this.seed,
      'cpus',
      ArrayFilter(CPU_COUNTS, (count) => count !== real),
    );
  }

  hostname(real: string): string {
    const name = `DESKTOP-${StringToUpperCase(StringSlice(this.hex('hostname'), 0, 7))}`;
    return name === real ? `${name}-2` : name;
  }

  /** A directory below the real one, created on first use, with a space and capitals in its name. */
  tmpdir(base: string): string {
    if (this.tmp === null) {
      this.tmp = real.pathJoin(base, `detdrift Perturbed ${StringSlice(this.hex('tmpdir'), 0, 8)}`, 'Temp');
      real.mkdirSync(this.tmp, { recursive: true });
    }
    return this.tmp;
  }

  /** What the header records: each perturbation, with the values this run actually got. */
  describe(env: NodeJS.ProcessEnv): PerturbRecord[] {
    return this.perturbations.map((perturbation) => ({
      dimension: perturbation.dimension,
      variant: perturbation.variant,
      detail: this.detail(perturbation, env),
    }));
  }

  private detail({ dimension, variant }: Perturbation, env: NodeJS.ProcessEnv): string {
    switch (dimension) {
      case 'dir-order':
        return `listings ${variant === 'case' ? 'in case-insensitive order' : variant === 'reverse' ? 'reversed' : 'shuffled by the seed'}`;
      case 'timers':
        return 'delays chosen by the seed fall due 1 ms later';
      case 'clock':
        return variant === 'resolution'
          ? `clocks in ${RESOLUTION_MS} ms steps`
          : `wall clock starts at ${new real.Date(this.wall(VIRTUAL_EPOCH_MS)).toISOString()}${variant === 'dst' ? ` (TZ=${env.TZ ?? 'unset'})` : ''}`;
      case 'timezone':
        return `TZ=${env.TZ ?? 'unset'}`;
      case 'locale':
        return `LANG=${env.LANG ?? 'unset'}, ICU locale ${new Intl.DateTimeFormat().resolvedOptions().locale}`;
      case 'cpus': {
        const { os, cpus } = realOs();
        const count = real.apply(cpus, os, []).length;
        return `os.cpus().length ${this.cpuCount(count)} instead of ${count}`;
      }
      case 'hostname':
        return `os.hostname() ${this.hostname(real.apply(realOs().hostname, realOs().os, []))}`;
      case 'tmpdir':
        return `os.tmpdir() ${this.tmpdir(real.apply(realOs().tmpdir, realOs().os, []))}`;
      case 'eol':
        return "os.EOL '\\r\\n'";
      default:
        return formatPerturbation({ dimension, variant });
    }
  }

  private sortKey(variant: string, name: string): string {
    return variant === 'case' ? StringToUpperCase(name) : this.hex(`dir-order\u0000${name}`);
  }

  private hex(name: string): string {
    const { high, low } = digestString(`${this.seed}\u0000${name}`);
    return digestHex(high, low);
  }
}
