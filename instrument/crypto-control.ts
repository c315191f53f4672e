import type { Draws } from './control.js';
import type { Native } from './patch.js';
import { real } from './real.js';
import {
  ArgAt,
  ArrayBufferIsView,
  ArrayCopy,
  bytesOf,
  elementSize,
  MathMin,
  TypedArrayBuffer,
  TypedArrayByteOffset,
  TypedArrayLength,
  TypedArraySet,
  Uint8Array,
} from '../tracer/primordials.js';

/**
 * Control mode's crypto: each substitute first calls the real function, so arguments are
 * validated and errors thrown exactly as Node does, then hands the program seeded values in the
 * same shape (the same Buffer, the same view). Callback forms draw at call time, in program order,
 * and write the drawn bytes into the result before the program's callback runs.
 */
export type Substitute = (target: Native, thisArg: unknown, args: unknown[]) => unknown;

export function uuid(stream: Draws): Substitute {
  return (target, thisArg, args) => {
    real.apply(target, thisArg, args);
    return stream.uuid();
  };
}

export function randomBytes(stream: Draws): Substitute {
  return (target, thisArg, args) => {
    const callback = ArgAt(args, 1);
    if (typeof callback !== 'function') return fillAll(stream, real.apply(target, thisArg, args) as Uint8Array);
    let drawn: Uint8Array | undefined;
    const result = real.apply(target, thisArg, [args[0], afterFill(callback as Native, () => drawn)]);
    drawn = draw(stream, (args[0] as number) >>> 0);
    return result;
  };
}

/** getRandomValues and randomFillSync: the region Node filled, refilled from the stream. */
export function fillSync(stream: Draws): Substitute {
  return (target, thisArg, args) => {
    const result = real.apply(target, thisArg, args);
    stream.fill(
      region(
        args[0] as ArrayBufferView | ArrayBuffer,
        ArgAt(args, 1) as number | undefined,
        ArgAt(args, 2) as number | undefined,
      ),
    );
    return result;
  };
}

export function randomFill(stream: Draws): Substitute {
  return (target, thisArg, args) => {
    let at = 0;
    while (at < args.length && typeof args[at] !== 'function') at++;
    if (at === args.length) return real.apply(target, thisArg, args); // no callback: Node throws its error
    // randomFill(buffer, offset?, size?, callback): the numbers are the ones before the callback
    const offset = at > 1 ? (args[1] as number) : undefined;
    const size = at > 2 ? (args[2] as number) : undefined;
    let drawn: Uint8Array | undefined;
    const callback = args[at] as Native;
    const wrapped = function (this: unknown, error: unknown, buffer: ArrayBufferView | ArrayBuffer) {
      if (!error && drawn) TypedArraySet(region(buffer, offset, size), drawn);
      return real.apply(callback, this, arguments);
    };
    const passed = ArrayCopy(args);
    passed[at] = wrapped;
    const result = real.apply(target, thisArg, passed);
    drawn = draw(stream, TypedArrayLength(region(args[0] as ArrayBufferView, offset, size)));
    return result;
  };
}

export function randomInt(stream: Draws): Substitute {
  return (target, thisArg, args) => {
    const minGiven = typeof ArgAt(args, 1) === 'number';
    const min = minGiven ? (args[0] as number) : 0;
    const max = (minGiven ? args[1] : ArgAt(args, 0)) as number;
    const callback = ArgAt(args, minGiven ? 2 : 1);
    if (typeof callback !== 'function') {
      real.apply(target, thisArg, args);
      return stream.int(min, max);
    }
    let drawn = 0;
    // the callback gets Node's receiver and arguments, the drawn value in place of Node's
    const wrapped = function (this: unknown, error: unknown) {
      return error
        ? real.apply(callback as Native, this, arguments)
        : real.apply(callback as Native, this, [error, drawn]);
    };
    const passed = minGiven ? [args[0], args[1], wrapped] : [args[0], wrapped];
    const result = real.apply(target, thisArg, passed);
    drawn = stream.int(min, max);
    return result;
  };
}

function afterFill(callback: Native, drawn: () => Uint8Array | undefined): Native {
  return function (this: unknown, error: unknown, buffer: Uint8Array) {
    const bytes = drawn();
    if (!error && bytes) TypedArraySet(buffer, bytes);
    return real.apply(callback, this, arguments);
  };
}

function draw(stream: Draws, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  stream.fill(bytes);
  return bytes;
}

function fillAll<T extends ArrayBufferView>(stream: Draws, view: T): T {
  stream.fill(region(view, undefined, undefined));
  return view;
}

/** The bytes `offset` and `size` (in elements, as Node counts them) cover. */
function region(
  buffer: ArrayBufferView | ArrayBuffer,
  offset: number | undefined,
  size: number | undefined,
): Uint8Array {
  const isView = ArrayBufferIsView(buffer);
  const bytes = isView ? bytesOf(buffer) : new Uint8Array(buffer);
  const element = isView ? elementSize(buffer) : 1;
  const length = TypedArrayLength(bytes);
  const start = MathMin(length, (offset ?? 0) * element);
  const end = size === undefined ? length : MathMin(length, start + size * element);
  return new Uint8Array(TypedArrayBuffer(bytes), TypedArrayByteOffset(bytes) + start, end - start);
}
