import childProcess, { ChildProcess } from 'node:child_process';
import { family } from './patch.js';
import { real } from './real.js';

const SPAWN_VAR = 'DETDRIFT_SPAWN';

/**
 * Gives every child process its lineage name, `<parent>.<n>` for the parent's n-th spawn, so the
 * child's hook (carried by NODE_OPTIONS) names its trace the same in every run. Asynchronous
 * spawns (spawn, fork, exec, execFile) all pass through `ChildProcess.prototype.spawn`, whose
 * normalized options carry the environment as `envPairs`; the synchronous ones read `process.env`
 * when no `env` is given, so it holds the name for the duration of the call.
 */
export const install = family<string>('children', (patcher, lineage) => {
  let spawned = 0;
  const next = () => `${lineage}.${++spawned}`;

  patcher.method(ChildProcess.prototype, 'spawn', {
    apply(target, thisArg, args: unknown[]) {
      const options = args[0] as { envPairs?: unknown } | undefined;
      if (options && Array.isArray(options.envPairs)) {
        const pairs = (options.envPairs as string[]).filter((pair) => !pair.startsWith(`${SPAWN_VAR}=`));
        pairs.push(`${SPAWN_VAR}=${next()}`);
        options.envPairs = pairs;
      }
      return real.apply(target as (...a: unknown[]) => unknown, thisArg, args);
    },
  });

  const synchronous = {
    apply(target: (...a: unknown[]) => unknown, thisArg: unknown, args: unknown[]) {
      const before = process.env[SPAWN_VAR];
      process.env[SPAWN_VAR] = next();
      try {
        return real.apply(target, thisArg, args);
      } finally {
        if (before === undefined) delete process.env[SPAWN_VAR];
        else process.env[SPAWN_VAR] = before;
      }
    },
  };
  for (const name of ['spawnSync', 'execSync', 'execFileSync'] as const) {
    patcher.method(childProcess, name, synchronous);
  }
});
