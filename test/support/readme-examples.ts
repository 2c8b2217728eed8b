/**
 * The README's walk-through as something to run: its shell blocks cut into steps (a run of
 * command lines and the `# ` output lines right under them), a script that runs every step in one
 * shell with a marker before each, and the matching rules the README states: `…` stands for any
 * text within a line, a line `# …` for any number of lines, and a line indented after its `#`
 * continues the line above.
 */
export interface ExampleStep {
  /** The command lines, as in the README. */
  readonly command: string;
  /** The output lines shown under it (continuations joined); empty: the command prints nothing. */
  readonly expected: readonly string[];
  /** Line of README.md where the step starts (1-based), for failure messages. */
  readonly line: number;
}

export const WALKTHROUGH_HEADING = '## Walk-through with curl';
export const ELLIPSIS = '…';

/** The section from its heading to the next `## ` heading, with the line its text starts on. */
export function walkthroughSection(readme: string): { text: string; firstLine: number } {
  const start = readme.indexOf(`\n${WALKTHROUGH_HEADING}\n`);
  if (start < 0) throw new Error(`README.md has no "${WALKTHROUGH_HEADING}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  return { text: readme.slice(start + 1, end < 0 ? undefined : end + 1), firstLine: readme.slice(0, start + 1).split('\n').length };
}

export function exampleSteps(readme: string): ExampleStep[] {
  const { text, firstLine } = walkthroughSection(readme);
  const lines = text.split('\n');
  const steps: ExampleStep[] = [];
  let inBlock = false;
  let command: string[] = [];
  let expected: string[] = [];
  let stepLine = 0;
  const finish = () => {
    if (command.length > 0) steps.push({ command: command.join('\n'), expected, line: stepLine });
    command = [];
    expected = [];
  };
  lines.forEach((line, index) => {
    if (!inBlock) {
      if (line.trim() === '```sh') inBlock = true;
      return;
    }
    if (line.trim() === '```') {
      finish();
      inBlock = false;
      return;
    }
    const comment = /^#(?: (.*))?$/.exec(line);
    // Right under a command (no blank line between), `#` lines are its output; elsewhere, notes.
    if (comment && command.length > 0) {
      const shown = comment[1] ?? '';
      // `#   text` continues the line above (a long answer wrapped for reading).
      if (/^\s/.test(shown) && expected.length > 0) expected[expected.length - 1] += shown.trimStart();
      else expected.push(shown);
      return;
    }
    if (comment || line.trim() === '') {
      finish();
      return;
    }
    if (expected.length > 0) finish();
    if (command.length === 0) stepLine = firstLine + index;
    command.push(line);
  });
  return steps;
}

const MARKER = '\x1eSTEP';

/** One script for every step in one shell, a marker printed before each; stderr joins stdout so errors show. */
export function walkthroughScript(steps: readonly ExampleStep[]): string {
  return ['exec 2>&1', ...steps.flatMap((step, i) => [`printf '\\n${MARKER} %d\\n' ${i}`, step.command])].join('\n') + '\n';
}

/** The output of each step, from the script's whole output. */
export function stepOutputs(output: string, count: number): string[] {
  const outputs = Array.from({ length: count }, () => '');
  const parts = output.split(new RegExp(`\\n${MARKER} (\\d+)\\n`));
  for (let i = 1; i < parts.length; i += 2) outputs[Number(parts[i])] = parts[i + 1]!;
  return outputs;
}

/** Whether `actual` (a step's output) is what `expected` shows, by the README's rules. */
export function matchesShown(expected: readonly string[], actual: string): boolean {
  const lines = actual.replace(/\r/g, '').replace(/\n+$/, '');
  const actualLines = lines === '' ? [] : lines.split('\n');
  return matchLines(expected, 0, actualLines, 0);
}

function matchLines(expected: readonly string[], e: number, actual: readonly string[], a: number): boolean {
  if (e === expected.length) return a === actual.length;
  if (expected[e] === ELLIPSIS) {
    for (let skip = a; skip <= actual.length; skip += 1) if (matchLines(expected, e + 1, actual, skip)) return true;
    return false;
  }
  return a < actual.length && matchesLine(expected[e]!, actual[a]!) && matchLines(expected, e + 1, actual, a + 1);
}

/**
 * `…` matches any run of characters, but a `…` standing for a whole JSON string (`"…"`) matches
 * no quote: it cannot swallow the fields or objects after it. The rest is literal. Each piece is
 * found at its first place (linear: answers can be megabytes).
 */
export function matchesLine(pattern: string, line: string): boolean {
  const parts = pattern.split(ELLIPSIS);
  if (parts.length === 1) return pattern === line;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!line.startsWith(first) || line.length < first.length + last.length || !line.endsWith(last)) return false;
  const inString = (i: number) => parts[i]!.endsWith('"') && parts[i + 1]!.startsWith('"');
  let at = first.length;
  const end = line.length - last.length;
  for (let i = 1; i < parts.length - 1; i += 1) {
    const found = line.indexOf(parts[i]!, at);
    if (found < 0 || found + parts[i]!.length > end) return false;
    if (inString(i - 1) && line.slice(at, found).includes('"')) return false;
    at = found + parts[i]!.length;
  }
  return !(inString(parts.length - 2) && line.slice(at, end).includes('"'));
}
