import pc from 'picocolors';
import {
  describeMatched,
  describeBumpVerdict,
  describeNextStep,
  describeChangedCode,
  describeConfidence,
  describeConfirmation,
  describeFailure,
  describeControl,
  describeContext,
  describeContexts,
  describeDivergence,
  describeFrame,
  describeOrdering,
  describeCauseProcess,
  describeStackNote,
  describeWarmup,
  siteUnknown,
} from './describe.js';
import { clip, describeValue, runNames } from './text.js';
import { codeFrameText } from './code-frame.js';
import { describeSeedCause, describeSeeds } from './seeds.js';
import type {
  BumpSectionView,
  BumpView,
  CauseView,
  DivergenceView,
  EventView,
  FailureView,
  FrameView,
  PerturbationView,
  Report,
  RunNames,
  SeedView,
  TestsView,
  TestView,
  ValueView,
} from './types.js';

export interface TerminalOptions {
  /** ANSI colors: only when writing to a terminal */
  readonly color: boolean;
  readonly width?: number;
  /** `--verbose`: each frame with where a source map moved it from */
  readonly verbose?: boolean;
}

/** picocolors' functions, each a no-op without colours. */
type Paint = ReturnType<typeof pc.createColors>;

/** `12 tests compared` or `12 tests compared, 2 differ`. */
function describeTests({ compared, differing }: TestsView): string {
  return `${compared} test${compared === 1 ? '' : 's'} compared${differing > 0 ? `, ${differing} differ` : ''}`;
}

/** The first test that differs, and what differs in it; then the rest of the report is about its calls. */
function renderTest(tests: TestsView, test: TestView, names: RunNames, paint: Paint): string[] {
  const label = `${test.file} › ${test.name}${test.occurrence > 1 ? ` (run ${test.occurrence})` : ''}`;
  const out = [`${paint.bold('first differing test')}  ${label}  (${describeTests(tests)})`];
  const ended = (outcome: string | null) =>
    outcome === null ? 'did not end' : clip(outcome.replace(/\n/g, ' | '), 100);
  if (test.differs === 'missing') {
    const ran = test.process.a === null ? names.b : names.a;
    out.push(`  it ran in ${ran} only (process ${test.process.a ?? test.process.b})`);
  } else if (test.differs === 'outcome') {
    out.push(`  ${names.a}: ${ended(test.outcome.a)}`, `  ${names.b}: ${ended(test.outcome.b)}`);
  } else if (test.differs === 'output') {
    out.push(`  it printed something else (outcome in both runs: ${ended(test.outcome.a)})`);
  } else {
    out.push(`  it drew other values (outcome and output the same: ${ended(test.outcome.a)})`);
  }
  out.push(`  ran in process ${test.process.a ?? '-'} (${names.a}) and ${test.process.b ?? '-'} (${names.b})`);
  return out;
}

/** The report for a person at a terminal: the verdict, the cause with its code frame, the two stacks side by side. */
export function renderTerminal(report: Report, options: TerminalOptions): string {
  const paint = pc.createColors(options.color);
  const verbose = options.verbose === true;
  const out: string[] = [];
  const { a } = report.runs;
  if (report.failure) out.push(...renderFailure(report.failure, paint), '');
  const names = runNames(report);
  if (report.verdict === 'agree') {
    out.push(paint.green('detdrift: the runs agree'));
    if (report.tests) out.push(`  ${describeTests(report.tests)}: each test's outcome and output are the same`);
    else
      out.push(
        `  ${describeMatched(report)} (${report.differences.uncontrolledValues} uncontrolled values differ, as they may in ${a?.mode ?? 'observe'} mode)`,
      );
    if (report.ordering) out.push(`  note: ${describeOrdering(report.ordering)}; the outputs did not depend on it`);
    if (report.warmup) out.push(`  warm-up: ${describeWarmup(report.warmup)}`);
    if (report.perturbation) out.push(...renderPerturbation(report.perturbation, names, paint));
    if (report.seeds) out.push('', ...renderSeeds(report.seeds, paint));
    out.push(...renderTraceProblems(report, names, paint), ...renderNext(report, paint));
    return out.join('\n') + '\n';
  }
  const process = report.firstDivergence?.process ?? '?';
  const test = report.tests?.first ?? null;
  out.push(
    paint.red(`detdrift: the runs diverge`) +
      ` (${test ? 'test' : `process ${process}`}${a ? `, ${a.mode} mode, seed ${a.seed ?? 'none'}` : ''})`,
  );
  if (report.tests && test) out.push(...renderTest(report.tests, test, names, paint));
  if (report.warmup) out.push(`  warm-up: ${describeWarmup(report.warmup)}`);
  out.push('');
  if (report.seeds) out.push(...renderSeeds(report.seeds, paint), '');
  if (report.bump) out.push(...renderBump(report.bump, paint), '');
  if (report.perturbation) out.push(...renderPerturbation(report.perturbation, names, paint), '');
  if (report.cause)
    out.push(...renderCause(report.cause, names, paint, report.firstDivergence?.process ?? null, verbose));
  if (report.confirmation) out.push('', `replay  ${describeConfirmation(report.confirmation, names)}`);
  if (report.nearby.length > 0) {
    out.push(
      '',
      paint.bold('nearest I/O, timer and fs calls') + ` (${names.a}'s, by distance from the first output divergence)`,
    );
    for (const event of report.nearby) out.push(`  #${event.index} ${formatEvent(event, verbose)}`);
  }
  if (report.firstDivergence)
    out.push(
      '',
      ...renderDivergence('first divergence', report.firstDivergence, names, paint, options.width ?? 100, verbose),
    );
  const output = report.outputDivergence;
  const first = report.firstDivergence;
  if (output && !(first && first.reason === output.reason && first.index.a === output.index.a)) {
    out.push(
      '',
      ...renderDivergence('first output divergence', output, names, paint, options.width ?? 100, verbose, false),
    );
  }
  const changed = report.differences.perApi.filter((row) => row.a !== row.b);
  if (changed.length > 0) {
    // The counts' columns start after the key's 2 + 22 + 1 characters.
    out.push('', paint.bold('calls per API') + `${' '.repeat(12)}${names.a.padStart(6)}   ${names.b.padStart(6)}`);
    for (const row of changed)
      out.push(`  ${row.key.padEnd(22)} ${String(row.a).padStart(6)}   ${String(row.b).padStart(6)}`);
  }
  const causes = new Set(report.attempts?.flatMap((attempt) => (attempt.cause ? [attempt.cause] : [])));
  if (causes.size > 1) {
    out.push('', paint.bold('attempts') + '  the cause differs between the runs compared with run 1:');
    for (const attempt of report.attempts!) out.push(`  run ${attempt.run}: ${attempt.cause ?? 'agrees'}`);
  }
  const others = report.differences.processes.filter(
    (entry) => entry.verdict === 'diverge' && entry.process !== process && !test,
  );
  if (others.length > 0) out.push('', `other diverging processes: ${others.map((entry) => entry.process).join(', ')}`);
  out.push(...renderTraceProblems(report, names, paint));
  const replay = report.replay ?? report.replayNote;
  if (replay) out.push('', `replay ${names.a} locally: ${replay}`);
  out.push(...renderNext(report, paint));
  return out.join('\n') + '\n';
}

/** The report's last word: what to do next. */
function renderNext(report: Report, paint: Paint): string[] {
  return (report.next ?? []).flatMap((step, index) => [
    ...(index === 0 ? [''] : []),
    `${index === 0 ? paint.bold('next') : '    '}   ${describeNextStep(step)}`,
  ]);
}

/** A seed list: the counts, the diverging seeds with their causes, the others as runs. */
function renderSeeds(seeds: readonly SeedView[], paint: Paint): string[] {
  const words = describeSeeds(seeds);
  const out = [paint.bold(words.counts)];
  for (const entry of words.diverged)
    out.push(`  ${paint.red('diverge')}      ${entry.seed ?? 'none'}: ${describeSeedCause(entry)}`);
  if (words.moreDiverged) out.push(`               ${words.moreDiverged}`);
  if (words.agreed) out.push(`  ${paint.green('agree')}        ${words.agreed}`);
  if (words.notChecked) out.push(`  not checked  ${words.notChecked} (${words.whyNotChecked})`);
  return out;
}

/** What was wrong with the traces: a report on damaged traces must say so wherever it is read. */
function renderTraceProblems(report: Report, names: RunNames, paint: Paint): string[] {
  const problems = report.traceProblems ?? [];
  if (problems.length === 0) return [];
  const out = ['', paint.yellow('trace problems') + ' (the comparison covers what could be read)'];
  for (const problem of problems)
    out.push(`  ${names[problem.run]} ${problem.trace}: ${problem.code}: ${problem.message}`);
  return out;
}

function renderCause(
  cause: CauseView,
  names: RunNames,
  paint: Paint,
  diverged: string | null,
  verbose: boolean,
): string[] {
  const formatFrame = (frame: FrameView) => describeFrame(frame, verbose);
  const out: string[] = [];
  if (cause.kind === 'outside') {
    out.push(paint.bold('cause') + '  not explained by an intercepted source: ' + cause.rule);
    if (cause.bump) out.push(`       ${describeChangedCode(cause.bump)}`);
    else out.push("       (I/O completion order, a worker race, a native addon, or the program's own logic)");
    return out;
  }
  if (cause.kind === 'ordering') {
    out.push(
      paint.bold('cause') +
        `  an ordering difference: ${describeContexts(cause.contexts ?? [])} finished in a different order`,
    );
  } else {
    const where = cause.package
      ? ` in ${paint.yellow(cause.package)}`
      : siteUnknown(cause)
        ? ' at an unknown call site'
        : ' in the project';
    out.push(
      paint.bold('cause') +
        `  ${paint.bold(cause.api ?? '?')}${cause.form && cause.form !== 'call' ? ` (${cause.form})` : ''}${where}, seen in ${names[cause.run]}`,
    );
    out.push(`       why: ${cause.rule} (${describeConfidence(cause.confidence)})`);
    if (cause.value)
      out.push(`       value: ${names.a} ${formatValue(cause.value.a)}, ${names.b} ${formatValue(cause.value.b)}`);
    if (cause.bump)
      out.push(
        `       brought by ${paint.yellow(cause.bump.name)} ${cause.bump.from ?? '(none)'} → ${cause.bump.to ?? '(removed)'} (${cause.bump.kind}${through(cause.bump)})`,
      );
  }
  const crossed = describeCauseProcess(cause, diverged);
  if (crossed) out.push(`       in ${crossed}`);
  if (cause.site) out.push(`       at ${formatFrame(cause.site)}`);
  const stackNote = describeStackNote(cause);
  if (stackNote) out.push(`       ${cause.site ? 'its stack' : 'call site unknown'}: ${stackNote}`);
  if (cause.firstPartySite && !(cause.site && formatFrame(cause.site) === formatFrame(cause.firstPartySite)))
    out.push(`       first project frame: ${formatFrame(cause.firstPartySite)}`);
  if (cause.source)
    out.push(
      '',
      ...codeFrameText(cause.source, paint.isColorSupported)
        .split('\n')
        .map((line) => `  ${line}`),
    );
  return out;
}

/** The command's failure comes first: whatever the runs did, it is what a user must fix. */
function renderFailure(failure: FailureView, paint: Paint): string[] {
  return [
    paint.red(`detdrift: ${describeFailure(failure)}`),
    ...failure.stderr.map((line) => `  ${paint.dim('│')} ${line}`),
  ];
}

/** Which perturbation run A had (run B is the plain run), then every one tried. */
function renderPerturbation(perturbation: PerturbationView, names: RunNames, paint: Paint): string[] {
  const out = perturbation.dimension
    ? [
        paint.bold('perturbation') +
          `  ${paint.yellow(perturbation.dimension)} makes the runs part: ${names.a} had ${perturbation.detail}, ${names.b} is the plain run`,
      ]
    : [
        paint.bold('perturbation') +
          `  none of the ${perturbation.tried.length} perturbations tried makes the runs part`,
      ];
  for (const tried of perturbation.tried)
    out.push(
      `  ${tried.verdict === 'diverge' ? paint.red('diverge') : paint.green('agree  ')}  ${tried.dimension.padEnd(18)} ${tried.detail}`,
    );
  return out;
}

/** `, through app-dep > leaf` for a transitive bump; nothing for a direct one. */
function through(bump: BumpView): string {
  return bump.path && bump.path.length > 1 ? `, through ${bump.path.join(' > ')}` : '';
}

function renderBump(bump: BumpSectionView, paint: Paint): string[] {
  const out = [paint.bold('bump') + `   ${describeBumpVerdict(bump.verdict)} (seed ${bump.seed ?? 'none'})`];
  for (const change of bump.changes) {
    const via = change.direct ? 'direct' : `via ${change.path.join(' > ')}`;
    out.push(`       ${change.name} ${change.from ?? '(none)'} → ${change.to ?? '(removed)'} (${change.kind}, ${via})`);
  }
  const line = (site: BumpSectionView['addedSites'][number]) =>
    `       + ${site.api} at ${site.package}/${site.file}:${site.line}:${site.column}${site.fn ? ` ${site.fn}` : ''}${site.reached ? ' (reached by head)' : ''}`;
  const browser = bump.addedSites.filter((site) => site.browserOnly);
  out.push(...bump.addedSites.filter((site) => !site.browserOnly).map(line));
  if (browser.length > 0)
    out.push(`       in builds for browsers, which Node does not load (${browser.length}):`, ...browser.map(line));
  return out;
}

function renderDivergence(
  title: string,
  divergence: DivergenceView,
  names: RunNames,
  paint: Paint,
  width: number,
  verbose: boolean,
  stacks = true,
): string[] {
  const out = [paint.bold(title) + `  ${describeDivergence(divergence, names)}`];
  const label = Math.max(names.a.length, names.b.length) + 1;
  out.push(`  ${`${names.a}:`.padEnd(label)} ${formatEvent(divergence.a, verbose)}`);
  out.push(`  ${`${names.b}:`.padEnd(label)} ${formatEvent(divergence.b, verbose)}`);
  const contexts = [divergence.a?.context, divergence.b?.context];
  if (contexts[0] && contexts[1] && contexts[0] !== contexts[1]) {
    out.push(
      `  the calls ran in different places: ${names.a} in ${describeContext(contexts[0])}, ${names.b} in ${describeContext(contexts[1])}`,
    );
  }
  if (!stacks) return out;
  const left = (divergence.a?.stack ?? []).map((frame) => describeFrame(frame, verbose));
  const right = (divergence.b?.stack ?? []).map((frame) => describeFrame(frame, verbose));
  if (left.length + right.length === 0) return out;
  const column = Math.max(20, Math.floor((width - 6) / 2));
  out.push('', `  ${`stack, ${names.a}`.padEnd(column)}  stack, ${names.b}`);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    out.push(`  ${clip(left[i] ?? '', column).padEnd(column)}  ${clip(right[i] ?? '', column)}`);
  }
  return out;
}

function formatEvent(event: EventView | null, verbose: boolean): string {
  if (!event) return '(no such call: the run ends or makes none here)';
  const form = event.form === 'call' ? '' : ` (${event.form})`;
  const site = event.site ? ` at ${describeFrame(event.site, verbose)}` : ' (stack not taken)';
  return `${event.api}${form} = ${formatValue(event.value)}${describeControl(event.controlledBy)}${site}`;
}

function formatValue(value: ValueView): string {
  return describeValue(value, 60, 50);
}
