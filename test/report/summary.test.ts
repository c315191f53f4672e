import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { COMMENT_LIMIT, COMMENT_MARKER, renderComment } from '../../report/comment.js';
import { renderSummary, SUMMARY_LIMIT } from '../../report/summary.js';
import type { Report } from '../../report/types.js';
import { CLI, REPO, project, runPlain } from '../helpers.js';
import {
  AGREE_REPORT,
  BUMP_REPORT,
  BUMP_SECTION_REPORT,
  EVIL,
  EVIL_REPORT,
  PERTURB_REPORT,
} from '../report-fixture.js';
import { writeTrace } from '../synthetic.js';

/** Compares with test/data/NAME exactly; DETDRIFT_UPDATE_SNAPSHOTS=1 rewrites it instead. */
function snapshot(name: string, text: string): void {
  const file = join(REPO, 'test', 'data', name);
  if (process.env.DETDRIFT_UPDATE_SNAPSHOTS) writeFileSync(file, text);
  assert.equal(text, readFileSync(file, 'utf8'), `snapshot ${name}`);
}

test('the job summary and the comment, as Markdown snapshots', () => {
  snapshot('summary-bump.md', renderSummary(BUMP_REPORT));
  snapshot('summary-agree.md', renderSummary(AGREE_REPORT));
  snapshot('comment-bump.md', renderComment(BUMP_REPORT));
  snapshot('summary-bump-section.md', renderSummary(BUMP_SECTION_REPORT));
  snapshot('summary-perturb.md', renderSummary(PERTURB_REPORT));
  assert.ok(renderComment(AGREE_REPORT).startsWith(`${COMMENT_MARKER}\n\n### detdrift: the runs agree\n`));
});

/** The Markdown with code blocks and code spans taken out: what GitHub would interpret. */
function outsideCode(markdown: string): string {
  const text = markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '<block>');
  let out = '';
  for (let at = 0; at < text.length; ) {
    const run = /^`+/.exec(text.slice(at))?.[0];
    if (!run) {
      out += text[at++];
      continue;
    }
    const close = [...text.slice(at + run.length).matchAll(/`+/g)].find((match) => match[0].length === run.length);
    if (!close) throw new Error(`an unclosed code span at ${at}`);
    out += '<code>';
    at += run.length + close.index! + run.length;
  }
  return out;
}

test('trace strings are code in Markdown: no HTML, link, mention, formatting, table cell or command', () => {
  for (const markdown of [renderSummary(EVIL_REPORT), renderComment(EVIL_REPORT)]) {
    const interpreted = outsideCode(markdown);
    for (const payload of ['<script', '::', '@octocat', '](http', '**bold**', '# heading', 'cell']) {
      assert.ok(!interpreted.includes(payload), `${JSON.stringify(payload)} only inside code`);
    }
    assert.ok(!markdown.includes('##['), 'no legacy workflow command');
    for (const line of markdown.split('\n'))
      assert.ok(!line.trimStart().startsWith('::'), `no line starts a workflow command: ${line}`);
    // Each table keeps its columns: pipes from the trace are escaped.
    let columns = 0;
    for (const line of markdown.split('\n')) {
      const cells = line.startsWith('|') ? line.split(/(?<!\\)\|/).length - 2 : 0;
      if (cells > 0 && columns > 0) assert.equal(cells, columns, line);
      columns = cells;
    }
  }
  const comment = renderComment(EVIL_REPORT);
  assert.equal(comment.split(COMMENT_MARKER).length, 2, 'the marker occurs once: a trace string cannot forge it');
  assert.ok(comment.includes(`\`\`<script>alert(1)</script> \`code\` \\| cell`), 'shown, as code');
  assert.ok(!renderSummary(EVIL_REPORT).includes(EVIL.head), 'line breaks are shown as \\n');
});

test('long tables are cut, with a note, to stay within the size limits', () => {
  const perApi = Array.from({ length: 20_000 }, (_row, index) => ({
    key: `api-${index}-${'x'.repeat(60)}`,
    a: index,
    b: index + 1,
  }));
  const huge: Report = { ...BUMP_REPORT, differences: { ...BUMP_REPORT.differences, perApi } };
  const summary = renderSummary(huge);
  assert.ok(Buffer.byteLength(summary) <= SUMMARY_LIMIT);
  assert.match(summary, /\*19800 more rows not shown, to keep the summary within GitHub's size limit\.\*/);
  const comment = renderComment(huge);
  assert.ok(comment.length <= COMMENT_LIMIT);
  assert.match(comment, /more rows not shown/);
  const tight = renderSummary(huge, 3000);
  assert.ok(Buffer.byteLength(tight) <= 3000, 'a budget smaller than the tables still holds');
  assert.match(tight, /^## detdrift: the runs diverge\n/);
});

test('a per-platform table is drawn when the report has one, and skipped when not', () => {
  const platforms = [
    { platform: 'linux-x64', verdict: 'agree' },
    { platform: 'win32-x64', verdict: 'diverge', note: 'a|b' },
  ];
  const summary = renderSummary({ ...BUMP_REPORT, platforms } as Report);
  assert.match(
    summary,
    /### Per platform\n\n\| `platform` \| `verdict` \| `note` \|\n\| --- \| --- \| --- \|\n\| `linux-x64` \| `agree` \| {2}\|\n\| `win32-x64` \| `diverge` \| `a\\\|b` \|/,
  );
  assert.ok(!renderSummary(BUMP_REPORT).includes('Per platform'));
  assert.ok(!renderSummary({ ...BUMP_REPORT, platforms: 'linux' } as unknown as Report).includes('Per platform'));
});

test('diff --report appends the summary to $GITHUB_STEP_SUMMARY, writes files, and keeps --json stdout parseable', () => {
  const dir = project({ 'package.json': { name: 'app', version: '1.0.0' } });
  for (const [side, value] of [
    ['a', 'heads\n'],
    ['b', 'tails\n'],
  ] as const) {
    mkdirSync(join(dir, side));
    writeTrace(join(dir, side), '0', [
      { api: 'mathRandom', at: 'app.js:2', value: side === 'a' ? 0.1 : 0.9 },
      { api: 'stdout', at: 'app.js:3', value },
    ]);
  }
  writeFileSync(join(dir, 'step.md'), 'an earlier step\n');
  const env = { GITHUB_STEP_SUMMARY: join(dir, 'step.md'), GITHUB_ACTIONS: undefined, GITHUB_WORKSPACE: undefined };
  const run = runPlain(
    [
      CLI,
      'diff',
      'a',
      'b',
      '--no-confirm',
      '--json',
      '--report',
      'summary,comment=out/c.md',
      '--report',
      'github',
      '--report',
      'sarif',
    ],
    { cwd: dir, env },
  );
  assert.equal(run.code, 1, run.stderr);
  assert.equal(JSON.parse(run.stdout).cause.api, 'Math.random', 'stdout is the JSON report alone');
  assert.match(
    run.stderr,
    /^::error file=app\.js,line=2,col=1,title=Math\.random in the project::/m,
    'annotations on stderr under --json',
  );
  const step = readFileSync(join(dir, 'step.md'), 'utf8');
  assert.ok(step.startsWith('an earlier step\n## detdrift: the runs diverge\n'), 'appended, not replaced');
  assert.ok(readFileSync(join(dir, 'out', 'c.md'), 'utf8').startsWith(`${COMMENT_MARKER}\n`));
  assert.equal(
    JSON.parse(readFileSync(join(dir, 'detdrift.sarif'), 'utf8')).runs[0].results[0].ruleId,
    'detdrift/random',
  );

  // Outside Actions nothing reads workflow commands: the annotations follow the text unfenced.
  const plain = runPlain([CLI, 'diff', 'a', 'b', '--no-confirm', '--report', 'github'], { cwd: dir, env });
  assert.doesNotMatch(plain.stdout, /::stop-commands::/);
  assert.deepEqual(
    plain.stdout
      .trimEnd()
      .split('\n')
      .filter((line) => line.startsWith('::'))
      .map((line) => line.split(' ')[0]),
    ['::error', '::notice'],
  );
  const text = runPlain([CLI, 'diff', 'a', 'b', '--no-confirm', '--report', 'github'], {
    cwd: dir,
    env: { ...env, GITHUB_ACTIONS: 'true' },
  });
  const lines = text.stdout.trimEnd().split('\n');
  const token = /^::stop-commands::([0-9a-f-]{36})$/.exec(lines[0]!)?.[1];
  assert.ok(token, 'inside Actions the terminal report is fenced, and the annotations follow it');
  const end = lines.indexOf(`::${token}::`);
  assert.ok(end > 1);
  assert.deepEqual(
    lines.slice(end + 1).map((line) => line.split(' ')[0]),
    ['::error', '::notice'],
  );
});
