/**
 * The curl examples of the documentation as something to run: the shell blocks of a Markdown
 * text cut into steps (a run of command lines and the `# ` output lines right under them), a
 * script that runs every step in one shell with a marker before each, and the matching rules the
 * walk-through states: `…` stands for any text within a line, a line `# …` for any number of
 * lines, and a line indented after its `#` continues the line above.
 */
export interface ExampleStep {
  /** The command lines, as in the file. */
  readonly command: string;
  /** The output lines shown under it (continuations joined); empty: the command prints nothing. */
  readonly expected: readonly string[];
  /** The file the step is in, repository-relative, for failure messages. */
  readonly file: string;
  /** Line of that file where the step starts (1-based). */
  readonly line: number;
}

/** The full walk-through: every shell block in it is a step run against `npm start`'s demo. */
export const WALKTHROUGH_FILE = 'docs/walkthrough.md';
/** The README's short taste of the walk-through, run before it in the same shell. */
export const README_TASTE_HEADING = '## Try it with curl';
export const ELLIPSIS = '…';

/**
 * The section under `heading` (a whole line, `## …`) up to the next heading of its level or a
 * higher one outside code blocks (where `# ` lines are output), with the line its text starts on.
 */
export function markdownSection(markdown: string, heading: string, file: string): { text: string; firstLine: number } {
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`${file} has no "${heading}" section`);
  const level = /^#+/.exec(heading)![0].length;
  let inBlock = false;
  let end = start + 1;
  for (; end < lines.length; end += 1) {
    if (lines[end]!.startsWith('```')) inBlock = !inBlock;
    const hashes = /^(#+) /.exec(lines[end]!)?.[1];
    if (!inBlock && hashes !== undefined && hashes.length <= level) break;
  }
  return { text: lines.slice(start, end).join('\n') + '\n', firstLine: start + 1 };
}

/** The steps of every ```sh block in `text`, which starts on line `firstLine` of `file`. */
export function exampleSteps(text: string, file: string, firstLine = 1): ExampleStep[] {
  const lines = text.split('\n');
  const steps: ExampleStep[] = [];
  let inBlock = false;
  let command: string[] = [];
  let expected: string[] = [];
  let stepLine = 0;
  const finish = () => {
    if (command.length > 0) steps.push({ command: command.join('\n'), expected, file, line: stepLine });
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

/** Whether `actual` (a step's output) is what `expected` shows, by the walk-through's rules. */
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
