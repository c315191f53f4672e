import { relative, sep } from 'node:path';
import { Api } from '../tracer/apis.js';
import { SafeMap, StringReplaceAll, StringStartsWith } from '../tracer/primordials.js';
import type { Recorder } from './recorder.js';
import type { RootMask } from './root-mask.js';

/**
 * Where a test runner's tests begin and end, as the runner's adapter (runners/) tells it: each is
 * an event in the trace (`test` start, output, end), and in control mode a scope of its own
 * (control.ts Scope). A test's scope is put on the async context its runner runs it in, at its
 * start, so everything the test does from there (its hooks, its awaits, its timers) draws from it,
 * and nothing the runner does elsewhere (its RPC, its reporting timers, another file's module
 * loads) does. The runner's calls in the test's own context around the test body (its duration
 * reads) are the same in every run, so they move the test's clock alike.
 */
export class Tests {
  private active: string | null = null;
  /** the running test's scope in control mode, for enter() */
  private scope: object | null = null;

  /** how many times each test began in this process (a retried test begins again) */
  private readonly seen = new SafeMap<string, number>();

  constructor(
    private readonly recorder: Recorder,
    private readonly root: string,
    private readonly mask: RootMask,
  ) {}

  /**
   * The test named `name` (the runner's full name) in `file` (an absolute path) begins. `here`: the
   * running context is the ancestor of the test's hooks and body, and takes its scope; a runner
   * whose hooks and body run in contexts made before the test began (node:test) says false, and
   * calls enter() in each of them instead.
   */
  begin(file: string, name: string, here = true): void {
    const key = `${this.projectPath(file)}\u0000${name}`;
    if (this.active !== null) this.end('interrupted');
    this.active = key;
    const recorder = this.recorder;
    const controller = recorder.controller;
    // The contexts the test makes are named from its name, not from what the process ran before:
    // a test that runs after other files, or in another worker, names its awaits and timers alike.
    const seen = (this.seen.get(key) ?? 0) + 1;
    this.seen.set(key, seen);
    if (here) recorder.contexts.rename(`${key}\u0000${seen}`);
    if (controller !== null) {
      if (!controller.scoping)
        controller.scoped(
          () => recorder.contexts.scope(),
          () => recorder.runnerCalls(),
        );
      this.scope = controller.scope(key);
      if (here) recorder.contexts.enterScope(this.scope);
    }
    recorder.string(Api.testStart, 0, key);
    recorder.testRuns(true);
  }

  /** Puts the running context, and what it creates from now on, in the running test's scope (if any). */
  enter(): void {
    if (this.scope !== null) this.recorder.contexts.enterScope(this.scope);
  }

  /** What the runner attributes to the running test: its console output, as the runner formatted it. */
  output(text: string): void {
    if (this.active === null) return;
    const shown = this.mask.text(text);
    this.recorder.chunk(Api.testOutput, 0, shown, shown);
  }

  /** The running test ended with `outcome` (`pass`, `skip`, `fail\n<messages>`). */
  end(outcome: string): void {
    if (this.active === null) return;
    this.active = null;
    this.scope = null;
    this.recorder.testRuns(false);
    this.recorder.string(Api.testEnd, 0, this.mask.text(outcome));
    if (this.recorder.controller !== null) this.recorder.contexts.enterScope(null);
  }

  /** Runs the runner's own `work`, called from inside a test, with the run's streams and clock. */
  outside<T>(work: () => T): T {
    const controller = this.recorder.controller;
    if (controller === null) return work();
    controller.outside++;
    try {
      return work();
    } finally {
      controller.outside--;
    }
  }

  get running(): boolean {
    return this.active !== null;
  }

  /** `file` relative to the project, with `/`: both runs of a bump name it alike. */
  private projectPath(file: string): string {
    const inside = StringStartsWith(file, this.root + sep) ? relative(this.root, file) : file;
    return sep === '/' ? inside : StringReplaceAll(inside, sep, '/');
  }
}
