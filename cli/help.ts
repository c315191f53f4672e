/**
 * What `detdrift --help` and `detdrift COMMAND --help` print: the commands, and one command's options with
 * their defaults.
 */
import { DEFAULT_DIMENSIONS } from '../instrument/perturb-dimensions.js';
import type { CommandEntry } from './commands.js';
import type { Command, OptionSpecs } from './shared/options.js';
import { DEFAULTS } from './shared/defaults.js';
import { MANIFEST } from './shared/package.js';

const HELP_OPTION: OptionSpecs = { help: { type: 'boolean', short: 'h', help: 'print this help' } };

/** One command's help: what it does, its usage, each option with its default, and an example. */
export function commandHelp(name: string, { summary }: CommandEntry, command: Command): string {
  return [
    `detdrift ${name}: ${summary}.`,
    '',
    `Usage: ${command.usage}`,
    '',
    'Options:',
    ...optionLines({ ...command.options, ...HELP_OPTION }),
    '',
    'Example:',
    `  ${command.example}`,
    '',
  ].join('\n');
}

function optionLines(options: OptionSpecs): string[] {
  const flags = Object.entries(options).map(
    ([name, spec]) => `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.value ? ` ${spec.value}` : ''}`,
  );
  const width = Math.max(...flags.map((flag) => flag.length)) + 2;
  return Object.values(options).map(
    (spec, index) => `  ${flags[index]!.padEnd(width)}${spec.help}${spec.default ? ` (default: ${spec.default})` : ''}`,
  );
}

/** The tool's help: each command in a line, then what the report forms are and the exit statuses. */
export function toolHelp(commands: Readonly<Record<string, CommandEntry>>): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length)) + 2;
  const files = DEFAULTS.reportFiles;
  return [
    `detdrift ${MANIFEST.version}: records every clock and entropy call a Node.js program makes, and finds the first one that makes two seeded runs part.`,
    '',
    'Usage: detdrift COMMAND [options] [-- CMD...]',
    '',
    'Commands:',
    ...Object.entries(commands).map(([name, command]) => `  ${name.padEnd(width)}${command.summary}`),
    '',
    "Run 'detdrift COMMAND --help' for a command's options, their defaults and an example.",
    '',
    '--report FORMAT[=FILE] (check, diff, bump, merge; matrix takes html; repeatable or comma-separated) writes another form of the report:',
    '  github   workflow-command annotations, on stdout after the report (on stderr with --json)',
    '  summary  job-summary Markdown, appended to $GITHUB_STEP_SUMMARY',
    `  sarif    SARIF 2.1.0 for code scanning, to ${files.sarif}`,
    `  comment  pull-request comment Markdown (marked <!-- detdrift-report -->), to ${files.comment}`,
    `  json     the JSON report, to ${files.json}`,
    `  html     one self-contained page (cause, aligned timeline, stacks, counts; matrix: the grid), to ${files.html}`,
    '  =FILE writes that file instead.',
    '',
    '--seeds LIST (check, bump) names the seeds to check in turn: 1..1000, 1,5,9 or 1..10,42 (ranges decimal).',
    '--shard I/N (check, bump) checks the I-th of N contiguous shares of them: one job of a CI matrix;',
    "  detdrift merge combines the shards' --report json files into one verdict.",
    '',
    '--perturb [DIM,...] (check) runs the seed once plain and once per dimension with what another machine',
    '  would vary (perturb mode), and reports the first dimension that makes the runs part. DIM is one of',
    `  ${DEFAULT_DIMENSIONS.join(', ')} (or all, the default); variants: dir-order:reverse, dir-order:case,`,
    '  clock:dst, clock:resolution.',
    '',
    'Colours: on a terminal only; NO_COLOR turns them off, FORCE_COLOR on (FORCE_COLOR=0 off).',
    '',
    'Exit status: 0 ok, 1 divergence found, 2 bad usage or input, 3 detdrift itself failed;',
    "record exits with the traced command's status (128+N when a signal N ended it).",
    '',
  ].join('\n');
}
