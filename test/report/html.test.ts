/**
 * The HTML report: written by the real CLI from real trace files, then opened from disk in
 * headless Chromium (Debian's package, driven by playwright-core): the cause at the top, the
 * first divergence highlighted, folds that open, no network, and trace strings that stay text.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test, type TestContext } from 'node:test';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { renderHtml } from '../../report/html.js';
import { detdrift, reportOf } from '../cli-fixtures.js';
import { REPO, project, tempDir } from '../helpers.js';
import { program, writeRun } from '../platform-traces.js';
import { AGREE_REPORT, BUMP_REPORT, BUMP_SECTION_REPORT, EVIL_REPORT, PERTURB_REPORT } from '../report-fixture.js';
import { writeTrace, type SyntheticEvent } from '../synthetic.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(REPO, 'test-artifacts');

/** A file name and a value a hostile dependency could put in a trace: each would set the flag if it ever ran. */
const HOSTILE_FILE = 'lib/<script>window.__detdriftPwned = 1</script>.js';
const HOSTILE_VALUE = '<img src=x onerror="window.__detdriftPwned = 2">';

/**
 * A simulation's calls: clock reads, draws and directory reads from a few sites, one of them with
 * the hostile name. Run B's bumped dependency adds one draw at call `extraAt`, and prints another line.
 */
function calls(size: number, extraAt: number | null): SyntheticEvent[] {
  const events: SyntheticEvent[] = [];
  for (let i = 0; i < size; i++) {
    if (i === extraAt) events.push({ api: 'mathRandom', at: 'tick-queue@1.1.0/index.js:2', value: 0.5, control: 1 });
    if (i % 10 === 0) events.push({ api: 'dateNow', at: 'sim.js:3', value: 1_700_000_000_000 + i, control: 1 });
    else if (i % 97 === 0) events.push({ api: 'readdirSync', at: `${HOSTILE_FILE}:1`, value: HOSTILE_VALUE });
    else events.push({ api: 'mathRandom', at: 'sim.js:4', value: ((i * 7919) % 1000) / 1000, control: 1 });
  }
  events.push({ api: 'stdout', at: 'sim.js:6', value: extraAt === null ? 'heads\n' : 'tails\n' });
  return events;
}

/** A project whose traces `a` and `b` part at call `extraAt` of `size`; its sources give the cause a code frame. */
function tracePair(size: number, extraAt: number): string {
  const dir = project({
    'package.json': { name: 'sim', version: '1.0.0' },
    'app.js': "require('./sim.js');\n",
    'sim.js':
      'const queue = require("tick-queue");\n// simulation\nconst now = Date.now();\nconst draw = Math.random();\nqueue.push(draw);\nconsole.log(now, draw);\n',
    'node_modules/tick-queue/package.json': { name: 'tick-queue', version: '1.1.0' },
    'node_modules/tick-queue/index.js':
      'exports.push = (item) => {\n  const jitter = Math.random();\n  return [item, jitter];\n};\n',
  });
  for (const [side, extra] of [
    ['a', null],
    ['b', extraAt],
  ] as const) {
    mkdirSync(join(dir, side));
    writeTrace(join(dir, side), '0', calls(size, extra), { header: { mode: 'control' } });
  }
  return dir;
}

test('the page is self-contained, its policy allows exactly its own style and script, and trace strings stay text', () => {
  const page = renderHtml(EVIL_REPORT);
  assert.equal(page.split('<script').length, 2, 'one script element: ours');
  assert.doesNotMatch(page, /<img|onerror=|<a href="http/);
  assert.ok(page.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the payload is shown as text');
  assert.ok(page.includes('evil\\n::set-output'), 'a line break in a file name is shown as \\n');
  const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/
    .exec(page)?.[1]
    ?.replaceAll('&#39;', "'");
  const hash = (tag: string) =>
    `'sha256-${createHash('sha256')
      .update(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(page)![1]!)
      .digest('base64')}'`;
  assert.equal(
    policy,
    `default-src 'none'; style-src ${hash('style')}; script-src ${hash('script')}; base-uri 'none'; form-action 'none'`,
  );
  assert.equal(renderHtml(EVIL_REPORT), page, 'the same report gives the same page, byte for byte');
});

test('the cause at the top: API, package, call site and code frame, the bump, the first project frame, and the replay command', () => {
  const page = renderHtml(BUMP_REPORT);
  const top = page.slice(0, page.indexOf('</header>'));
  for (const shown of [
    'Math.random',
    'tick-queue@1.1.0',
    'tick-queue@1.1.0/index.js:9:43 push',
    'tick-queue 1.0.0 → 1.1.0 (minor)',
    'sim.js:24:46 simulate',
    'jitter: Math.random()',
    'npx detdrift replay base-trace -- node sim.js',
  ]) {
    assert.ok(top.includes(shown), `the header shows ${shown}`);
  }
  assert.match(top, /<button type="button" data-copy="replay-command">Copy<\/button>/);
  assert.ok(!page.includes('id="timeline"'), 'a report without a timeline (an older saved one) has no lanes');
});

test('what a bump, replay and a perturbation did, and runs that agree', () => {
  const bump = renderHtml(BUMP_SECTION_REPORT);
  for (const shown of [
    'the bump changes how this seed runs',
    'left-pad added at 1.3.0 (added, through tick-queue &gt; left-pad)',
    'confirmed in 6 re-runs',
    '<code>Math.random</code> at <code>tick-queue@1.1.0/index.js:9:43</code> (reached by head)',
  ]) {
    assert.ok(bump.includes(shown), `shows ${shown}`);
  }
  const outside = renderHtml({ ...BUMP_REPORT, nearby: [BUMP_REPORT.firstDivergence!.b!] });
  assert.ok(
    outside.includes('<li>#0 <code>Math.random</code> 0.25 at <code>tick-queue@1.1.0/index.js:9:43 push</code></li>'),
    'the I/O nearest an unexplained divergence',
  );
  assert.match(
    renderHtml(PERTURB_REPORT),
    /<code>dir-order<\/code> makes the runs part: run A had <code>directory listings reversed<\/code>/,
  );
  const agree = renderHtml(AGREE_REPORT);
  assert.ok(
    agree.includes(
      '<header id="verdict" class="verdict agree"><h1>detdrift: the runs agree</h1><p>control mode, seed 42: 5 calls and 1 outputs matched; 2 uncontrolled values differ',
    ),
  );
});

test('a long trace renders from a bounded window: the page is as small as for a short one', () => {
  const sizes = [2_000, 200_000].map((size) => {
    const dir = tracePair(size, size - 500);
    const run = detdrift(['diff', 'a', 'b', '--no-confirm', '--json', '--report', 'html=page.html'], dir);
    const { timeline } = reportOf(run, 1);
    assert.ok(timeline && timeline.ops.length <= 2 * 250, `a bounded window, got ${timeline?.ops.length}`);
    assert.equal(
      timeline.before.a + timeline.ops.filter((op) => op.a).length + timeline.after.a,
      size,
      'every call of run A is counted once',
    );
    assert.equal(timeline.ops[timeline.at]?.kind, 'inserted', 'the first divergence is the inserted draw');
    return statSync(join(dir, 'page.html')).size;
  });
  assert.ok(sizes[1]! < 1.2 * sizes[0]! && sizes[1]! < 300_000, `page sizes ${sizes.join(' and ')} bytes`);
});

test('report --format html re-renders a saved report into the same page; bad input is ERR_REPORT_FILE', () => {
  const dir = tracePair(300, 150);
  const run = detdrift(['diff', 'a', 'b', '--no-confirm', '--report', 'html=first.html,json=saved.json'], dir);
  assert.equal(run.code, 1, run.stderr);
  assert.equal(detdrift(['report', 'saved.json', '--format', 'html', '-o', 'again.html'], dir).code, 0);
  assert.equal(detdrift(['report', 'a', 'b', '--format', 'html', '-o', 'traces.html'], dir).code, 0);
  const first = readFileSync(join(dir, 'first.html'), 'utf8');
  // A saved report's replay command is made again from its seed, its mode and the command given after --.
  assert.equal(
    detdrift(['report', 'saved.json', '--format', 'html', '-o', 'named.html', '--', process.execPath, 'app.js'], dir)
      .code,
    0,
  );
  assert.equal(
    readFileSync(join(dir, 'named.html'), 'utf8'),
    first.replace(
      /(<code id="replay-command">)[^<]*/,
      `$1npx detdrift check --keep --mode control --runs 2 --seed 1 -- ${process.execPath} app.js`,
    ),
  );
  assert.equal(
    readFileSync(join(dir, 'again.html'), 'utf8'),
    first.replace(
      /<p>Replay run A locally:.*?<\/div>/,
      '<p>Replay run A locally: not shown: a report read from a file does not choose the command to run; name it after -- to have the replay command made from the seed and mode.</p>',
    ),
  );
  assert.equal(
    readFileSync(join(dir, 'traces.html'), 'utf8'),
    first.replace(/<p>Replay run A locally:.*?<\/div>/, ''),
    'compared without a replay command',
  );
  writeFileSync(join(dir, 'bad.json'), JSON.stringify({ ...BUMP_REPORT, timeline: { ops: 'x' } }));
  const bad = detdrift(['report', 'bad.json', '--format', 'html'], dir);
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /ERR_REPORT_FILE: .*bad\.json is not a detdrift report \(detdrift\.report\/1\): timeline lacks its ops list/,
  );
});

test('in headless Chromium: cause on top, divergence highlighted and in view, folds open on click, no network, hostile names inert', async (t) => {
  if (!browserAvailable(t)) return;
  const dir = tracePair(3_000, 1_500);
  assert.equal(detdrift(['diff', 'a', 'b', '--no-confirm', '--report', 'html=report.html'], dir).code, 1);
  const matrix = tempDir('detdrift-matrix-');
  writeRun(matrix, 'linux-20-seed42', 'linux', program('linux'));
  writeRun(
    matrix,
    'darwin-20-seed42',
    'darwin',
    program('darwin', { listing: ['b.txt', 'a.txt'], printed: HOSTILE_FILE }),
  );
  assert.equal(detdrift(['matrix', matrix, '--report', `html=${join(dir, 'matrix.html')}`], dir).code, 1);
  writeFileSync(join(dir, 'bump.html'), renderHtml(BUMP_REPORT));

  const context = await launch();
  try {
    const report = await open(context, join(dir, 'report.html'));
    assert.match(await report.page.locator('#cause').innerText(), /Math\.random in tick-queue@1\.1\.0, seen in run B/);
    assert.ok((await report.page.locator('#cause').boundingBox())!.y < 300, 'the cause is at the top');
    assert.match(await report.page.locator('pre.source .hit').innerText(), /const jitter = Math\.random\(\);/);
    const divergence = report.page.locator('#divergence');
    assert.match((await divergence.getAttribute('class'))!, /\bdivergence\b/);
    assert.match(await divergence.innerText(), /#1500\s+Math\.random\s+0\.5/);
    const [lanes, row] = [await report.page.locator('.lanes').boundingBox(), await divergence.boundingBox()];
    assert.ok(
      row!.y >= lanes!.y && row!.y + row!.height <= lanes!.y + lanes!.height,
      'the script scrolled the lanes to the divergence',
    );
    const fold = report.page.locator('details.fold').first();
    assert.equal(await fold.getAttribute('open'), null);
    await fold.locator('summary').click();
    assert.equal(await fold.getAttribute('open'), '');
    assert.ok(await fold.locator('.op').first().isVisible(), 'a folded stretch shows its calls once open');
    await report.page.locator('button[data-copy="replay-command"]').click();
    await report.page.locator('button[data-copy="replay-command"]', { hasText: 'Copied' }).waitFor();
    assert.ok(
      (await report.page.locator('#counts').innerText()).includes(HOSTILE_FILE),
      'the hostile file name is shown as text',
    );
    assert.ok(
      (await report.page.locator('.lanes').innerText()).includes(HOSTILE_VALUE.replaceAll('"', '\\"')),
      'the hostile value is shown as text (quoted, as values are)',
    );
    await screenshot(t, report.page, 'html-report.png');

    const bump = await open(context, join(dir, 'bump.html'));
    assert.match(
      await bump.page.locator('#verdict').innerText(),
      /brought by\s+tick-queue 1\.0\.0 → 1\.1\.0 \(minor\)/,
    );

    const grid = await open(context, join(dir, 'matrix.html'));
    assert.match(await grid.page.locator('table.grid').innerText(), /darwin, Node 20\s+platform-specific/);
    assert.ok(
      (await grid.page.locator('#timeline').innerText()).includes('fs.readdir'),
      "the first diverging run's report follows the grid",
    );
    await screenshot(t, grid.page, 'html-matrix.png');

    for (const opened of [report, bump, grid]) {
      assert.equal(await opened.page.evaluate('window.__detdriftPwned'), undefined, 'no script from a trace ran');
      assert.deepEqual(opened.requests, [opened.url], 'the page loads nothing');
      assert.deepEqual(opened.errors, [], 'no script error and no policy violation');
    }
  } finally {
    await context.close();
  }
});

/** Chromium is Debian's package, which `.ci/run` installs: on CI its absence is a failure, elsewhere a skip. */
function browserAvailable(t: TestContext): boolean {
  if (existsSync(CHROMIUM)) return true;
  assert.notEqual(
    process.env.CI,
    'true',
    `${CHROMIUM} is missing: install Debian's chromium package (.ci/run does) to check the HTML report in a browser`,
  );
  t.skip(`${CHROMIUM} is missing (Debian's chromium package)`);
  return false;
}

async function launch(): Promise<BrowserContext> {
  return chromium.launchPersistentContext(tempDir('detdrift-chromium-'), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

interface Opened {
  readonly page: Page;
  readonly url: string;
  /** every request the page made, its own included */
  readonly requests: string[];
  /** uncaught errors and console errors (a blocked script or style logs one) */
  readonly errors: string[];
}

async function open(context: BrowserContext, file: string): Promise<Opened> {
  const page = await context.newPage();
  const url = pathToFileURL(file).href;
  const opened: Opened = { page, url, requests: [], errors: [] };
  page.on('request', (request) => opened.requests.push(request.url()));
  page.on('pageerror', (error) => opened.errors.push(error.message));
  page.on('console', (message) => message.type() === 'error' && opened.errors.push(message.text()));
  await page.goto(url);
  return opened;
}

/** Kept under test-artifacts/ (not committed) for a person to look at. */
async function screenshot(t: TestContext, page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, name);
  await page.screenshot({ path, fullPage: true });
  t.diagnostic(`screenshot: ${path}`);
}
