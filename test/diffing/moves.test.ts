/**
 * diffing/moves.ts through align: a call one run makes in one async context and the other in
 * another (the work of whichever callback came second) pairs across contexts, so completion order
 * is no divergence; a call only one run makes, or calls swapped within one context, still are.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compare } from '../../diffing/compare.js';
import { tempDir } from '../helpers.js';
import { alignPair, writePair, type SyntheticEvent } from '../synthetic.js';

type Events = readonly SyntheticEvent[];
const written = (a: Events, b: Events) => writePair(tempDir('detdrift-moves-'), a, b);
const aligned = (a: Events, b: Events) => alignPair(tempDir('detdrift-moves-'), a, b);

const call = (line: number, ctx: number): SyntheticEvent => ({ api: 'dateNow', at: `app.js:${line}`, ctx: [ctx] });
/** A draw at one site: `control` 1 when control mode decided it. */
const draw = (ctx: number, value: number, control = 0): SyntheticEvent => {
  return { api: 'mathRandom', at: 'app.js:9', ctx: [ctx], value, control };
};

test('the draw of whichever callback came second, made in the other context, pairs across contexts', () => {
  const alignment = aligned([draw(2, 0.1)], [draw(1, 0.2)]);
  assert.equal(alignment.structural, null);
  assert.equal(alignment.moved, 1);
  assert.equal(alignment.pairs.partnerOfA(0), 0);
  assert.equal(alignment.ordering?.index, 0);
});

test("each callback's own calls in its context and the shared one moved: the two streams agree", () => {
  const a = [call(1, 1), call(2, 2), call(3, 2)];
  const b = [call(2, 2), call(1, 1), call(3, 1)];
  const alignment = aligned(a, b);
  assert.equal(alignment.structural, null);
  assert.equal(alignment.moved, 1);
  assert.deepEqual(
    [0, 1, 2].map((index) => alignment.pairs.partnerOfA(index)),
    [1, 0, 2],
  );
});

test('a move far apart (more calls between than a short look sees) still pairs', () => {
  const work = (ctx: number, line: number) => Array.from({ length: 5000 }, () => call(line, ctx));
  const alignment = aligned([...work(1, 1), ...work(2, 2), call(3, 2)], [...work(2, 2), ...work(1, 1), call(3, 1)]);
  assert.equal(alignment.structural, null);
  assert.equal(alignment.moved, 1);
});

test('a call only one run makes still diverges where it is, with moves elsewhere', () => {
  const a = [call(1, 1), call(5, 1), call(2, 2), call(3, 2)];
  const b = [call(1, 1), call(2, 2), call(3, 3)];
  const alignment = aligned(a, b);
  assert.deepEqual([alignment.structural?.indexA, alignment.structural?.indexB], [1, 1]);
  assert.deepEqual(
    alignment.structural?.edits.map((edit) => [edit.kind, edit.row.index]),
    [['removed', 1]],
  );
});

test('calls swapped within one context are no move: a context runs its calls in program order', () => {
  const alignment = aligned([call(1, 1), call(2, 1)], [call(2, 1), call(1, 1)]);
  assert.equal(alignment.structural?.indexA, 0);
  assert.equal(alignment.moved, 0);
});

test('a moved draw that control mode decided compares its values: the first divergence if the output parts', () => {
  const printed = (text: string): SyntheticEvent => ({ api: 'stdout', ctx: [1], value: text });
  const first = compare(...written([draw(2, 0.5, 1), printed('x')], [draw(3, 0.7, 1), printed('y')])).diverging?.first;
  assert.deepEqual([first?.reason, first?.indexA, first?.indexB], ['value', 0, 0]);
  assert.equal(compare(...written([draw(2, 0.5, 1), printed('x')], [draw(3, 0.5, 1), printed('x')])).verdict, 'agree');
});
