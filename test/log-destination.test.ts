/**
 * Log lines gathered into blocks (src/log-destination.ts): every line arrives, in order, within the
 * gathering time, and none is lost when the process ends, of itself or by `process.exit`. The
 * process cases run the built logger (dist/, `npm test` builds first) in a child process writing
 * to a real pipe: 500 lines (~50 KB), all still gathered when the process ends, and fewer bytes than
 * the pipe holds, so no write of theirs waits for the reader.
 */
import { execFile } from 'node:child_process';
import { pbkdf2 } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { GatheredLogDestination } from '../src/log-destination.js';

const run = promisify(execFile);

function target() {
  const blocks: string[] = [];
  let syncFlushes = 0;
  return {
    blocks,
    syncFlushes: () => syncFlushes,
    stream: { write: (block: string) => void blocks.push(block), flushSync: () => void syncFlushes++, destroyed: false },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('gathered log destination', () => {
  it('when lines are written, then they reach the target together, in order, after the gathering time', async () => {
    const t = target();
    const destination = new GatheredLogDestination(t.stream, 20);
    destination.write('a\n');
    destination.write('b\n');
    expect(t.blocks).toEqual([]);
    await sleep(60);
    expect(t.blocks).toEqual(['a\nb\n']);
    destination.write('c\n');
    await sleep(60);
    expect(t.blocks).toEqual(['a\nb\n', 'c\n']);
  });

  it('when 64 KiB gather before the time is up, then they are handed on at once', () => {
    const t = target();
    const destination = new GatheredLogDestination(t.stream, 60_000);
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 64; i++) destination.write(line);
    expect(t.blocks).toHaveLength(1);
    expect(t.blocks[0]).toHaveLength(64 * 1024);
    destination.write('tail\n');
    destination.flushSync();
    expect(t.blocks).toEqual([line.repeat(64), 'tail\n']);
    expect(t.syncFlushes()).toBe(1);
  });

  it('when flushed synchronously into pino\'s own destination, then the gathered lines are in the file before it returns', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'telematics-log-')), 'out.log');
    const fd = openSync(file, 'a');
    const sonic = pino.destination({ dest: fd, sync: false });
    const destination = new GatheredLogDestination(sonic, 60_000);
    // Every libuv thread busy for a while: a block handed on asynchronously would wait for one.
    const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
    const busy = Array.from({ length: threads }, () => new Promise((resolve) => pbkdf2('busy', 'salt', 100_000, 64, 'sha512', resolve)));
    destination.write('first\n');
    destination.flushSync();
    expect(readFileSync(file, 'utf8')).toBe('first\n');
    await Promise.all(busy);
    destination.write('second\n');
    await new Promise<void>((resolve) => destination.flush(() => resolve()));
    await expect.poll(() => readFileSync(file, 'utf8')).toBe('first\nsecond\n');
    await new Promise<void>((resolve) => { sonic.once('close', () => resolve()); sonic.end(); });
  });

  it('when pino asks it to flush, then what is gathered is handed on and the callback called', async () => {
    const t = target();
    const destination = new GatheredLogDestination(t.stream, 60_000);
    destination.write('a\n');
    await new Promise<void>((resolve) => destination.flush(() => resolve()));
    expect(t.blocks).toEqual(['a\n']);
  });

  it('when its target has gone (a closed pipe), then gathered lines are dropped, not thrown', async () => {
    const t = target();
    const destination = new GatheredLogDestination(t.stream, 10);
    t.stream.destroyed = true;
    destination.write('lost\n');
    await sleep(40);
    destination.flushSync();
    expect(t.blocks).toEqual([]);
    expect(t.syncFlushes()).toBe(0);
  });

  const child = (ending: string) => run(process.execPath, ['--input-type=module', '-e', `
    import { createLogger } from ${JSON.stringify(new URL('../dist/logger.js', import.meta.url).href)};
    const logger = createLogger('info');
    const other = createLogger('info');
    for (let i = 0; i < 500; i++) (i % 2 ? other : logger).info({ i }, 'line');
    ${ending}
  `]).catch((error: { code: number; stdout: string }) => error);

  it.each([
    ['when the process ends of itself', '', 0],
    ['when the process calls process.exit at once', 'process.exit(3);', 3],
    ['when the process throws', 'throw new Error("boom");', 1],
  ])('%s, then every line gathered has been written, in order', async (_, ending, code) => {
    const result = await child(ending);
    expect((result as { code?: number }).code ?? 0).toBe(code);
    const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as { i: number; msg: string });
    expect(lines).toHaveLength(500);
    expect(lines.map((l) => l.i)).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });
});
