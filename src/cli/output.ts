/** How CLI commands print: JSON with --json, otherwise aligned text for people. */
export interface Output {
  json: boolean;
  out(text: string): void;
  err(text: string): void;
}

export const processOutput = (json: boolean): Output => ({
  json,
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
});

export function table(rows: readonly Record<string, unknown>[], columns: readonly string[]): string {
  if (rows.length === 0) return '(none)';
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line([...columns]), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}

export function emit(output: Output, value: unknown, text: () => string): void {
  output.out(output.json ? JSON.stringify(value, null, 2) : text());
}

/** An operator mistake: printed as one line, exit code 1, nothing changed. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
