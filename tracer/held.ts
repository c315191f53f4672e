import { digestBytes, digestHex, digestNumber, digestString, type Digest } from './digest.js';
import { Tag } from './format.js';
import type { TraceValue } from './reader.js';

/** What `shownHeld` needs of an event: its family, value tag and value. */
export interface HeldEvent {
  readonly family: string;
  readonly tag: number;
  readonly value: TraceValue;
}

/**
 * Crypto values are entropy and can be secrets (a key, a token, a session id): a trace keeps a
 * digest of each, and the value itself only when it is made for replay (`DETDRIFT_HOLD=bytes`,
 * the header's `holds`), which alone needs it. Everything but replay sees a held value as the
 * digest the hook writes when it holds nothing: `show`, every report and the comparison. The
 * same goes for a randomInt of a trace that recorded it in clear (before it was digested).
 * Callback forms record how much they asked for (Tag.uint), which is no secret.
 */
export function shownHeld<E extends HeldEvent>(event: E): E {
  if (event.family !== 'crypto') return event;
  const digest = digestOf(event.tag, event.value);
  return digest === null ? event : { ...event, tag: Tag.digest, value: digestHex(digest.high, digest.low) };
}

function digestOf(tag: number, value: TraceValue): Digest | null {
  if (tag === Tag.bytes && value instanceof Uint8Array) return digestBytes(value);
  if (tag === Tag.string && typeof value === 'string') return digestString(value);
  if (tag === Tag.f64 && typeof value === 'number') return digestNumber(value);
  return null;
}
