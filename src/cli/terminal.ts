/**
 * What `serve` writes for a person: the banner, log lines and one status line (a progress bar)
 * that stays at the bottom. On a terminal, text printed while the status line is drawn goes above
 * it: the line is cleared, the text written, the line drawn again, so a bar and log lines never
 * share a line. Off a terminal there is no status line to keep: text is written as it comes.
 */
export interface TerminalStreams {
  /** Where text goes (the banner, log lines). */
  readonly out: NodeJS.WritableStream & { isTTY?: boolean };
  /** Where the status line is drawn (stderr: a pipe of stdout stays free of progress). */
  readonly status: NodeJS.WritableStream & { isTTY?: boolean };
}

const CLEAR_LINE = '\r\x1b[K';

export class Terminal {
  #statusText = '';

  constructor(private readonly streams: TerminalStreams = { out: process.stdout, status: process.stderr }) {}

  /**
   * True when the status line can be redrawn in place: both streams are terminals. With stdout
   * piped (`npm start | tee log`) the JSON lines would reach the screen through the pipe, where
   * the bar on stderr cannot make room for them.
   */
  get interactive(): boolean {
    return this.streams.status.isTTY === true && this.streams.out.isTTY === true;
  }

  /** Writes text (ending in a newline) above the status line. */
  print(text: string): void {
    if (this.#statusText === '') {
      this.streams.out.write(text);
      return;
    }
    this.streams.status.write(CLEAR_LINE);
    this.streams.out.write(text);
    this.streams.status.write(this.#statusText);
  }

  /** Draws (or replaces) the status line; only on a terminal. */
  showStatus(text: string): void {
    if (!this.interactive) return;
    this.#statusText = text;
    this.streams.status.write(CLEAR_LINE + text);
  }

  /** Removes the status line and writes `text` (a final line) to the status stream in its place. */
  endStatus(text: string): void {
    const drawn = this.#statusText !== '';
    this.#statusText = '';
    this.streams.status.write((drawn ? CLEAR_LINE : '') + text);
  }

  /** Writes a line to the status stream without keeping it (progress off a terminal). */
  note(text: string): void {
    this.streams.status.write(text);
  }
}
