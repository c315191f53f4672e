/**
 * The replay command of a report read from a file (`merge`, `report`). The file may come from a job
 * that ran the dependency under test, so its own `replay` is never shown: the command is made
 * again from fields checked here (run A's seed and mode) and the command the reading side names
 * after `--`, each word shell-quoted. A report that cannot give one says why instead.
 */
import type { Report } from '../../report/types.js';
import type { Mode } from '../../tracer/format.js';
import { checkCommand } from './confirm.js';
import { RECORDABLE_MODES } from './defaults.js';
import { SEED_TEXT } from './seeds.js';

/** `check --runs` takes 2 to 100. */
const MAX_RUNS = 100;

/** `report` with its replay command made again, or with a note of why it has none. */
export function withReplay(report: Report, command: readonly string[] | null): Report {
  return { ...report, ...replayOf(report, command) };
}

function replayOf(report: Report, command: readonly string[] | null): Pick<Report, 'replay' | 'replayNote'> {
  // `bump` gives no replay command: its runs need two checkouts.
  if (report.bump) return { replay: null, replayNote: null };
  if (command === null || command.length === 0)
    return {
      replay: null,
      replayNote:
        'not shown: a report read from a file does not choose the command to run; name it after -- to have the replay command made from the seed and mode',
    };
  const run = report.runs.a;
  const seed = run?.seed ?? null;
  if (!run || !RECORDABLE_MODES.includes(run.mode as Mode) || (seed !== null && !SEED_TEXT.test(String(seed))))
    return { replay: null, replayNote: "not shown: the report's first run has no seed and mode that check takes" };
  // A check of more than two runs may have diverged only at a later one: it is run as often again.
  const attempts = Array.isArray(report.attempts) ? report.attempts.length : 0;
  const runs = Math.min(Math.max(attempts + 1, 2), MAX_RUNS);
  return { replay: checkCommand({ mode: run.mode as Mode, runs, seed }, command), replayNote: null };
}
