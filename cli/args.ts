import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './errors.js';
import type { Logger } from './logger.js';
import { DEFAULT_DIMENSIONS } from '../instrument/perturb-dimensions.js';
import { normalizeBump, normalizeCheck, normalizeMatrix, normalizeDemo, normalizeDiff, normalizeRecord, normalizeReplay, normalizeReport, normalizeScan, normalizeShow, type CommonOptions, type RawInvocation } from './options.js';
import { MANIFEST } from './package.js';

/** What every command receives besides its options. */
export interface CommandContext {
  readonly logger: Logger;
}

/** A command module: `run` resolves to the exit status. */
interface CommandModule<O> {
  run(options: O, context: CommandContext): Promise<number>;
}

export type Invocation =
  | { readonly kind: 'print'; readonly text: string }
  | { readonly kind: 'run'; readonly options: CommonOptions; start(context: CommandContext): Promise<number> };

type OptionTable = NonNullable<ParseArgsConfig['options']>;

interface Entry {
  readonly usage: string;
  readonly options: OptionTable;
  prepare(raw: RawInvocation, cwd: string): Invocation;
}

/** every command: the tool's own log (cli/logger.ts) */
const LOG_LEVEL = { 'log-level': { type: 'string' }, 'log-format': { type: 'string' }, 'log-file': { type: 'string' } } as const satisfies OptionTable;

/** check, diff, bump, matrix: `--report FORMAT[=FILE]`, repeatable and comma-separated */
const REPORT = { report: { type: 'string', multiple: true } } as const satisfies OptionTable;

const COMMANDS: Readonly<Record<string, Entry>> = Object.freeze({
  record: define({
    usage: 'detdrift record --out DIR [--seed N] [--mode observe] [--log-level L] -- CMD...',
    options: { out: { type: 'string', short: 'o' }, seed: { type: 'string' }, mode: { type: 'string' }, ...LOG_LEVEL },
    normalize: normalizeRecord,
    // Loaded on demand: `show` need not pay for execa, and an old Node gets ERR_NODE_VERSION first.
    load: () => import('./record.js'),
  }),
  diff: define({
    usage: 'detdrift diff A B [--json] [--no-confirm] [--report FORMAT[=FILE]]...     (A, B: trace files, or directories of them)',
    options: { json: { type: 'boolean' }, 'no-confirm': { type: 'boolean' }, ...REPORT, ...LOG_LEVEL },
    normalize: normalizeDiff,
    load: () => import('./diff.js'),
  }),
  check: define({
    usage: 'detdrift check [--seed N] [--runs 2] [--mode observe|control] [--perturb [DIM,...]] [--out DIR | --keep] [--json] [--no-confirm] [--report FORMAT[=FILE]]... -- CMD...',
    options: {
      'no-confirm': { type: 'boolean' },
      perturb: { type: 'string' },
      seed: { type: 'string' },
      runs: { type: 'string' },
      mode: { type: 'string' },
      out: { type: 'string', short: 'o' },
      keep: { type: 'boolean' },
      json: { type: 'boolean' },
      ...REPORT,
      ...LOG_LEVEL,
    },
    normalize: normalizeCheck,
    load: () => import('./check.js'),
  }),
  matrix: define({
    usage: 'detdrift matrix DIR [--reference NAME] [--json] [--summary FILE] [--report html[=FILE]]   (DIR: one trace directory per platform, Node and seed, e.g. linux-20-seed42)',
    options: { reference: { type: 'string' }, json: { type: 'boolean' }, summary: { type: 'string' }, ...REPORT, ...LOG_LEVEL },
    normalize: normalizeMatrix,
    load: () => import('./matrix.js'),
  }),
  bump: define({
    usage: 'detdrift bump --base REF [--head REF] [--base-trace DIR] [--seed N ...] [--mode control|observe] [--install CMD] [--json] [--report FORMAT[=FILE]]... -- CMD...   (--mode control by default: seeded entropy, a virtual clock)',
    options: {
      base: { type: 'string' },
      head: { type: 'string' },
      'base-trace': { type: 'string' },
      seed: { type: 'string', multiple: true },
      mode: { type: 'string' },
      install: { type: 'string' },
      json: { type: 'boolean' },
      ...REPORT,
      ...LOG_LEVEL,
    },
    normalize: normalizeBump,
    load: () => import('./bump.js'),
  }),
  replay: define({
    usage: 'detdrift replay TRACE [--out DIR] [--json] -- CMD...   (feed TRACE\'s recorded values back)',
    options: { out: { type: 'string', short: 'o' }, json: { type: 'boolean' }, ...LOG_LEVEL },
    normalize: normalizeReplay,
    load: () => import('./replay.js'),
  }),
  report: define({
    usage: 'detdrift report REPORT.json|A B [--format terminal|json|github|summary|sarif|comment|html] [-o FILE]   (render a saved --json report, - reads stdin; or compare traces A and B)',
    options: { format: { type: 'string' }, out: { type: 'string', short: 'o' }, ...LOG_LEVEL },
    normalize: normalizeReport,
    load: () => import('./report.js'),
  }),
  demo: define({
    usage: 'detdrift demo [--json]        (the bundled example: a dependency bump breaks a seeded simulation)',
    options: { json: { type: 'boolean' }, ...LOG_LEVEL },
    normalize: normalizeDemo,
    load: () => import('./demo.js'),
  }),
  show: define({
    usage: 'detdrift show TRACE [--json] [--log-level L]',
    options: { json: { type: 'boolean' }, ...LOG_LEVEL },
    normalize: normalizeShow,
    load: () => import('./show.js'),
  }),
  scan: define({
    usage: 'detdrift scan DIR [--json] | detdrift scan --diff A B [--json]   (clock and entropy call sites in a package)',
    options: { diff: { type: 'boolean' }, json: { type: 'boolean' }, ...LOG_LEVEL },
    normalize: normalizeScan,
    load: () => import('./scan.js'),
  }),
});

function define<O extends CommonOptions>(spec: {
  usage: string;
  options: OptionTable;
  normalize: (raw: RawInvocation, cwd: string) => O;
  load: () => Promise<CommandModule<O>>;
}): Entry {
  return {
    usage: spec.usage,
    options: spec.options,
    prepare(raw, cwd) {
      const options = spec.normalize(raw, cwd);
      return { kind: 'run', options, start: async (context) => (await spec.load()).run(options, context) };
    },
  };
}

/**
 * `detdrift <command> [options] [-- CMD...]`: the tool's own flags stay before `--`, the traced
 * command after it, which is never parsed (so `-- node --inspect app.js` reaches node intact).
 */
export function parseCommandLine(argv: readonly string[], cwd: string): Invocation {
  const [name, ...rest] = argv;
  if (name === undefined) throw new CliError('ERR_USAGE', `no command given; commands: ${Object.keys(COMMANDS).join(', ')}`);
  if (name === '--help' || name === '-h' || name === 'help') return { kind: 'print', text: help() };
  if (name === '--version' || name === '-v') return { kind: 'print', text: `${MANIFEST.version}\n` };
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) throw new CliError('ERR_USAGE', `unknown command ${JSON.stringify(name)}; commands: ${Object.keys(COMMANDS).join(', ')}`);
  const raw = parse(rest, entry.options);
  if (raw.values.help === true) return { kind: 'print', text: `Usage: ${entry.usage}\n` };
  return entry.prepare(raw, cwd);
}

function parse(args: readonly string[], options: OptionTable): RawInvocation {
  let parsed;
  try {
    parsed = parseArgs({
      args: withOptionalValues(args),
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: true,
      tokens: true,
    });
  } catch (error) {
    // util.parseArgs reports bad usage as ERR_PARSE_ARGS_*; anything else is ours to fail on.
    if (!String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_')) throw error;
    throw new CliError('ERR_USAGE', (error as Error).message, { cause: error });
  }
  const { values, positionals, tokens } = parsed;
  const terminator = tokens.find((token) => token.kind === 'option-terminator');
  if (!terminator) return { values, positionals, command: null };
  const before = tokens.filter((token) => token.kind === 'positional' && token.index < terminator.index).length;
  return { values, positionals: positionals.slice(0, before), command: positionals.slice(before) };
}

/** Options whose value may be left out, and the value they then get: `check --perturb -- CMD` tries every dimension. */
const OPTIONAL_VALUES: Readonly<Record<string, string>> = Object.freeze({ '--perturb': 'all' });

/** The tool's own arguments with each bare optional-value option given its default; nothing after `--` is touched. */
function withOptionalValues(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return [...out, ...args.slice(i)];
    out.push(arg);
    const next = args[i + 1];
    if (Object.hasOwn(OPTIONAL_VALUES, arg) && (next === undefined || next.startsWith('-'))) out.push(OPTIONAL_VALUES[arg]!);
  }
  return out;
}

function help(): string {
  return [
    `detdrift ${MANIFEST.version}: records every clock and entropy call a Node.js program makes.`,
    '',
    'Usage:',
    ...Object.values(COMMANDS).map((entry) => `  ${entry.usage}`),
    '',
    '--report FORMAT[=FILE] (check, diff, bump; matrix takes html; repeatable or comma-separated) writes another form of the report:',
    '  github   workflow-command annotations, on stdout after the report (on stderr with --json)',
    '  summary  job-summary Markdown, appended to $GITHUB_STEP_SUMMARY',
    '  sarif    SARIF 2.1.0 for code scanning, to detdrift.sarif',
    '  comment  pull-request comment Markdown (marked <!-- detdrift-report -->), to detdrift-comment.md',
    '  json     the JSON report, to detdrift-report.json',
    '  html     one self-contained page (cause, aligned timeline, stacks, counts; matrix: the grid), to detdrift-report.html',
    '  =FILE writes that file instead.',
    '',
    '--perturb [DIM,...] (check) runs the seed once plain and once per dimension with what another machine',
    '  would vary (perturb mode), and reports the first dimension that makes the runs part. DIM is one of',
    `  ${DEFAULT_DIMENSIONS.join(', ')} (or all, the default); variants: dir-order:reverse, dir-order:case,`,
    '  clock:dst, clock:resolution.',
    '',
    'Exit status: 0 ok, 1 divergence found, 2 bad usage or input, 3 detdrift itself failed;',
    "record exits with the traced command's status (128+N when a signal N ended it).",
    '',
  ].join('\n');
}
