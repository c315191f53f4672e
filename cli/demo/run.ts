/**
 * `detdrift demo`: the bundled seeded simulation, built twice in a temporary directory, once with
 * its dependency tick-queue at 1.0.0 (base) and once at 1.1.0 (head). Both run in control mode
 * with the same seed; the report shows where head's run parts from base's, and why.
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compare } from '../../diffing/compare.js';
import { BUMP_RUN_NAMES } from '../../report/text.js';
import { stopOnInterrupt } from '../shared/interrupt.js';
import type { CommandContext } from '../shared/options.js';
import { emitReport } from '../shared/output.js';
import { PACKAGE_ROOT } from '../shared/package.js';
import { recordRun } from '../shared/recording.js';
import { makeWorkDir } from '../shared/workdir.js';
import type { DemoOptions } from './options.js';

const EXAMPLE = join(PACKAGE_ROOT, 'examples', 'sim');
const SEED = '42';
const VERSIONS = { base: '1.0.0', head: '1.1.0' } as const;

export async function run(options: DemoOptions, { logger }: CommandContext): Promise<number> {
  stopOnInterrupt();
  const workspace = makeWorkDir('demo');
  try {
    const traces: Record<string, string> = {};
    for (const [side, version] of Object.entries(VERSIONS)) {
      const project = buildProject(join(workspace, side), version);
      traces[side] = join(workspace, `${side}-trace`);
      mkdirSync(traces[side]!);
      const command = [process.execPath, 'sim.js', '--seed', SEED];
      const result = await recordRun(
        { out: traces[side]!, mode: 'control', seed: SEED, command, cwd: project },
        'pipe',
        logger,
      );
      if (result.status !== 0)
        logger.warn({ side, status: result.status, stderr: result.stderr }, 'the simulation failed');
    }
    if (!options.json) {
      process.stdout.write(
        `detdrift demo: sim.js --seed ${SEED} in control mode, with tick-queue ${VERSIONS.base} (base) ` +
          `and ${VERSIONS.head} (head)\n\n`,
      );
    }
    await emitReport(compare(traces.base!, traces.head!), join(workspace, 'head'), options, {
      runNames: BUMP_RUN_NAMES,
    });
    return 0; // the demo ran; its finding is the report, not a failure of the command
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

/** A project directory with the example's sources, tick-queue at `version` and a lockfile naming it. */
function buildProject(dir: string, version: string): string {
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  cpSync(join(EXAMPLE, 'sim.js'), join(dir, 'sim.js'));
  cpSync(join(EXAMPLE, `packages/tick-queue-${version}`), join(dir, 'node_modules/tick-queue'), { recursive: true });
  const manifest = { name: 'sim-example', version: '1.0.0', private: true, dependencies: { 'tick-queue': version } };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  const lock = {
    name: 'sim-example',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'sim-example', version: '1.0.0', dependencies: { 'tick-queue': version } },
      'node_modules/tick-queue': { version, resolved: `file:packages/tick-queue-${version}` },
    },
  };
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lock, null, 2) + '\n');
  return dir;
}
