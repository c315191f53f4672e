/**
 * `node --import detdrift/register app.js`: records the program's clock and entropy calls into
 * DETDRIFT_TRACE. The real built-ins are saved first, before any family patches them. Node awaits
 * an `--import` module before it runs the program, so every family is in place by then.
 */
import './real.js';
import { start } from './runtime.js';

await start();
