/**
 * What every console end-to-end file sets up: `npm start`'s demo in a fresh folder and Debian's
 * Chromium, started together before the file's tests and stopped after them; each page a test
 * opens is watched, and after each test it must have logged no console error and tried no
 * request off loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startDemo, type DemoProcess } from '../support/demo-process.js';
import { scaled } from '../support/timeouts.js';
import { launchChromium, openPage, type Screen, type WatchedPage } from './console-browser.js';

export interface DemoInChromium {
  readonly demo: DemoProcess;
  readonly browser: Browser;
  /** The demo's address, `http://127.0.0.1:<port>`. */
  readonly base: string;
  /** A new context and page of `on` (the file's browser unless another is given), watched until the test ends. */
  open(locale: 'en' | 'pt-BR', options?: { readonly on?: Browser; readonly alsoAllowed?: readonly string[]; readonly screen?: Screen }): Promise<WatchedPage>;
  /**
   * A refusal the test caused on purpose is logged by Chromium as a failed resource, not a
   * defect: there must be some (or exactly `count`) of that status, and they are dropped.
   */
  expectCausedErrors(page: Page, status: number, count?: number): void;
}

export function demoInChromium(name: string, env: Readonly<Record<string, string>>): DemoInChromium {
  let folder: string | undefined;
  let demo: DemoProcess | undefined;
  let browser: Browser | undefined;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), `${name}-`));
    [demo, browser] = await Promise.all([startDemo(folder, env), launchChromium()]);
  }, scaled(120_000));
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const watched of opened.splice(0)) {
      expect(watched.errors).toEqual([]);
      expect(watched.external).toEqual([]);
      await watched.context.close();
    }
  });

  return {
    get demo() { return demo!; },
    get browser() { return browser!; },
    get base() { return demo!.values.BASE!; },
    async open(locale, options = {}) {
      const watched = await openPage(options.on ?? browser!, demo!.values.BASE!, locale, options.alsoAllowed ?? [], options.screen ?? {});
      opened.push(watched);
      return watched;
    },
    expectCausedErrors(page, status, count) {
      const watched = opened.find((w) => w.page === page)!;
      const caused = (e: string) => e.includes(`status of ${status}`);
      if (count === undefined) expect(watched.errors.filter(caused).length).toBeGreaterThan(0);
      else expect(watched.errors.filter(caused)).toHaveLength(count);
      watched.errors.splice(0, watched.errors.length, ...watched.errors.filter((e) => !caused(e)));
    },
  };
}
