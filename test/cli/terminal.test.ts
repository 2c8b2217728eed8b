import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressBar } from '../../src/cli/progress-bar.js';
import { Terminal } from '../../src/cli/terminal.js';
import { createLogger, humanLogDestination } from '../../src/logger.js';
import { renderedScreen } from '../support/rendered-screen.js';

/** One shared screen for stdout and stderr, as on a terminal: what was written, in order. */
function screen(isTTY: boolean) {
  let written = '';
  const stream = () => Object.assign(new Writable({ write(chunk, _e, done) { written += String(chunk); done(); } }), { isTTY });
  return { out: stream(), status: stream(), text: () => written };
}

describe('the terminal of serve', () => {
  it('when lines are printed while a progress bar is drawn, then each lands on its own line above the bar, never on the bar\'s line', () => {
    const tty = screen(true);
    const terminal = new Terminal(tty);
    const bar = progressBar('backfill', terminal);
    bar.update(0, 100);
    terminal.print('first log line\n');
    bar.update(100, 100);
    terminal.print('second log line\n');
    bar.finish('100 records stored');
    const lines = renderedScreen(tty.text());
    expect(lines.slice(0, 3)).toEqual(['first log line', 'second log line', expect.stringMatching(/^backfill: 100 records stored in \d+\.\d s$/)]);
    expect(lines.slice(3)).toEqual(['']);
  });

  it('when the output is not a terminal, then no bar is redrawn: progress is a line per tenth and printed text is passed through as is', () => {
    const pipe = screen(false);
    const terminal = new Terminal(pipe);
    const bar = progressBar('backfill', terminal);
    for (let done = 0; done <= 100; done += 5) bar.update(done, 100);
    terminal.print('a log line\n');
    bar.finish('done');
    expect(pipe.text()).not.toMatch(/\r|\x1b/);
    const lines = pipe.text().trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('backfill ['))).toHaveLength(11);
    expect(lines.at(-2)).toBe('a log line');
  });

  it('when stdout is piped while stderr is a terminal, then no bar is redrawn, so it cannot share a line with what goes through the pipe', () => {
    const mixed = screen(true);
    const terminal = new Terminal({ out: Object.assign(new Writable({ write(_c, _e, done) { done(); } }), { isTTY: false }), status: mixed.status });
    const bar = progressBar('backfill', terminal);
    bar.update(0, 100);
    bar.update(50, 100);
    expect(mixed.text()).not.toMatch(/\r|\x1b/);
    expect(mixed.text().split('\n').filter(Boolean)).toEqual([expect.stringMatching(/^backfill \[/), expect.stringMatching(/^backfill \[/)]);
  });

  it('when logs are written for a person, then a request is one short line, secrets stay redacted, and a failure keeps its request id', () => {
    const lines: string[] = [];
    const logger = createLogger('info', humanLogDestination((text) => lines.push(text), false));
    logger.info({ reqId: 'r-1', method: 'GET', route: '/vehicle/:vin', status: 200, ms: 1.4 }, 'request');
    logger.info({ reqId: 'r-2', method: 'POST', route: '/token', status: 401, ms: 3 }, 'request');
    logger.warn({ client_secret: 'tcs_never-shown' }, 'something odd');
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: GET \/vehicle\/:vin 200 1\.4 ms\n$/);
    expect(lines[1]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: POST \/token 401 3 ms \{"reqId":"r-2"\}\n$/);
    expect(lines[2]).toContain('[redacted]');
    expect(lines.join('')).not.toContain('tcs_never-shown');
  });
});
