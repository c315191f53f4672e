/**
 * `detdrift diff A B`: where two recorded runs part, and the call that made them. When run A's
 * command can be re-run here (its script exists below the project root), the cause is confirmed
 * by replay, as `check` does.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { compare } from '../../diffing/compare.js';
import { confirmByReplay, replayCommand } from '../shared/confirm.js';
import type { CommandContext } from '../shared/options.js';
import { emitReport } from '../shared/output.js';
import { Progress } from '../shared/progress.js';
import { findRoot } from '../shared/project.js';
import { CauseStacks } from '../shared/stacks.js';
import { assertTraces } from '../shared/traces.js';
import type { DiffOptions } from './options.js';

export async function run(options: DiffOptions, { logger }: CommandContext): Promise<number> {
  assertTraces(options.a, options.b);
  for (const warning of options.configWarnings) logger.warn(warning);
  const root = findRoot(options.cwd);
  const comparison = compare(options.a, options.b, { ignore: options.ignore, sources: { a: root, b: root } });
  logger.debug({ processes: comparison.processes.length, verdict: comparison.verdict }, 'compared');
  const traceA = statSync(options.a).isFile() ? dirname(options.a) : options.a;
  const header = comparison.processes.find((process) => process.a)?.a?.header;
  const command = header ? rerunnable(header.command, root) : null;
  // Its probes re-run run A anyway: they take the blamed call's stack when run A did not sample it.
  // No run is made for that alone: the traces may come from another machine.
  const stacks = new CauseStacks(comparison, logger);
  const confirmation =
    options.confirm && command && comparison.verdict === 'diverge'
      ? await confirmByReplay({
          traceA,
          comparison,
          command,
          cwd: root,
          seed: header!.seed,
          progress: new Progress(),
          logger,
          stacks,
        })
      : null;
  const replay = command ? replayCommand(traceA, command) : null;
  return (
    await emitReport(comparison, root, options, {
      confirmation,
      replay,
      reports: options.reports,
      stacks: stacks.list(),
    })
  ).status;
}

/** A trace's command, runnable from the project root: `node` and a script that exists there. */
function rerunnable(command: readonly string[], root: string): string[] | null {
  const [program, script, ...rest] = command;
  if (program !== 'node' || !script || script.startsWith('-') || !existsSync(join(root, script))) return null;
  return [process.execPath, script, ...rest];
}
