/**
 * diffing/align.ts: calls pair context by context in one pass, the pass stops past the first
 * divergence, and a context that one run ends early or never runs diverges where the other goes on.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compare } from '../../diffing/compare.js';
import { tempDir } from '../helpers.js';
import { alignPair, writePair, type SyntheticEvent } from '../synthetic.js';

type Events = readonly SyntheticEvent[];
const written = (a: Events, b: Events) => writePair(tempDir('detdrift-align-'), a, b);
const aligned = (a: Events, b: Events) => alignPair(tempDir('detdrift-align-'), a, b);

const call = (line: number, ctx: number): SyntheticEvent => ({
  api: 'dateNow',
  at: `app.js:${line}`,
  ctx: [ctx],
  value: line,
});

test('contexts interleaved otherwise pair call for call within each context: an ordering, not a divergence', () => {
  const alignment = aligned(
    [call(1, 1), call(2, 2), call(3, 1), call(4, 2)],
    [call(2, 2), call(4, 2), call(1, 1), call(3, 1)],
  );
  assert.equal(alignment.structural, null);
  assert.deepEqual(
    [0, 1, 2, 3].map((index) => alignment.pairs.partnerOfA(index)),
    [2, 0, 3, 1],
  );
  assert.deepEqual(
    [0, 1, 2, 3].map((index) => alignment.pairs.partnerOfB(index)),
    [1, 3, 0, 2],
  );
  assert.deepEqual([alignment.ordering?.index, alignment.ordering?.a.index, alignment.ordering?.b.index], [0, 0, 0]);
});

test('the pass stops past the first divergence: nothing after it is paired', () => {
  const same = Array.from({ length: 50 }, (_, i) => call(10 + (i % 5), 1));
  const alignment = aligned([...same.slice(0, 20), call(99, 1), ...same.slice(20)], same);
  assert.deepEqual([alignment.structural?.indexA, alignment.structural?.indexB], [20, 20]);
  assert.equal(alignment.pairs.end, 21, "A's calls through the divergence were looked at");
  assert.equal(alignment.pairs.partnerOfA(19), 19);
  assert.equal(alignment.pairs.partnerOfA(21), -1, 'after the divergence');
  assert.deepEqual(
    alignment.structural?.edits.map((edit) => [edit.kind, edit.row.index]),
    [['removed', 20]],
  );
});

test('a context A ends early diverges after its last call; a context only B runs, at the end of A', () => {
  const endsEarly = aligned([call(1, 1), call(2, 2), call(3, 2)], [call(1, 1), call(2, 2), call(5, 1), call(3, 2)]);
  assert.deepEqual(
    [
      endsEarly.structural?.indexA,
      endsEarly.structural?.indexB,
      endsEarly.structural?.a,
      endsEarly.structural?.b?.index,
    ],
    [1, 2, null, 2],
  );
  assert.deepEqual(
    endsEarly.structural?.edits.map((edit) => [edit.kind, edit.row.index]),
    [['added', 2]],
  );

  const onlyB = aligned([call(1, 1)], [call(1, 1), call(7, 3)]);
  assert.deepEqual(
    [onlyB.structural?.indexA, onlyB.structural?.indexB, onlyB.structural?.b?.event.api],
    [1, 1, 'Date.now'],
  );
});

test('a value that parts at the call index where a context of A ends is still the first divergence (the pass looks at that call too)', () => {
  const listing = (value: string): SyntheticEvent => ({ api: 'readdir', at: 'app.js:9', ctx: [2], value });
  const [a, b] = written([call(1, 1), listing('b')], [call(1, 1), listing('z'), call(5, 1)]);
  const first = compare(a, b).diverging?.first;
  assert.deepEqual([first?.reason, first?.indexA, first?.indexB], ['value', 1, 1]);
});

test('a reordering before the first divergence is found when the divergence sits at the same position in both runs', () => {
  const alignment = aligned([call(1, 1), call(2, 2), call(3, 1)], [call(2, 2), call(1, 1), call(9, 1)]);
  assert.deepEqual([alignment.structural?.indexA, alignment.structural?.indexB], [2, 2]);
  assert.equal(alignment.ordering?.index, 0);
});
