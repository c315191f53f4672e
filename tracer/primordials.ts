/**
 * The built-in methods that code inside a traced program calls while it runs, saved when the hook
 * loads, as Node's own primordials are: a program that replaces `String.prototype.startsWith`,
 * `Array.prototype.push` or the array iterator must neither redirect the hook nor see it call
 * them (a program that counts its own calls would count ours).
 *
 * Methods are taken as functions with the receiver first: `StringStartsWith(name, 'node:')`.
 * `uncurryThis(fn)` is `Function.prototype.call` bound to `fn`, so a call looks nothing up.
 * Constructors are exported under their own names: a module that imports `Uint8Array` from here
 * reads no global the program can reassign, and its code reads the same. V8's call sites need none
 * of this: their methods are neither writable nor configurable.
 */
import { Buffer } from 'node:buffer';

export const {
  ArrayBuffer,
  SharedArrayBuffer,
  Uint8Array,
  Int32Array,
  Uint32Array,
  Float64Array,
  BigInt64Array,
  DataView,
  BigInt,
  Number,
  String,
  Proxy,
  URL,
} = globalThis;

const uncurryThis = Function.prototype.bind.bind(Function.prototype.call) as <T, A extends unknown[], R>(
  fn: (this: T, ...args: A) => R,
) => (self: T, ...args: A) => R;

export const StringStartsWith = uncurryThis(String.prototype.startsWith);
export const StringEndsWith = uncurryThis(String.prototype.endsWith);
export const StringIncludes = uncurryThis(String.prototype.includes);
export const StringIndexOf = uncurryThis(String.prototype.indexOf);
export const StringLastIndexOf = uncurryThis(String.prototype.lastIndexOf);
export const StringCharCodeAt = uncurryThis(String.prototype.charCodeAt);
export const StringSlice = uncurryThis(String.prototype.slice);
export const StringToUpperCase = uncurryThis(String.prototype.toUpperCase);
/** `test` would look `exec` up on the regexp: this is the built-in one. */
export const RegExpExec = uncurryThis(RegExp.prototype.exec);
export const ArrayIsArray = Array.isArray;
/** `array.sort(compare)`: sorts in place, asks for no species. */
export const ArraySort = uncurryThis(Array.prototype.sort) as <T>(array: T[], compare: (x: T, y: T) => number) => T[];
export const ArrayIncludes = uncurryThis(Array.prototype.includes) as (
  array: readonly unknown[],
  value: unknown,
) => boolean;
/** `value instanceof C` without asking `C` for a `Symbol.hasInstance` of the program's. */
export const FunctionHasInstance = uncurryThis(Function.prototype[Symbol.hasInstance]) as (
  C: abstract new (...args: never[]) => unknown,
  value: unknown,
) => boolean;
export const ArrayBufferIsView = ArrayBuffer.isView;
export const JSONStringify = JSON.stringify;
export const DecodeURIComponent = decodeURIComponent;
export const NumberIsSafeInteger = Number.isSafeInteger;
export const NumberIsInteger = Number.isInteger;
export const ObjectIs = Object.is;
export const ObjectHasOwn = Object.hasOwn;
export const ObjectAssign = Object.assign;
export const ObjectCreate = Object.create;
export const MathMin = Math.min;
export const MathFloor = Math.floor;
export const MathImul = Math.imul;

const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as Uint8Array;
const typedArrayGetter = (name: string | symbol) =>
  uncurryThis(Reflect.getOwnPropertyDescriptor(TypedArrayPrototype, name)!.get!) as (view: ArrayBufferView) => never;
/** A typed array's `length`, `byteLength`, `byteOffset` and `buffer`: getters the program can replace. */
export const TypedArrayLength = typedArrayGetter('length') as (view: ArrayBufferView) => number;
const TypedArrayByteLength = typedArrayGetter('byteLength') as (view: ArrayBufferView) => number;
export const TypedArrayByteOffset = typedArrayGetter('byteOffset') as (view: ArrayBufferView) => number;
export const TypedArrayBuffer = typedArrayGetter('buffer') as (view: ArrayBufferView) => ArrayBufferLike;
const TypedArrayToStringTag = typedArrayGetter(Symbol.toStringTag) as (view: unknown) => string | undefined;
const dataViewGetter = (name: string) =>
  uncurryThis(Reflect.getOwnPropertyDescriptor(DataView.prototype, name)!.get!) as (view: ArrayBufferView) => never;
const DataViewBuffer = dataViewGetter('buffer') as (view: ArrayBufferView) => ArrayBufferLike;
const DataViewByteOffset = dataViewGetter('byteOffset') as (view: ArrayBufferView) => number;
const DataViewByteLength = dataViewGetter('byteLength') as (view: ArrayBufferView) => number;

/**
 * A view's bytes: the view itself when it is a Uint8Array (a Buffer is one), else a Uint8Array
 * over the same memory; none for a view of a detached buffer, which has no bytes.
 */
export function bytesOf(view: ArrayBufferView): Uint8Array {
  const tag = TypedArrayToStringTag(view);
  if (tag === 'Uint8Array') return view as Uint8Array;
  if (tag !== undefined) {
    const length = TypedArrayByteLength(view); // 0 once detached, where a new view would throw
    return length === 0
      ? new Uint8Array(0)
      : new Uint8Array(TypedArrayBuffer(view), TypedArrayByteOffset(view), length);
  }
  try {
    return new Uint8Array(DataViewBuffer(view), DataViewByteOffset(view), DataViewByteLength(view));
  } catch {
    return new Uint8Array(0); // a DataView's getters throw once its buffer is detached
  }
}

/** The bytes one element of a view takes: 1 for a DataView. */
export function elementSize(view: ArrayBufferView): number {
  const tag = TypedArrayToStringTag(view);
  return tag === undefined ? 1 : (ELEMENT_SIZES[tag as keyof typeof ELEMENT_SIZES] ?? 1);
}

const ELEMENT_SIZES = {
  __proto__: null,
  Int8Array: 1,
  Uint8Array: 1,
  Uint8ClampedArray: 1,
  Int16Array: 2,
  Uint16Array: 2,
  Float16Array: 2,
  Int32Array: 4,
  Uint32Array: 4,
  Float32Array: 4,
  Float64Array: 8,
  BigInt64Array: 8,
  BigUint64Array: 8,
};

/**
 * `target.set(source, offset)`. `subarray` and `slice` have no saved form: they ask the view's
 * `constructor` for its species, which the program can change; take a view with
 * `new Uint8Array(buffer, offset, length)` instead.
 */
export const TypedArraySet = uncurryThis(TypedArrayPrototype.set) as (
  target: ArrayBufferView,
  source: ArrayLike<number>,
  offset?: number,
) => void;
export const TypedArrayCopyWithin = uncurryThis(TypedArrayPrototype.copyWithin) as (
  target: Uint8Array,
  to: number,
  start: number,
  end?: number,
) => Uint8Array;
export const TypedArrayIndexOf = uncurryThis(TypedArrayPrototype.indexOf) as (
  target: Uint8Array,
  value: number,
  from?: number,
) => number;
export const DataViewSetUint32 = uncurryThis(DataView.prototype.setUint32);
/** A URL's `href`, read with the getter as the hook found it. */
export const URLHref = uncurryThis(Reflect.getOwnPropertyDescriptor(URL.prototype, 'href')!.get!) as (
  url: URL,
) => string;

/**
 * `text` cut at every `separator` (not empty), as `text.split(separator)`, which looks up `Symbol.split` on
 * `String.prototype`.
 */
export function StringSplit(text: string, separator: string): string[] {
  const parts: string[] = [];
  let from = 0;
  for (let at = StringIndexOf(text, separator); at >= 0; at = StringIndexOf(text, separator, from)) {
    parts[parts.length] = StringSlice(text, from, at);
    from = at + separator.length;
  }
  parts[parts.length] = StringSlice(text, from);
  return parts;
}

// UTF-8 without a lazy global: on Node 20 the TextEncoder and TextDecoder globals are accessors
// that turn into data properties when first read, which a program could see. There Buffer's
// methods do the work: native code that reads nothing off the view. Where the globals are plain
// (Node 22 on), theirs do: Buffer's read the view's `byteLength` there, through the getter a
// program can replace. Both give the same bytes and text (U+FFFD for an unpaired surrogate or a
// bad sequence), and every argument is given.
interface Utf8 {
  /** as much of `text` as fits in `view`; the bytes written */
  encodeInto(text: string, view: Uint8Array): number;
  /** the text of all of `bytes`, a leading BOM kept */
  text(bytes: Uint8Array): string;
}

function byBuffer(): Utf8 {
  const write = uncurryThis(Buffer.prototype.utf8Write) as (
    view: Uint8Array,
    text: string,
    offset: number,
    length: number,
  ) => number;
  const slice = uncurryThis(Buffer.prototype.utf8Slice) as (view: Uint8Array, start: number, end: number) => string;
  return {
    encodeInto: (text, view) => write(view, text, 0, TypedArrayLength(view)),
    text: (bytes) => slice(bytes, 0, TypedArrayLength(bytes)),
  };
}

function byEncoder(): Utf8 {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const encodeInto = uncurryThis(TextEncoder.prototype.encodeInto);
  const decode = uncurryThis(TextDecoder.prototype.decode);
  return {
    encodeInto: (text, view) => encodeInto(encoder, text, view).written,
    text: (bytes) => decode(decoder, bytes),
  };
}

const utf8 = Reflect.getOwnPropertyDescriptor(globalThis, 'TextEncoder')?.get === undefined ? byEncoder() : byBuffer();
/** How many bytes `text` takes in UTF-8. */
export const Utf8Length = Buffer.byteLength as (text: string) => number;

/** `text` in UTF-8, in a new array of its own (`TextEncoder#encode`). */
export function Utf8Encode(text: string): Uint8Array {
  const bytes = new Uint8Array(Utf8Length(text));
  utf8.encodeInto(text, bytes);
  return bytes;
}

/** As much of `text` as fits in `view`, never part of a character; the bytes written (`TextEncoder#encodeInto`). */
export function Utf8EncodeInto(text: string, view: Uint8Array): number {
  return utf8.encodeInto(text, view);
}

/** A Buffer's (or any view's) bytes as UTF-8 text, as `buffer.toString()` gives them: a leading BOM kept. */
export function Utf8Text(view: ArrayBufferView): string {
  return utf8.text(bytesOf(view));
}

/** A view's bytes as UTF-8 text, as `TextDecoder#decode` gives them: a leading BOM dropped. */
export function Utf8Decode(view: ArrayBufferView): string {
  const text = Utf8Text(view);
  return text[0] === '\ufeff' ? StringSlice(text, 1) : text;
}

/** `args[index]`, not looked for up the prototype chain (where the program can put a getter) past the end. */
export function ArgAt(args: ArrayLike<unknown>, index: number): unknown {
  return index < args.length ? args[index] : undefined;
}

/** A copy of `list` (an array or `arguments`), as `[...list]` without the program's array iterator. */
export function ArrayCopy<T>(list: ArrayLike<T>): T[] {
  const copy: T[] = [];
  for (let i = 0; i < list.length; i++) copy[i] = list[i]!;
  return copy;
}

/** The items of `list` that pass `test`, as `list.filter(test)` without the program's Array.prototype. */
export function ArrayFilter<T>(list: readonly T[], test: (item: T) => boolean): T[] {
  const kept: T[] = [];
  for (let i = 0; i < list.length; i++) if (test(list[i]!)) kept[kept.length] = list[i]!;
  return kept;
}

/*
 * Character tests for text the hook reads while the program runs or is about to: no regular
 * expression, since every match sets the realm's legacy statics (RegExp.lastMatch, $1, input,
 * leftContext...), which the program can read, whoever's the RegExp object was.
 */

/** Whether `text` is one or more decimal digits. */
export function isDigits(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const code = StringCharCodeAt(text, i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/** Whether `text` is `length` lowercase hexadecimal digits. */
export function isLowerHex(text: string, length: number): boolean {
  if (text.length !== length) return false;
  for (let i = 0; i < length; i++) {
    const code = StringCharCodeAt(text, i);
    if ((code < 48 || code > 57) && (code < 97 || code > 102)) return false;
  }
  return true;
}

/** `text` with every `from` replaced by `to`, as `text.split(from).join(to)`. */
export function StringReplaceAll(text: string, from: string, to: string): string {
  const parts = StringSplit(text, from);
  let joined = parts[0]!;
  for (let i = 1; i < parts.length; i++) joined += to + parts[i]!;
  return joined;
}

/**
 * A collection class whose methods are the built-in ones as the hook found them, copied onto its
 * own prototype: wrappers keep per-object state while the program runs, and a program that
 * replaces `WeakMap.prototype.set` must reach neither that state nor, through it, make its own
 * `console.log` throw.
 */
// biome-ignore lint/suspicious/noExplicitAny: a mixin's base constructor takes any arguments
function safe<C extends new (...args: any[]) => object>(Base: C): C {
  // A constructor of its own: the default one spreads its arguments through the program's array iterator.
  const Safe = class extends (Base as new (entries?: unknown) => object) {
    constructor(entries?: unknown) {
      super(entries);
    }
  };
  for (const key of Reflect.ownKeys(Base.prototype)) {
    if (key !== 'constructor')
      Reflect.defineProperty(Safe.prototype, key, Reflect.getOwnPropertyDescriptor(Base.prototype, key)!);
  }
  return Safe as unknown as C;
}

export const SafeMap = safe(Map);
export const SafeWeakMap = safe(WeakMap);
export const SafeWeakSet = safe(WeakSet);
