/**
 * Reports built as object literals for the GitHub, SARIF and Markdown renderers: one the demo's
 * shape (a dependency bump adds a Math.random), one that agrees, and one whose every string from
 * the trace is an attempt to forge workflow commands or Markdown.
 */
import type { CauseView, EventView, FrameView, Report } from '../report/types.js';

const push: FrameView = {
  file: 'tick-queue@1.1.0/index.js',
  line: 9,
  column: 43,
  fn: 'push',
  package: 'tick-queue@1.1.0',
};
const simulate: FrameView = { file: 'sim.js', line: 24, column: 46, fn: 'simulate', package: null };
const main: FrameView = { file: 'sim.js', line: 40, column: 38, fn: null, package: null };
const write: FrameView = { file: 'sim.js', line: 40, column: 9, fn: null, package: null };

const draw: EventView = {
  index: 0,
  seq: 0,
  api: 'Math.random',
  form: 'call',
  value: 0.25,
  site: push,
  stack: [push, simulate, main],
  context: 'root',
  controlledBy: 'detdrift',
};
const output = (head: string, digest: string, seq: number): EventView => ({
  index: 0,
  seq,
  api: 'process.stdout',
  form: 'write',
  value: { digest, length: head.length, head },
  site: write,
  stack: [write],
  context: 'root',
  controlledBy: null,
});

const cause: CauseView = {
  kind: 'call',
  api: 'Math.random',
  form: 'call',
  site: push,
  package: 'tick-queue@1.1.0',
  firstPartySite: simulate,
  stack: [push, simulate, main],
  run: 'b',
  value: null,
  contexts: null,
  confidence: 'heuristic',
  rule: 'a call the new dependency tree makes and the old one does not',
  source: {
    file: 'tick-queue@1.1.0/index.js',
    line: 9,
    lines: [
      [8, '  push(event) {'],
      [9, '    this.items.push({ event, jitter: Math.random() });'],
      [10, '  }'],
    ],
  },
  bump: { name: 'tick-queue', from: '1.0.0', to: '1.1.0', kind: 'minor' },
};

const run = (calls: number) => ({
  trace: '/traces/0.ddtrace',
  node: 'v22.0.0',
  platform: 'linux',
  arch: 'x64',
  mode: 'control',
  seed: '42',
  command: ['node', 'sim.js'],
  lockfile: null,
  calls,
  outputs: 1,
  complete: true,
  exitCode: 0,
});

export const BUMP_REPORT: Report = {
  schema: 'detdrift.report/1',
  verdict: 'diverge',
  runs: { a: run(0), b: run(3) },
  firstDivergence: { process: '0', index: { a: 0, b: 0 }, reason: 'structure', a: null, b: draw },
  outputDivergence: {
    process: '0',
    index: { a: 0, b: 3 },
    reason: 'output',
    a: output('seed 42: aed8\n', 'aa11', 0),
    b: output('seed 42: 64fe\n', 'bb22', 3),
  },
  cause,
  ordering: null,
  confirmation: null,
  nearby: [],
  replay: 'npx detdrift replay base-trace -- node sim.js',
  bump: null,
  differences: {
    processes: [{ process: '0', verdict: 'diverge', inA: true, inB: true }],
    perApi: [
      { key: 'Math.random', a: 0, b: 3 },
      { key: 'Date.now', a: 2, b: 2 },
    ],
    perSite: [],
    uncontrolledValues: 0,
  },
};

/** `detdrift bump`'s shape: the bump section, with replay's confirmation of the cause. */
export const BUMP_SECTION_REPORT: Report = {
  ...BUMP_REPORT,
  confirmation: { status: 'confirmed', pinned: 3, total: 12, runs: 6 },
  bump: {
    verdict: 'changed',
    seed: '42',
    changes: [
      { name: 'tick-queue', from: '1.0.0', to: '1.1.0', kind: 'minor', direct: true, path: ['tick-queue'] },
      { name: 'left-pad', from: null, to: '1.3.0', kind: 'added', direct: false, path: ['tick-queue', 'left-pad'] },
    ],
    addedSites: [
      {
        api: 'Math.random',
        package: 'tick-queue@1.1.0',
        file: 'index.js',
        line: 9,
        column: 43,
        fn: 'push',
        reached: true,
      },
    ],
  },
};

/** `detdrift check --perturb`'s shape: run A is the perturbed run, and the runs agree otherwise. */
export const PERTURB_REPORT: Report = {
  ...BUMP_REPORT,
  perturbation: {
    dimension: 'dir-order',
    detail: 'directory listings reversed',
    tried: [
      { dimension: 'dir-order', detail: 'directory listings reversed', verdict: 'diverge' },
      { dimension: 'clock:dst', detail: 'TZ=Pacific/Chatham', verdict: 'agree' },
    ],
  },
};

export const AGREE_REPORT: Report = {
  ...BUMP_REPORT,
  verdict: 'agree',
  runs: { a: run(5), b: run(5) },
  firstDivergence: null,
  outputDivergence: null,
  cause: null,
  replay: null,
  differences: {
    ...BUMP_REPORT.differences,
    processes: [{ process: '0', verdict: 'agree', inA: true, inB: true }],
    uncontrolledValues: 2,
  },
};

/** Payloads a malicious package could put in file names, function names, values and output. */
export const EVIL = {
  file: 'evil\n::set-output name=x::y\r\n::error::forged.js',
  fn: '::add-mask::secret%0A::error::x, line=1:2',
  package: 'evil,title=x::pkg@6.6.6',
  value: '%0A::error title=forged::yes\n##[add-mask]hidden',
  head: 'ok\n::stop-commands::abc\n::set-env name=NODE_OPTIONS::--require=/tmp/x\n',
  markdown: '<script>alert(1)</script> `code` | cell | **bold** [link](http://x) @octocat <!-- detdrift-report -->',
};

const evilFrame: FrameView = {
  file: `${EVIL.package}/${EVIL.file}`,
  line: 7,
  column: 3,
  fn: EVIL.fn,
  package: EVIL.package,
};
const evilProject: FrameView = {
  file: `src/${EVIL.markdown}\n::warning::x.js`,
  line: 2,
  column: 1,
  fn: EVIL.markdown,
  package: null,
};
const evilEvent: EventView = {
  ...draw,
  api: `Math.random\n::error file=a::forged`,
  value: EVIL.value,
  site: evilFrame,
  stack: [evilFrame, evilProject],
  context: EVIL.markdown,
};

export const EVIL_REPORT: Report = {
  ...BUMP_REPORT,
  firstDivergence: {
    process: '0\n::error::p',
    index: { a: 0, b: 0 },
    reason: 'value',
    a: evilEvent,
    b: { ...evilEvent, value: EVIL.markdown },
  },
  outputDivergence: {
    process: '0',
    index: { a: 1, b: 1 },
    reason: 'output',
    a: output(EVIL.head, 'cc', 1),
    b: output(EVIL.markdown, 'dd', 1),
  },
  cause: {
    ...cause,
    api: evilEvent.api,
    site: evilFrame,
    package: EVIL.package,
    firstPartySite: evilProject,
    stack: [evilFrame, evilProject],
    value: { a: EVIL.value, b: EVIL.head },
    rule: `${EVIL.markdown}\n::error::rule`,
    source: { file: evilFrame.file, line: 7, lines: [[7, `x = "${EVIL.head}" // \`\`\`\n# heading ${EVIL.markdown}`]] },
    bump: { name: `tick-queue\n::endgroup::`, from: '1.0.0%0A', to: EVIL.value, kind: EVIL.markdown },
  },
  replay: `npx detdrift replay 't\n::error::r' -- node ${EVIL.markdown}`,
  bump: {
    verdict: 'changed',
    seed: EVIL.markdown,
    changes: [
      {
        name: EVIL.package,
        from: EVIL.value,
        to: EVIL.head,
        kind: EVIL.markdown,
        direct: false,
        path: [EVIL.file, EVIL.markdown],
      },
    ],
    addedSites: [
      { api: EVIL.markdown, package: EVIL.package, file: EVIL.file, line: 1, column: 2, fn: EVIL.fn, reached: false },
    ],
  },
  perturbation: {
    dimension: EVIL.markdown,
    detail: EVIL.head,
    tried: [{ dimension: EVIL.file, detail: EVIL.markdown, verdict: 'diverge' }],
  },
  differences: {
    ...BUMP_REPORT.differences,
    perApi: [
      { key: EVIL.markdown, a: 1, b: 2 },
      { key: EVIL.value, a: 0, b: 1 },
    ],
  },
};
