import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { test } from 'node:test';
import { parseCommandLine } from '../../cli/args.js';
import { compare } from '../../diffing/compare.js';
import { buildReport } from '../../diffing/findings/build.js';
import { escapeData, escapeProperty, relayUntrusted, renderGithub } from '../../report/github.js';
import { renderTerminal } from '../../report/terminal.js';
import type { Report } from '../../report/types.js';
import { CLI, project, runPlain, tempDir } from '../helpers.js';
import { AGREE_REPORT, BUMP_REPORT, EVIL, EVIL_REPORT } from '../report-fixture.js';
import { writeTrace, type SyntheticEvent } from '../synthetic.js';
import { runnerReads } from '../workflow-commands.js';

const WHY =
  'why: a call the new dependency tree makes and the old one does not (likely: chosen by a rule, not confirmed by a replay)';
const REPLAY = 'replay run A locally: npx detdrift replay base-trace -- node sim.js';
const BUMP_LINES = (prefix: string, line: number, replay = REPLAY) => [
  `::error file=${prefix}sim.js,line=24,col=46,title=Math.random in tick-queue@1.1.0::detdrift: the runs diverge at an uncontrolled Math.random call in tick-queue@1.1.0, reached from here (simulate).%0Acall site: node_modules/tick-queue/index.js:9:43 (push)%0Adependency: tick-queue 1.0.0 → 1.1.0 (minor)%0A${WHY}%0A${replay}`,
  `::error file=${prefix}package.json,line=${line},title=Math.random in tick-queue@1.1.0::detdrift: this change (tick-queue 1.0.0 → 1.1.0 (minor)) makes seeded runs diverge: Math.random in tick-queue@1.1.0.%0Acall site: node_modules/tick-queue/index.js:9:43 (push)%0Areached from: sim.js:24:46 simulate%0A${WHY}%0A${replay}`,
  '::notice title=detdrift summary::first divergence: run A and run B make different calls right away (process 0)%0Acalls per API that differ (run A → run B): Math.random 0 → 3%0A1 of 1 processes diverge%0A0 matched calls have uncontrolled values that differ',
];

test('a bump gets an error on the first project frame and on its package.json line, then one notice', () => {
  const text = renderGithub(BUMP_REPORT, { dependencyLine: (name) => (name === 'tick-queue' ? 7 : null) });
  assert.deepEqual(text.split('\n'), [...BUMP_LINES('', 7), '']);
  assert.equal(
    renderGithub(BUMP_REPORT, { pathPrefix: 'packages/sim', dependencyLine: () => 7 }),
    [...BUMP_LINES('packages/sim/', 7), ''].join('\n'),
  );
});

test('a transitive bump is annotated on the package.json line of the direct dependency it comes through', () => {
  const transitive = { name: 'left-pad', from: '1.2.0', to: '1.3.0', kind: 'minor', path: ['tick-queue', 'left-pad'] };
  const report: Report = { ...BUMP_REPORT, cause: { ...BUMP_REPORT.cause!, bump: transitive } };
  const asked: string[] = [];
  const lines = renderGithub(report, {
    dependencyLine: (name) => (asked.push(name), name === 'tick-queue' ? 7 : null),
  }).split('\n');
  assert.deepEqual(asked, ['tick-queue']);
  const manifest = lines.find((line) => line.startsWith('::error file=package.json,line=7,'));
  assert.ok(
    manifest?.includes('this change (left-pad 1.2.0 → 1.3.0 (minor, through tick-queue > left-pad))'),
    manifest,
  );
  assert.match(
    renderTerminal(report, { color: false }),
    /brought by left-pad 1\.2\.0 → 1\.3\.0 \(minor, through tick-queue > left-pad\)/,
  );
});

test('without a package.json line, only the project frame is annotated; agreeing runs get one notice', () => {
  assert.deepEqual(
    renderGithub(BUMP_REPORT)
      .split('\n')
      .map((line) => line.slice(0, 14)),
    ['::error file=s', '::notice title', ''],
  );
  assert.equal(renderGithub(AGREE_REPORT), '::notice title=detdrift::the runs agree: 5 calls and 1 outputs matched\n');
});

test('workflow-command escapes: % first, CR and LF in data; also : and , in properties', () => {
  assert.equal(escapeData('100%\r\nnext %0A'), '100%25%0D%0Anext %250A');
  assert.equal(escapeProperty('a:b,c%\n'), 'a%3Ab%2Cc%25%0A');
  assert.equal(relayUntrusted('line one\n::error::x', 'T0K'), '::stop-commands::T0K\nline one\n::error::x\n::T0K::\n');
  assert.throws(() => relayUntrusted('has T0K in it', 'T0K'));
});

test('trace strings cannot forge, hide or inject workflow commands', () => {
  const terminal = renderTerminal(EVIL_REPORT, { color: false });
  assert.ok(runnerReads(terminal).length > 0, 'the payloads are live when relayed unfenced');
  const annotations = renderGithub(EVIL_REPORT, { dependencyLine: () => 3 });
  const token = '2b7c8f0e-0d1e-4c55-9a6b-3f1d2e4c5b6a';
  const log = relayUntrusted(terminal, token) + annotations;
  const seen = runnerReads(log);
  assert.deepEqual(
    seen.map((entry) => entry.command),
    ['stop-commands', 'error', 'error', 'notice'],
  );
  assert.equal(seen[0]!.data, token);
  const lines = annotations.split(/\r\n|\r|\n/);
  assert.equal(lines.length, 4, 'each annotation stays on its one line');
  for (const line of lines.slice(0, -1))
    assert.match(
      line,
      /^::(error|notice) (file=[^,:]*,line=\d+,(col=\d+,)?)?title=[^,:]*::/,
      'every line is one of ours',
    );
  // Escaping loses nothing: the runner decodes the very strings the trace held.
  const [first, second] = seen.slice(1);
  assert.equal(first!.properties.file, EVIL_REPORT.cause!.firstPartySite!.file);
  assert.equal(first!.properties.title, `${EVIL_REPORT.cause!.api} in ${EVIL.package}`);
  assert.equal(Object.keys(first!.properties).join(), 'file,line,col,title');
  assert.ok(first!.data.includes(EVIL.fn) && first!.data.includes(EVIL_REPORT.replay!));
  assert.equal(second!.properties.file, 'package.json');
});

test('detdrift report --format github annotates a saved report, paths relative to the checkout', () => {
  const dir = project({
    'package.json': { name: 'sim', version: '1.0.0', dependencies: { 'tick-queue': '^1.1.0' } },
    'out/report.json': BUMP_REPORT,
  });
  const env = { GITHUB_WORKSPACE: undefined, GITHUB_ACTIONS: undefined, GITHUB_STEP_SUMMARY: undefined };
  const run = runPlain([CLI, 'report', '--format', 'github', 'out/report.json', '--', 'node', 'sim.js'], {
    cwd: dir,
    env,
  });
  assert.equal(run.stderr, '');
  assert.equal(run.code, 0);
  // The saved report's own replay command is not shown: one is made from its seed, mode and the command given.
  const made = 'replay run A locally: npx detdrift check --keep --mode control --runs 2 --seed 42 -- node sim.js';
  assert.equal(run.stdout, [...BUMP_LINES('', 5, made), ''].join('\n'));
  const nested = runPlain([CLI, 'report', '--format=github', join(dir, 'out/report.json')], {
    cwd: dir,
    env: { ...env, GITHUB_WORKSPACE: dirname(dir) },
  });
  const note =
    'replay run A locally: not shown: a report read from a file does not choose the command to run; name it after -- to have the replay command made from the seed and mode';
  assert.equal(nested.stdout, [...BUMP_LINES(`${basename(dir)}/`, 5, note), ''].join('\n'));
  writeFileSync(join(dir, 'bad.json'), '{"schema":"other/9"}');
  const bad = runPlain([CLI, 'report', 'bad.json'], { cwd: dir, env });
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /ERR_REPORT_FILE: .*bad\.json is not a detdrift report \(detdrift\.report\/1\): schema is another string/,
  );
});

test('--report takes FORMAT[=FILE], repeated or comma-separated, and names what it allows', async () => {
  const saved = process.env.GITHUB_STEP_SUMMARY;
  delete process.env.GITHUB_STEP_SUMMARY;
  try {
    const invocation = await parseCommandLine(
      ['diff', 'a', 'b', '--report', 'github,sarif=out/x.sarif', '--report', 'comment'],
      '/w',
    );
    assert.equal(invocation.kind, 'run');
    assert.deepEqual((invocation.options as unknown as { reports: unknown }).reports, [
      { format: 'github', file: null, append: false },
      { format: 'sarif', file: '/w/out/x.sarif', append: false },
      { format: 'comment', file: '/w/detdrift-comment.md', append: false },
    ]);
    await assert.rejects(() => parseCommandLine(['diff', 'a', 'b', '--report', 'xml'], '/w'), {
      code: 'ERR_OPTION_VALUE',
      message: '--report got "xml"; allowed: github, summary, sarif, comment, json, html, each optionally =FILE',
    });
    const matrix = await parseCommandLine(['matrix', 'runs', '--report', 'html'], '/w');
    assert.equal(matrix.kind, 'run');
    assert.deepEqual((matrix.options as unknown as { reports: unknown }).reports, [
      { format: 'html', file: '/w/detdrift-report.html', append: false },
    ]);
    await assert.rejects(() => parseCommandLine(['matrix', 'runs', '--report', 'sarif'], '/w'), {
      code: 'ERR_OPTION_VALUE',
      message: '--report got "sarif"; allowed: html, each optionally =FILE',
    });
    await assert.rejects(() => parseCommandLine(['check', '--report', 'summary', '--', 'node', 'x.js'], '/w'), {
      code: 'ERR_OPTION_VALUE',
      message: /\$GITHUB_STEP_SUMMARY is not set.*summary=FILE/,
    });
    await assert.rejects(() => parseCommandLine(['report', 'r.json', '--format', 'xml'], '/w'), {
      message: '--format got "xml"; allowed: terminal, json, github, summary, sarif, comment, html',
    });
  } finally {
    if (saved !== undefined) process.env.GITHUB_STEP_SUMMARY = saved;
  }
});

test('a cause with no project frame on its stack is annotated without a file', () => {
  const dir = tempDir();
  const events = (clock: number, draw: number, out: string): SyntheticEvent[] => [
    { api: 'dateNow', at: 'app.js:1', value: clock },
    { api: 'mathRandom', at: 'dice@2.0.0/index.js:4', value: draw },
    { api: 'stdout', at: 'app.js:3', value: out },
  ];
  for (const [side, clock, draw, out] of [
    ['a', 1, 0.1, 'heads\n'],
    ['b', 2, 0.9, 'tails\n'],
  ] as const) {
    mkdirSync(join(dir, side));
    writeTrace(join(dir, side), '0', events(clock, draw, out));
  }
  const report = buildReport(compare(join(dir, 'a'), join(dir, 'b')), { root: dir });
  assert.equal(
    renderGithub(report, { dependencyLine: () => 1 }),
    [
      '::error title=Math.random in dice@2.0.0::detdrift: the runs diverge at an uncontrolled Math.random call in dice@2.0.0.%0Acall site: node_modules/dice/index.js:4:1%0Awhy: the last uncontrolled call before the divergence whose value differs (likely: chosen by a rule, not confirmed by a replay)',
      '::notice title=detdrift summary::first divergence: run A and run B write different output (process 0)%0A1 of 1 processes diverge%0A2 matched calls have uncontrolled values that differ',
      '',
    ].join('\n'),
  );
});

test('inside GitHub Actions, check fences the program output it relays and its own report', () => {
  const app = "console.error('::error::forged\\n##[add-mask]x');\nconsole.log('same');\nprocess.exitCode = 1;\n";
  const dir = project({ 'package.json': { name: 'app', version: '1.0.0' }, 'app.js': app });
  // --perturb: its runs relay a failing command's stderr in the log (a plain check puts it in the report).
  const run = runPlain([CLI, 'check', '--no-confirm', '--perturb', 'timezone', '--', process.execPath, 'app.js'], {
    cwd: dir,
    env: { GITHUB_ACTIONS: 'true', CI: 'true' },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    /^ {4}##\\u005badd-mask\]x$/m,
    'the program stderr is relayed under the warning, `[` escaped',
  );
  assert.deepEqual(
    runnerReads(run.stderr).map((entry) => entry.command),
    ['stop-commands', 'stop-commands'],
    'once per failing run, fenced',
  );
  assert.deepEqual(
    runnerReads(run.stdout).map((entry) => entry.command),
    ['stop-commands'],
  );
  assert.match(run.stdout, /detdrift: the runs agree/);
});

test('an unexplained divergence is annotated where the runs part; a project call read back from JSON is not "reached from" itself', () => {
  const rule = 'replay: pinning all 3 recorded clock, random and crypto values does not reproduce run A';
  const outside: Report = {
    ...BUMP_REPORT,
    firstDivergence: BUMP_REPORT.outputDivergence,
    cause: {
      ...BUMP_REPORT.cause!,
      kind: 'outside',
      api: null,
      form: null,
      site: null,
      package: null,
      firstPartySite: null,
      stack: [],
      rule,
      bump: null,
    },
  };
  assert.equal(
    renderGithub(outside).split('\n')[0],
    `::error file=sim.js,line=40,col=9,title=not explained by an intercepted source::detdrift: the runs diverge, and no intercepted call explains it: ${rule}.%0A${REPLAY}`,
  );
  const frame = BUMP_REPORT.cause!.firstPartySite!;
  const own = JSON.parse(
    JSON.stringify({
      ...BUMP_REPORT,
      cause: { ...BUMP_REPORT.cause, site: frame, package: null, firstPartySite: frame, bump: null },
    }),
  ) as Report;
  assert.equal(
    renderGithub(own).split('\n')[0],
    `::error file=sim.js,line=24,col=46,title=Math.random in the project::detdrift: the runs diverge at an uncontrolled Math.random call.%0Acall site: sim.js:24:46 (simulate)%0A${WHY}%0A${REPLAY}`,
  );
});
