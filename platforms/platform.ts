import { darwin } from './darwin.js';
import { linux } from './linux.js';
import type { Platform } from './types.js';
import { win32 } from './win32.js';

const PLATFORMS: Readonly<Record<string, Platform>> = Object.freeze({ linux, darwin, win32 });

/** The platform a trace was written on, from its header's `platform`; any other POSIX system reads as Linux. */
export function platformOf(id: string): Platform {
  return Object.hasOwn(PLATFORMS, id) ? PLATFORMS[id]! : linux;
}
