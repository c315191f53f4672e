/** Trace files are named by spawn lineage; this orders them the same way everywhere, and says what a name may be. */
import { StringCharCodeAt } from './primordials.js';

/** Longer names would leave no room for a `~N` suffix and the extension in a file name's 255 bytes. */
const MAX_NAME = 200;

/**
 * Whether `name` is a lineage that names a file inside its trace folder: dot-separated segments of
 * letters, digits and `_ + - ~ @`, none empty. A lineage comes from the environment (DETDRIFT_SPAWN)
 * and from a worker's environment data, which a program can set: a `/` or `..` there would write a
 * trace outside DETDRIFT_TRACE. A loop, not a regular expression: the hook runs it in the program's
 * process, whose RegExp statics a match would set.
 */
export function isLineageName(name: string): boolean {
  if (name.length === 0 || name.length > MAX_NAME) return false;
  let segment = 0;
  for (let i = 0; i < name.length; i++) {
    const code = StringCharCodeAt(name, i);
    if (code === 46) {
      if (segment === 0) return false;
      segment = 0;
      continue;
    }
    const allowed =
      (code >= 48 && code <= 57) ||
      (code >= 65 && code <= 90) ||
      (code >= 97 && code <= 122) ||
      code === 95 || // _
      code === 43 || // +
      code === 45 || // -
      code === 126 || // ~
      code === 64; // @
    if (!allowed) return false;
    segment++;
  }
  return segment > 0;
}

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
