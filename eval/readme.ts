/**
 * The generated part of eval/README.md: every results file's table, between two markers, so the
 * prose around it stays as written and `--only` keeps the other harness's rows.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HarnessResult } from './run.js';
import { cell, renderTable, summarize } from './score.js';

const START = '<!-- eval:tables:start (written by npm run eval) -->';
const END = '<!-- eval:tables:end -->';

const PLATFORM: Record<string, string> = { linux: 'Linux', darwin: 'macOS', win32: 'Windows' };

function section(result: HarnessResult): string {
  const where = PLATFORM[result.platform] ?? result.platform;
  const counts = summarize(result.rows);
  const tally = (method: 'raw' | 'detdrift') => {
    const c = counts[method];
    return `${c.detected}/${counts.changed} detected, ${c['false alarm']}/${counts.unchanged} false alarms, ${c.localized}/${counts.changed} localized to API, package and file:line`;
  };
  const lines = [
    `### ${result.harness} (${where}, Node ${result.node})`,
    '',
    renderTable(result.rows, where),
    '',
    `Raw log: ${tally('raw')}. detdrift: ${tally('detdrift')}; ${unblamed(result.rows)}/${counts.unchanged} unchanged read \`changed\` with no call blamed (the new code changed an output: scored quiet).`,
  ];
  const perturb = result.perturb;
  if (perturb) {
    lines.push(
      '',
      `\`check --perturb\` on ${perturb.upgrade} (${where}, standing in for other platforms): ` +
        `${perturb.verdict}${perturb.dimension ? ` under \`${perturb.dimension}\`` : ''}, cause ${cell(perturb.cause, 90)}, ` +
        `${(perturb.ms / 1000).toFixed(1)} s.`,
    );
  }
  return lines.join('\n');
}

/** Unchanged upgrades where bump says `changed` but blames no call: what a CI job would still fail on. */
function unblamed(rows: HarnessResult['rows']): number {
  return rows.filter((row) => !row.changed && row.detdrift.verdict === 'changed' && !row.detdrift.flagged).length;
}

export function writeReadme(file: string, resultsDir: string): void {
  const results = readdirSync(resultsDir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(resultsDir, name), 'utf8')) as HarnessResult);
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${file}: the table markers are missing`);
  const body = results.map(section).join('\n\n');
  writeFileSync(file, `${text.slice(0, start + START.length)}\n\n${body}\n\n${text.slice(end)}`);
}
