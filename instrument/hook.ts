/**
 * The hook's code as one bundle: scripts/bundle-hook.mjs bundles this module and everything it
 * imports into dist/instrument/bundle.js, which register.ts loads. The real built-ins are saved
 * first (real.ts), before any family patches them.
 */
import './real.js';

export { start } from './runtime.js';
