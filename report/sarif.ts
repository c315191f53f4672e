/**
 * SARIF 2.1.0 for GitHub code scanning (`github/codeql-action/upload-sarif`): one rule per API
 * family, one result for the cause, located at the call site, with the first project frame (and a
 * bumped dependency's line in package.json) as related locations and the stack as a code flow.
 * The runs agreeing gives no result, which closes an earlier alert.
 */
import { createHash } from 'node:crypto';
import { API_TABLE, type Family } from '../tracer/apis.js';
import { describeBump, describeFrame, describeStackNote, diskPath, manifestDependency, repositoryPath, sameFrame } from './describe.js';
import type { CauseView, FrameView, Report } from './types.js';
import { jsonText } from './untrusted.js';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

export interface SarifOptions {
  /** detdrift's own version, for `tool.driver` */
  readonly toolVersion: string;
  /** the project's folder relative to the repository root ('' when they are the same) */
  readonly pathPrefix?: string;
  /** the 1-based line of a direct dependency in the project's package.json; null when it is not one */
  readonly dependencyLine?: (name: string) => number | null;
}

type RuleKey = Exclude<Family, 'output' | 'meta'> | 'divergence';

const RULES: ReadonlyArray<{ key: RuleKey; name: string; short: string; full: string }> = [
  { key: 'clock', name: 'UncontrolledClock', short: 'An uncontrolled clock read breaks a seeded run', full: 'A clock read (Date, performance.now, process.hrtime, process.uptime) that the seed does not control made two runs with the same seed diverge.' },
  { key: 'random', name: 'UncontrolledRandom', short: 'An uncontrolled Math.random draw breaks a seeded run', full: 'A Math.random draw that the seed does not control made two runs with the same seed diverge.' },
  { key: 'crypto', name: 'UncontrolledCryptoRandom', short: 'An uncontrolled crypto random value breaks a seeded run', full: 'A crypto random value (randomUUID, randomBytes, randomFill, randomInt, getRandomValues) that the seed does not control made two runs with the same seed diverge.' },
  { key: 'timers', name: 'UncontrolledTimer', short: 'An uncontrolled timer breaks a seeded run', full: 'A timer (setTimeout, setInterval, setImmediate) whose scheduling or firing the seed does not control made two runs with the same seed diverge.' },
  { key: 'fs', name: 'UncontrolledFilesystemRead', short: 'A directory listing or file time breaks a seeded run', full: 'A directory listing or file time (fs.readdir, fs.opendir, fs.stat) that differs between machines or runs made two runs with the same seed diverge.' },
  { key: 'process', name: 'UncontrolledHostIdentity', short: 'A host or process identity breaks a seeded run', full: 'A host or process identity (os.hostname, os.cpus, os.tmpdir, process.pid) made two runs with the same seed diverge.' },
  { key: 'divergence', name: 'UnexplainedDivergence', short: 'Seeded runs diverge without an intercepted cause', full: 'Two runs with the same seed diverge through an ordering difference or a source detdrift does not intercept (I/O completion order, a worker race, a native addon).' },
];

const FAMILY_OF: ReadonlyMap<string, Family> = new Map(API_TABLE.map((spec) => [spec.api, spec.family]));

/** The SARIF log as JSON text (untrusted.ts `jsonText`), so the file stays inert if a workflow prints it. */
export function renderSarif(report: Report, options: SarifOptions): string {
  return jsonText(buildSarif(report, options), 2) + '\n';
}

export function buildSarif(report: Report, options: SarifOptions): object {
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'detdrift',
            version: options.toolVersion,
            semanticVersion: options.toolVersion,
            informationUri: 'https://www.npmjs.com/package/detdrift',
            rules: RULES.map(rule),
          },
        },
        results: report.verdict === 'diverge' ? [result(report, options)] : [],
      },
    ],
  };
}

function rule({ key, name, short, full }: (typeof RULES)[number]): object {
  const help = `${full} Control the source (inject a seeded one, or run under detdrift's control mode) or pin the dependency that added it; the result's message has the command that replays run A locally.`;
  return {
    id: `detdrift/${key}`,
    name,
    shortDescription: { text: short },
    fullDescription: { text: full },
    help: { text: help, markdown: help },
    defaultConfiguration: { level: 'error' },
    properties: { tags: ['determinism', key], precision: key === 'divergence' ? 'low' : 'medium', 'problem.severity': 'error' },
  };
}

function result(report: Report, options: SarifOptions): object {
  const cause = report.cause;
  const prefix = options.pathPrefix ?? '';
  const family = cause?.kind === 'call' && cause.api ? FAMILY_OF.get(cause.api) : undefined;
  const key: RuleKey = family && family !== 'output' && family !== 'meta' ? family : 'divergence';
  const primary = cause?.site ?? cause?.firstPartySite ?? report.firstDivergence?.b?.site ?? report.firstDivergence?.a?.site ?? null;
  const related: object[] = [];
  if (cause?.firstPartySite && !sameFrame(cause.firstPartySite, primary)) {
    related.push({ id: 1, ...location(cause.firstPartySite, prefix, `first project frame: ${describeFrame(cause.firstPartySite)}`) });
  }
  const line = cause?.bump ? (options.dependencyLine?.(manifestDependency(cause.bump)) ?? null) : null;
  if (cause?.bump && line !== null) {
    related.push({ id: 2, physicalLocation: physical(repositoryPath('package.json', prefix), line, 1), message: { text: escapeText(`the bumped dependency: ${describeBump(cause.bump)}`) } });
  }
  const stack = cause?.stack ?? [];
  return {
    ruleId: `detdrift/${key}`,
    ruleIndex: RULES.findIndex((entry) => entry.key === key),
    level: 'error',
    message: { text: message(report, cause, related.length > 0) },
    ...(primary ? { locations: [location(primary, prefix)] } : {}),
    ...(related.length > 0 ? { relatedLocations: related } : {}),
    ...(stack.length > 0
      ? { codeFlows: [{ message: { text: 'the stack of the blamed call, outermost frame first' }, threadFlows: [{ locations: [...stack].reverse().map((frame, index) => ({ location: location(frame, prefix, frame.fn ?? '(anonymous)'), nestingLevel: index, executionOrder: index + 1 })) }] }] }
      : {}),
    partialFingerprints: { 'detdriftCause/v1': fingerprint(key, cause, primary) },
    properties: {
      kind: cause?.kind ?? null,
      api: cause?.api ?? null,
      package: cause?.package ?? null,
      confidence: cause?.confidence ?? null,
      rule: cause?.rule ?? null,
      bump: cause?.bump ?? null,
      stackNote: cause?.stackNote ?? null,
      replay: report.replay,
    },
  };
}

function message(report: Report, cause: CauseView | null, linked: boolean): string {
  const parts: string[] = [];
  if (!cause) parts.push('Two seeded runs diverge; no cause was found.');
  else if (cause.kind === 'ordering') parts.push(escapeText(`Two seeded runs diverge: async contexts ${cause.contexts?.join(' and ') ?? '?'} completed in a different order.`));
  else if (cause.kind === 'outside') parts.push(escapeText(`Two seeded runs diverge, and no intercepted call explains it: ${cause.rule}.`));
  else parts.push(escapeText(`Two seeded runs diverge at an uncontrolled ${cause.api ?? '?'} call${cause.package ? ` in ${cause.package}` : ''}: ${cause.rule} (${cause.confidence}).`));
  if (cause?.firstPartySite && linked) parts.push(`It is reached from [the project's code](1).`);
  if (cause?.bump) parts.push(escapeText(`Dependency: ${describeBump(cause.bump)}.`));
  const stackNote = cause ? describeStackNote(cause) : null;
  if (stackNote) parts.push(escapeText(`${cause?.site ? 'Its stack' : 'Call site'}: ${stackNote}.`));
  if (report.replay) parts.push(escapeText(`Replay run A locally: ${report.replay}`));
  return parts.join(' ');
}

function location(frame: FrameView, prefix: string, text?: string): object {
  return { physicalLocation: physical(repositoryPath(diskPath(frame), prefix), frame.line, frame.column), ...(text ? { message: { text: escapeText(text) } } : {}) };
}

function physical(path: string, line: number, column: number): object {
  const region = { startLine: Math.max(1, Math.trunc(line) || 1), startColumn: Math.max(1, Math.trunc(column) || 1) };
  if (path.startsWith('/')) return { artifactLocation: { uri: `file://${encodePath(path)}` }, region };
  return { artifactLocation: { uri: encodePath(path), uriBaseId: '%SRCROOT%' }, region };
}

/** Each path segment percent-encoded: a file name from a trace stays one valid URI reference. */
function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** SARIF message text reads `[text](id)` as a link: a literal `\`, `[` or `]` is escaped with a backslash. */
function escapeText(text: string): string {
  return String(text).replace(/[\\[\]]/g, '\\$&');
}

/** Stable across runs for the same blamed call, whatever the line numbers of unrelated code. */
function fingerprint(key: RuleKey, cause: CauseView | null, primary: FrameView | null): string {
  const site = primary ? `${diskPath(primary)}:${primary.fn ?? ''}` : '';
  return createHash('sha256').update(`${key}\u0000${cause?.api ?? ''}\u0000${site}`).digest('hex').slice(0, 32);
}
