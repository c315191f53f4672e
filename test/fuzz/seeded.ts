/**
 * What the fuzz tests share: a seeded generator, so a failure reproduces exactly, and case counts
 * that stay small in `npm test` and grow under `npm run fuzz` (run.ts).
 *
 *   DETDRIFT_FUZZ_SEED    the seed every generator starts from (default 1); a failure names it
 *   DETDRIFT_FUZZ_SCALE   multiplies every count (run.ts sets 20; default 1)
 *   DETDRIFT_FUZZ_CASES   overrides every count exactly
 */
export const FUZZ_SEED = Number(process.env.DETDRIFT_FUZZ_SEED ?? 1) >>> 0;

/** How many cases a fuzz test runs: `quick` in `npm test`, scaled (up to `most`) by `npm run fuzz`. */
export function caseCount(quick: number, most = Infinity): number {
  const exact = Number(process.env.DETDRIFT_FUZZ_CASES);
  if (Number.isInteger(exact) && exact > 0) return exact;
  const scale = Number(process.env.DETDRIFT_FUZZ_SCALE);
  return Math.min(most, Math.max(quick, Math.round(quick * (Number.isFinite(scale) && scale > 0 ? scale : 1))));
}

export interface Random {
  /** a double in [0, 1) */
  (): number;
  /** an integer in [0, n) */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  bytes(n: number): Uint8Array;
}

/** mulberry32, seeded by FUZZ_SEED and a per-test salt so tests do not share a stream. */
export function seeded(salt: number): Random {
  let state = (FUZZ_SEED ^ Math.imul(salt + 1, 0x9e3779b1)) >>> 0;
  const next = (() => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }) as Random;
  next.int = (n) => Math.floor(next() * n);
  next.pick = (items) => items[next.int(items.length)]!;
  next.bytes = (n) => Uint8Array.from({ length: n }, () => next.int(256));
  return next;
}

/** How a failing case names itself: enough to re-run exactly that case. */
export function caseName(test: string, index: number): string {
  return `${test} case ${index} (DETDRIFT_FUZZ_SEED=${FUZZ_SEED})`;
}
