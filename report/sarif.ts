/**
 * SARIF 2.1.0 for GitHub code scanning (`github/codeql-action/upload-sarif`): one rule per API
 * family, one result for the cause, located in a file of the repository (the first project frame,
 * else the bumped dependency's line in package.json, else the lockfile), with the call site under
 * node_modules and the package.json line as related locations and the stack as a code flow.
 * The runs agreeing gives no result, which closes an earlier alert.
 */
import { createHash } from 'node:crypto';
import { API_TABLE, type Family } from '../tracer/apis.js';
import {
  describeBump,
  describeConfidence,
  describeContexts,
  describeFrame,
  describeStackNote,
  diskPath,
  manifestDependency,
  projectFrame,
  repositoryPath,
  sameFrame,
} from './describe.js';
import { runNames } from './text.js';
import type { CauseView, FrameView, Report } from './types.js';
import { jsonText } from './untrusted.js';

const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

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
  {
    key: 'clock',
    name: 'UncontrolledClock',
    short: 'An uncontrolled clock read breaks a seeded run',
    full: 'A clock read (Date, performance.now, process.hrtime, process.uptime) that the seed does not control made two runs with the same seed diverge.',
  },
  {
    key: 'random',
    name: 'UncontrolledRandom',
    short: 'An uncontrolled Math.random draw breaks a seeded run',
    full: 'A Math.random draw that the seed does not control made two runs with the same seed diverge.',
  },
  {
    key: 'crypto',
    name: 'UncontrolledCryptoRandom',
    short: 'An uncontrolled crypto random value breaks a seeded run',
    full: 'A crypto random value (randomUUID, randomBytes, randomFill, randomInt, getRandomValues) that the seed does not control made two runs with the same seed diverge.',
  },
  {
    key: 'timers',
    name: 'UncontrolledTimer',
    short: 'An uncontrolled timer breaks a seeded run',
    full: 'A timer (setTimeout, setInterval, setImmediate) whose scheduling or firing the seed does not control made two runs with the same seed diverge.',
  },
  {
    key: 'fs',
    name: 'UncontrolledFilesystemRead',
    short: 'A directory listing or file time breaks a seeded run',
    full: 'A directory listing or file time (fs.readdir, fs.opendir, fs.stat) that differs between machines or runs made two runs with the same seed diverge.',
  },
  {
    key: 'process',
    name: 'UncontrolledHostIdentity',
    short: 'A host or process identity breaks a seeded run',
    full: 'A host or process identity (os.hostname, os.cpus, os.tmpdir, process.pid) made two runs with the same seed diverge.',
  },
  {
    key: 'divergence',
    name: 'UnexplainedDivergence',
    short: 'Seeded runs diverge without an intercepted cause',
    full: 'Two runs with the same seed diverge through an ordering difference or a source detdrift does not intercept (I/O completion order, a worker race, a native addon).',
  },
];

const FAMILY_OF: ReadonlyMap<string, Family> = new Map(API_TABLE.map((spec) => [spec.api, spec.family]));

/** The SARIF log as JSON text (untrusted.ts `jsonText`), so the file stays inert if a workflow prints it. */
export function renderSarif(report: Report, options: SarifOptions): string {
  return jsonText(buildSarif(report, options), 2) + '\n';
}

function buildSarif(report: Report, options: SarifOptions): object {
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
  const help = `${full} Control the source (inject a seeded one, or run under detdrift's control mode) or pin the dependency that added it; the result's message has the command that replays the run locally.`;
  return {
    id: `detdrift/${key}`,
    name,
    shortDescription: { text: short },
    fullDescription: { text: full },
    help: { text: help, markdown: help },
    defaultConfiguration: { level: 'error' },
    properties: {
      tags: ['determinism', key],
      precision: key === 'divergence' ? 'low' : 'medium',
      'problem.severity': 'error',
    },
  };
}

function result(report: Report, options: SarifOptions): object {
  const cause = report.cause;
  const prefix = options.pathPrefix ?? '';
  const family = cause?.kind === 'call' && cause.api ? FAMILY_OF.get(cause.api) : undefined;
  const key: RuleKey = family && family !== 'output' && family !== 'meta' ? family : 'divergence';
  const site =
    cause?.site ?? cause?.firstPartySite ?? report.firstDivergence?.b?.site ?? report.firstDivergence?.a?.site ?? null;
  const here = projectFrame(report);
  const own = here && inRepository(here) ? here : null;
  const line = cause?.bump ? (options.dependencyLine?.(manifestDependency(cause.bump)) ?? null) : null;
  const manifest = cause?.bump && line !== null ? physical(repositoryPath('package.json', prefix), line, 1) : null;
  const lockfile = lockfileOf(report);
  // Code scanning shows an alert on a pull request only at a file of the repository: the project's
  // own frame, else the bumped dependency's package.json line, else the lockfile.
  const primary = own
    ? frameLocation(own, prefix)
    : (manifest ?? (lockfile ? physical(repositoryPath(lockfile, prefix), 1, 1) : null));
  // The blamed call's own site, when the primary location is not already it.
  const linked = site !== null && primary !== null && !sameFrame(site, own);
  const related: object[] = [];
  if (linked) related.push({ id: 1, ...location(site!, prefix, siteText(cause, site!)) });
  if (manifest && primary !== manifest)
    related.push({
      id: 2,
      physicalLocation: manifest,
      message: { text: escapeText(`the bumped dependency: ${describeBump(cause!.bump!)}`) },
    });
  const locations = primary ? [{ physicalLocation: primary }] : site ? [location(site, prefix)] : [];
  const stack = cause?.stack ?? [];
  return {
    ruleId: `detdrift/${key}`,
    ruleIndex: RULES.findIndex((entry) => entry.key === key),
    level: 'error',
    message: { text: message(report, cause, linked) },
    ...(locations.length > 0 ? { locations } : {}),
    ...(related.length > 0 ? { relatedLocations: related } : {}),
    ...(stack.length > 0
      ? {
          codeFlows: [
            {
              message: { text: 'the stack of the blamed call, outermost frame first' },
              threadFlows: [
                {
                  locations: [...stack].reverse().map((frame, index) => ({
                    location: location(frame, prefix, frame.fn ?? '(anonymous)'),
                    nestingLevel: index,
                    executionOrder: index + 1,
                  })),
                },
              ],
            },
          ],
        }
      : {}),
    partialFingerprints: { 'detdriftCause/v1': fingerprint(key, cause, site) },
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

/** What the related location of the blamed call says: the call, and the package it is in. */
function siteText(cause: CauseView | null, site: FrameView): string {
  const what = cause?.kind === 'call' ? `the uncontrolled ${cause.api ?? '?'} call` : 'where the runs part';
  return `${what}${site.package ? ` in ${site.package}` : ''}: ${describeFrame(site)}`;
}

function message(report: Report, cause: CauseView | null, linked: boolean): string {
  const parts: string[] = [];
  const call = linked ? '[an uncontrolled call](1)' : 'an uncontrolled call';
  if (!cause) parts.push('Two seeded runs diverge; no cause was found.');
  else if (cause.kind === 'ordering')
    parts.push(
      escapeText(`Two seeded runs diverge: ${describeContexts(cause.contexts ?? [])} finished in a different order.`),
    );
  else if (cause.kind === 'outside')
    parts.push(escapeText(`Two seeded runs diverge, and no intercepted call explains it: ${cause.rule}.`));
  else
    parts.push(
      `Two seeded runs diverge at ${call} ${escapeText(`to ${cause.api ?? '?'}${cause.package ? ` in ${cause.package}` : ''}: ${cause.rule} (${describeConfidence(cause.confidence)})`)}.`,
    );
  if (cause?.bump) parts.push(escapeText(`Dependency: ${describeBump(cause.bump)}.`));
  const stackNote = cause ? describeStackNote(cause) : null;
  if (stackNote) parts.push(escapeText(`${cause?.site ? 'Its stack' : 'Call site'}: ${stackNote}.`));
  const replay = report.replay ?? report.replayNote;
  if (replay) parts.push(escapeText(`Replay ${runNames(report).a} locally: ${replay}`));
  return parts.join(' ');
}

/** A project file, relative to the project: not one outside it, which the repository does not hold. */
function inRepository(frame: FrameView): boolean {
  return !frame.file.startsWith('/') && !frame.file.startsWith('../') && !/^[a-z]+:/i.test(frame.file);
}

/** The lockfile the runs were recorded with (`package-lock.json:1a2b…` in a run's header), head's first. */
function lockfileOf({ runs }: Report): string | null {
  const named = runs.b?.lockfile ?? runs.a?.lockfile ?? null;
  return named ? named.slice(0, named.lastIndexOf(':')) || null : null;
}

function frameLocation(frame: FrameView, prefix: string): object {
  return physical(repositoryPath(diskPath(frame), prefix), frame.line, frame.column);
}

function location(
  frame: FrameView,
  prefix: string,
  text?: string,
): { physicalLocation: object; message?: { text: string } } {
  return { physicalLocation: frameLocation(frame, prefix), ...(text ? { message: { text: escapeText(text) } } : {}) };
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
function fingerprint(key: RuleKey, cause: CauseView | null, at: FrameView | null): string {
  const site = at ? `${diskPath(at)}:${at.fn ?? ''}` : '';
  return createHash('sha256')
    .update(`${key}\u0000${cause?.api ?? ''}\u0000${site}`)
    .digest('hex')
    .slice(0, 32);
}
