/** Platform identity, and the views that let two traces from different platforms or machines compare. */
export { platformOf } from './platform.js';
export { pairView, type TraceShape } from './view.js';
export type { Platform, PlatformId, TraceView } from './types.js';
