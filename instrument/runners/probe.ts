import type { ContextTracker } from '../context.js';
import type { Handle } from '../patch.js';

export type Probe = (type: string, resource: object) => void;

/**
 * Adds `probe` to the context tracker's: each runner adapter that looks at new async resources (a
 * runner's state appearing, node:test's tests being made) gets them, after those added before it.
 */
export function addProbe(contexts: ContextTracker, probe: Probe): Handle {
  const before = contexts.probe;
  contexts.probe =
    before === null
      ? probe
      : (type, resource) => {
          before(type, resource);
          probe(type, resource);
        };
  return {
    uninstall() {
      contexts.probe = before;
    },
  };
}
