import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { CommandEntry } from './commands.js';
import { CliError } from './shared/errors.js';
import type { Command, CommonOptions, OptionSpecs, RawInvocation } from './shared/options.js';
import { MANIFEST } from './shared/package.js';

export type Invocation =
  | { readonly kind: 'print'; readonly text: string }
  | { readonly kind: 'run'; readonly options: CommonOptions; readonly command: Command };

/**
 * `detdrift <command> [options] [-- CMD...]`: the tool's own flags stay before `--`, the traced
 * command after it, which is never parsed (so `-- node --inspect app.js` reaches node intact).
 * The command table, help and suggestions load when a command line needs them, and of the
 * commands only the one it names: `--version` starts in about the time Node does.
 */
export async function parseCommandLine(argv: readonly string[], cwd: string): Promise<Invocation> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v') return { kind: 'print', text: `${MANIFEST.version}\n` };
  const { COMMANDS } = await import('./commands.js');
  const names = Object.keys(COMMANDS);
  if (name === undefined) throw new CliError('ERR_USAGE', `no command given; commands: ${names.join(', ')}`);
  if (name === '--help' || name === '-h' || (name === 'help' && rest[0] === undefined))
    return { kind: 'print', text: (await import('./help.js')).toolHelp(COMMANDS) };
  if (name === 'help') {
    const entry = await commandNamed(rest[0]!, COMMANDS);
    return {
      kind: 'print',
      text: (await import('./help.js')).commandHelp(rest[0]!, entry, (await entry.load()).command),
    };
  }
  const entry = await commandNamed(name, COMMANDS);
  const { command } = await entry.load();
  const raw = await parse(name, rest, command);
  if (raw.values.help === true)
    return { kind: 'print', text: (await import('./help.js')).commandHelp(name, entry, command) };
  return { kind: 'run', options: command.normalize(raw, cwd), command };
}

async function commandNamed(name: string, COMMANDS: Readonly<Record<string, CommandEntry>>): Promise<CommandEntry> {
  if (Object.hasOwn(COMMANDS, name)) return COMMANDS[name]!;
  const { nearest } = await import('./shared/nearest.js');
  const near = nearest(name, Object.keys(COMMANDS));
  const commands = `commands: ${Object.keys(COMMANDS).join(', ')}`;
  throw new CliError(
    'ERR_USAGE',
    `unknown command ${JSON.stringify(name)}${near ? `: did you mean "${near}"? (${commands})` : `; ${commands}`}`,
  );
}

async function parse(name: string, args: readonly string[], command: Command): Promise<RawInvocation> {
  const options = { ...parseTable(command.options), help: { type: 'boolean', short: 'h' } } as const;
  const given = withOptionalValues(args);
  let parsed;
  try {
    parsed = parseArgs({ args: given, options, strict: true, allowPositionals: true, tokens: true });
  } catch (error) {
    // util.parseArgs reports bad usage as ERR_PARSE_ARGS_*; anything else is ours to fail on.
    const code = String((error as { code?: unknown }).code);
    if (!code.startsWith('ERR_PARSE_ARGS_')) throw error;
    const unknown = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? await unknownOption(given, Object.keys(options)) : null;
    const said = unknown ? `${unknown} (detdrift ${name})` : (error as Error).message;
    const meant = await withTerminator(name, given, command);
    throw new CliError('ERR_USAGE', meant ? `${said}. ${meant}` : said, { cause: error });
  }
  const { values, positionals, tokens } = parsed;
  const terminator = tokens.find((token) => token.kind === 'option-terminator');
  const meant = terminator ? null : await withTerminator(name, given, command);
  if (meant) throw new CliError('ERR_USAGE', `the command to run goes after "--". ${meant}`);
  if (!terminator) return { values, positionals, command: null };
  const before = tokens.filter((token) => token.kind === 'positional' && token.index < terminator.index).length;
  return { values, positionals: positionals.slice(0, before), command: positionals.slice(before) };
}

/** `unknown option --sed; did you mean --seed?`: the first option the command does not take, and the one nearest it. */
async function unknownOption(args: readonly string[], known: readonly string[]): Promise<string | null> {
  const { tokens } = parseArgs({ args: [...args], strict: false, allowPositionals: true, tokens: true });
  const token = tokens.find((candidate) => candidate.kind === 'option' && !known.includes(candidate.name));
  if (token?.kind !== 'option') return null;
  const { nearest } = await import('./shared/nearest.js');
  const near = nearest(token.name, known);
  return `unknown option ${token.rawName}${near ? `: did you mean --${near}?` : ''}`;
}

/**
 * `did you mean: detdrift check --seed 42 -- node --test`: for a command that runs one (`-- CMD`)
 * given without `--`, the line it should have been, split at the first word that is not an option
 * or an option's value; null when there is no such word, or `--` was given.
 */
async function withTerminator(name: string, args: readonly string[], command: Command): Promise<string | null> {
  const [before, after] = command.usage.split(' -- CMD');
  if (after === undefined || args.includes('--')) return null;
  // A command that takes its own arguments before `--` (replay TRACE) cannot tell them from the command's.
  const words = before!.split(' ').slice(2);
  if (words.some((word, i) => /^[A-Z]+$/.test(word) && !words[i - 1]?.startsWith('--'))) return null;
  const takesValue = (arg: string) => {
    const long = arg.startsWith('--') ? arg.slice(2) : null;
    const spec =
      long !== null
        ? command.options[long]
        : Object.values(command.options).find((option) => `-${option.short}` === arg);
    return spec?.type === 'string' && !arg.includes('=');
  };
  let first = -1;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-')) {
      first = i;
      break;
    }
    if (takesValue(arg)) i++;
  }
  if (first < 0) return null;
  const { shellQuote } = await import('./shared/confirm.js');
  const line = ['detdrift', name, ...args.slice(0, first), '--', ...args.slice(first)].map(shellQuote).join(' ');
  return `Did you mean: ${line}`;
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
    if (Object.hasOwn(OPTIONAL_VALUES, arg) && (next === undefined || next.startsWith('-')))
      out.push(OPTIONAL_VALUES[arg]!);
  }
  return out;
}

/** The table util.parseArgs reads: each option's type, short form and whether it repeats. */
function parseTable(options: OptionSpecs): NonNullable<ParseArgsConfig['options']> {
  return Object.fromEntries(
    Object.entries(options).map(([name, { type, short, multiple }]) => [
      name,
      { type, ...(short ? { short } : {}), ...(multiple ? { multiple } : {}) },
    ]),
  );
}
