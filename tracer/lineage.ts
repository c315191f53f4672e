/** Trace files are named by spawn lineage; this orders them the same way everywhere. */

/**
 * Orders lineages segment by segment: spawned children (`0.2`) by number, then worker threads
 * (`0.w1`), a collision suffix (`0~2`) after the name it collided with. Byte order would put
 * `0.10` before `0.2`, and `readdir` order differs across platforms.
 */
export function compareLineage(a: string, b: string): number {
  const left = a.split('.');
  const right = b.split('.');
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const order = compareKeys(segmentKey(left[i]!), segmentKey(right[i]!));
    if (order !== 0) return order;
  }
  return left.length - right.length || (a < b ? -1 : a > b ? 1 : 0);
}

type Key = readonly (number | string)[];

/** Spawned children (`2`), then workers (`w1`, `t3`), then test files (`@a_test_mjs`), then anything else. */
function segmentKey(segment: string): Key {
  const match = /^([wt]?)(\d+)(?:~(\d+))?$/.exec(segment);
  if (match) return [match[1] === '' ? 0 : match[1] === 'w' ? 1 : 2, Number(match[2]), Number(match[3] ?? 1), ''];
  const file = /^@(.+?)(?:~(\d+))?$/.exec(segment);
  if (file) return [3, 0, Number(file[2] ?? 1), file[1]!];
  return [4, 0, 0, segment]; // a hand-renamed file sorts last, by its text
}

function compareKeys(a: Key, b: Key): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i]! < b[i]!) return -1;
    if (a[i]! > b[i]!) return 1;
  }
  return 0;
}
