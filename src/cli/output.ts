/** How CLI commands print: JSON with --json, otherwise aligned text for people. */
import { escapeUnsafeText } from '../domain/safe-text.js';

export interface Output {
  json: boolean;
  out(text: string): void;
  err(text: string): void;
}

/**
 * What is printed can hold stored names and echoed input: characters a terminal would obey are
 * escaped on the way out (in JSON too, where `\uXXXX` is the same value).
 */
const terminalSafe = (text: string) => escapeUnsafeText(text.endsWith('\n') ? text : `${text}\n`, { keepNewlines: true });

export const processOutput = (json: boolean): Output => ({
  json,
  out: (text) => process.stdout.write(terminalSafe(text)),
  err: (text) => process.stderr.write(terminalSafe(text)),
});

/** Cells are escaped before they are measured, so columns stay aligned. */
export function table(rows: readonly Record<string, unknown>[], columns: readonly string[]): string {
  if (rows.length === 0) return '(none)';
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : escapeUnsafeText(String(v)));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line([...columns]), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}

export function emit(output: Output, value: unknown, text: () => string): void {
  output.out(output.json ? JSON.stringify(value, null, 2) : text());
}

/** The one line an error is printed as; it may echo operator input, so it is escaped. */
export function errorLine(message: string): string {
  return `telematics: ${escapeUnsafeText(message.replace(/\n\s*/g, '; '))}\n`;
}

/** An operator mistake: printed as one line, exit code 1, nothing changed. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
