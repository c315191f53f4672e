/**
 * Every command, once: its name, what it does in a line, and the loader of its `options.ts` (its
 * option specs, usage, example, normalize function, and the loader of its code). `detdrift --help`
 * and the suggestion for a mistyped command read only this table; a command line loads the one
 * command it names.
 */
import type { Command } from './shared/options.js';

export interface CommandEntry {
  /** what it does, in one line */
  readonly summary: string;
  load(): Promise<{ readonly command: Command }>;
}

export const COMMANDS: Readonly<Record<string, CommandEntry>> = Object.freeze({
  record: {
    summary: 'runs a command under the hook and writes one trace per process',
    load: () => import('./record/options.js'),
  },
  diff: {
    summary: 'compares two recorded runs and reports where they part, and why',
    load: () => import('./diff/options.js'),
  },
  check: {
    summary: 'runs a command several times with the same seed and tells whether the runs agree, and why not',
    load: () => import('./check/options.js'),
  },
  matrix: {
    summary: "compares a CI matrix's traces, each run against the reference run of its seed",
    load: () => import('./matrix/options.js'),
  },
  merge: {
    summary: "combines the reports of a seed list's shards into one verdict, as one run over every seed gives it",
    load: () => import('./merge/options.js'),
  },
  bump: {
    summary:
      "runs a command with the same seed on the base's dependency tree and on head's, and tells what the bump changed",
    load: () => import('./bump/options.js'),
  },
  replay: {
    summary: "runs a command with a recorded run's values fed back",
    load: () => import('./replay/options.js'),
  },
  report: {
    summary: 'renders a saved --json report (- reads stdin), or the comparison of two traces, in another form',
    load: () => import('./report/options.js'),
  },
  demo: {
    summary: 'the bundled example: a dependency bump breaks a seeded simulation',
    load: () => import('./demo/options.js'),
  },
  show: {
    summary: 'prints a trace, one line per recorded call',
    load: () => import('./show/options.js'),
  },
  scan: {
    summary: 'lists the clock and entropy call sites in a package, or those a new version added',
    load: () => import('./scan/options.js'),
  },
});
