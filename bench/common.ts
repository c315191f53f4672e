import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (benchmarks run from dist/bench). */
export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const REGISTER = join(REPO, 'dist', 'instrument', 'register.js');
export const BENCH_FIXTURES = join(REPO, 'bench', 'fixtures');

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A plain-text table with right-aligned numeric columns. */
export function table(headings: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headings.map((heading, column) => Math.max(heading.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  return [line(headings), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}
