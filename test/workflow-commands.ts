/** What a GitHub Actions runner would do with a step's log: the workflow commands it reads. */

/** The commands the Actions runner would act on: `::cmd props::data` at a line's start, legacy `##[cmd]` anywhere, stop-commands. */
export function runnerReads(
  text: string,
): Array<{ command: string; properties: Record<string, string>; data: string }> {
  const registered = new Set([
    'set-output',
    'set-env',
    'add-path',
    'add-mask',
    'add-matcher',
    'remove-matcher',
    'warning',
    'error',
    'notice',
    'debug',
    'group',
    'endgroup',
    'echo',
    'save-state',
    'stop-commands',
  ]);
  const unescape = (value: string, property: boolean) =>
    (property ? value.replaceAll('%3A', ':').replaceAll('%2C', ',') : value)
      .replaceAll('%0D', '\r')
      .replaceAll('%0A', '\n')
      .replaceAll('%25', '%');
  const parse = (line: string, names: Set<string>) => {
    const trimmed = line.trimStart();
    const end = trimmed.indexOf('::', 2);
    if (trimmed.startsWith('::') && end > 0) {
      const [name = '', ...rest] = trimmed.slice(2, end).split(' ');
      const properties = Object.fromEntries(
        rest
          .join(' ')
          .split(',')
          .filter(Boolean)
          .map((pair) => [pair.split('=')[0]!, unescape(pair.slice(pair.indexOf('=') + 1), true)]),
      );
      if (names.has(name)) return { command: name, properties, data: unescape(trimmed.slice(end + 2), false) };
    }
    const legacy = /##\[([^\] ;]+)[^\]]*\](.*)/.exec(line);
    return legacy && names.has(legacy[1]!) ? { command: legacy[1]!, properties: {}, data: legacy[2]! } : null;
  };
  const seen = [];
  let token: string | null = null;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (token !== null) {
      if (parse(line, new Set([token]))) token = null;
      continue;
    }
    const command = parse(line, registered);
    if (!command) continue;
    if (command.command === 'stop-commands') token = command.data;
    seen.push(command);
  }
  return seen;
}
