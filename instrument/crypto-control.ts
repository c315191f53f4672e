import type { Stream } from './control.js';
import type { Native } from './patch.js';
import { real } from './real.js';

/**
 * Control mode's crypto: each substitute first calls the real function, so arguments are
 * validated and errors thrown exactly as Node does, then hands the program seeded values in the
 * same shape (the same Buffer, the same view). Callback forms draw at call time, in program order,
 * and write the drawn bytes into the result before the program's callback runs.
 */
export type Substitute = (target: Native, thisArg: unknown, args: unknown[]) => unknown;

export function uuid(stream: Stream): Substitute {
  return (target, thisArg, args) => {
    real.apply(target, thisArg, args);
    return stream.uuid();
  };
}

export function randomBytes(stream: Stream): Substitute {
  return (target, thisArg, args) => {
    const callback = args[1];
    if (typeof callback !== 'function') return fillAll(stream, real.apply(target, thisArg, args) as Uint8Array);
    let drawn: Uint8Array | undefined;
    const result = real.apply(target, thisArg, [args[0], afterFill(callback as Native, () => drawn)]);
    drawn = draw(stream, (args[0] as number) >>> 0);
    return result;
  };
}

/** getRandomValues and randomFillSync: the region Node filled, refilled from the stream. */
export function fillSync(stream: Stream): Substitute {
  return (target, thisArg, args) => {
    const result = real.apply(target, thisArg, args);
    const [offset, size] = args.slice(1) as [number | undefined, number | undefined];
    const bytes = region(args[0] as ArrayBufferView | ArrayBuffer, offset, size);
    bytes.set(draw(stream, bytes.length));
    return result;
  };
}

export function randomFill(stream: Stream): Substitute {
  return (target, thisArg, args) => {
    const at = args.findIndex((arg) => typeof arg === 'function');
    const numbers = args.slice(1, at < 0 ? args.length : at) as number[];
    let drawn: Uint8Array | undefined;
    const callback = args[at] as Native;
    const wrapped = (error: unknown, buffer: ArrayBufferView | ArrayBuffer) => {
      if (!error && drawn) region(buffer, numbers[0], numbers[1]).set(drawn);
      return real.apply(callback, undefined, [error, buffer]);
    };
    const result = real.apply(target, thisArg, [...args.slice(0, at), wrapped, ...args.slice(at + 1)]);
    drawn = draw(stream, region(args[0] as ArrayBufferView, numbers[0], numbers[1]).length);
    return result;
  };
}

export function randomInt(stream: Stream): Substitute {
  return (target, thisArg, args) => {
    const minGiven = typeof args[1] === 'number';
    const [min, max] = minGiven ? [args[0] as number, args[1] as number] : [0, args[0] as number];
    const callback = args[minGiven ? 2 : 1];
    if (typeof callback !== 'function') {
      real.apply(target, thisArg, args);
      return stream.int(min, max);
    }
    let drawn = 0;
    const wrapped = (error: unknown, value: number) => real.apply(callback as Native, undefined, [error, error ? value : drawn]);
    const result = real.apply(target, thisArg, [...args.slice(0, minGiven ? 2 : 1), wrapped]);
    drawn = stream.int(min, max);
    return result;
  };
}

function afterFill(callback: Native, drawn: () => Uint8Array | undefined): Native {
  return (error: unknown, buffer: Uint8Array) => {
    const bytes = drawn();
    if (!error && bytes) buffer.set(bytes);
    return real.apply(callback, undefined, [error, buffer]);
  };
}

function draw(stream: Stream, length: number): Uint8Array {
  const bytes = new real.Uint8Array(length);
  stream.fill(bytes);
  return bytes;
}

function fillAll<T extends ArrayBufferView>(stream: Stream, view: T): T {
  region(view, undefined, undefined).set(draw(stream, view.byteLength));
  return view;
}

/** The bytes `offset` and `size` (in elements, as Node counts them) cover. */
function region(buffer: ArrayBufferView | ArrayBuffer, offset: number | undefined, size: number | undefined): Uint8Array {
  const bytes = real.isView(buffer)
    ? new real.Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
    : new real.Uint8Array(buffer as ArrayBuffer);
  const element = (buffer as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1;
  const start = Math.min(bytes.length, (offset ?? 0) * element);
  const end = size === undefined ? bytes.length : Math.min(bytes.length, start + size * element);
  return bytes.subarray(start, end);
}
