/**
 * What the console map says with no internet, in Chromium against `npm start`'s demo: every
 * vehicle's plate beside its dot, place names from the shipped GeoNames extract, São Paulo's main
 * roads as a line layer, a metric scale bar and the data's attribution, in both languages; a plate
 * opens its vehicle. No console error and no request off loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type DemoProcess } from '../support/demo-process.js';
import { accessibilityViolations, launchChromium, openPage, screenshot, submitSignIn } from './console-browser.js';
import { scaled } from '../support/timeouts.js';

const TEXTS = {
  en: { open: 'Open the vehicle', moving: 'Moving' },
  'pt-BR': { open: 'Abrir o veículo', moving: 'Em movimento' },
} as const;
/** Plates of the demo's ACME fleet (src/sim/demo-fleet.ts), the company signed in. */
const ACME_PLATES = ['ABC1D23', 'FUN2E45', 'RIO3F67', 'EVA4G89', 'TRK7K01', 'FIO8L23', 'RNG9M45'];

describe('console map labels in Chromium', () => {
  let folder: string;
  let demo: DemoProcess;
  let browser: Browser;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'console-map-labels-'));
    [demo, browser] = await Promise.all([startDemo(folder, { TELEMATICS_SIM_BACKFILL: '1h' }), launchChromium()]);
  }, scaled(120_000));
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it.each(['en', 'pt-BR'] as const)('when the fleet map opens in %s, then plates, place names, roads, a scale bar and attribution are drawn', async (locale) => {
    const text = TEXTS[locale];
    const watched = await openPage(browser, demo.values.BASE!, locale);
    const { page } = watched;
    try {
      await page.goto(`${demo.values.BASE}/console/`);
      await submitSignIn(page, demo.values, 'viewer', locale);
      const box = page.locator('.map-box[data-map-state="idle"]');
      await box.waitFor({ timeout: scaled(20_000) });

      const labels = page.locator('.vehicle-label');
      await expect.poll(() => labels.count(), { timeout: scaled(10_000) }).toBe(ACME_PLATES.length);
      expect((await labels.allTextContents()).sort()).toEqual([...ACME_PLATES].sort());
      const titles = await labels.evaluateAll((all) => all.map((l) => l.getAttribute('title') ?? ''));
      expect(titles.every((t) => t.endsWith(text.open))).toBe(true);
      // No two plates drawn on top of each other.
      const rects = await labels.evaluateAll((all) => all.map((l) => l.getBoundingClientRect()).map((r) => [r.left, r.top, r.right, r.bottom]));
      for (let i = 0; i < rects.length; i += 1) {
        for (let j = i + 1; j < rects.length; j += 1) {
          const [a, b] = [rects[i]!, rects[j]!];
          const overlap = Math.max(0, Math.min(a[2]!, b[2]!) - Math.max(a[0]!, b[0]!)) * Math.max(0, Math.min(a[3]!, b[3]!) - Math.max(a[1]!, b[1]!));
          expect(overlap, `${i} and ${j}`).toBeLessThan(60);
        }
      }

      await expect.poll(() => page.locator('.place-label').allTextContents(), { timeout: scaled(10_000) }).toContain('São Paulo');
      expect(Number(await box.getAttribute('data-road-features'))).toBeGreaterThan(10);
      await expect.poll(() => page.locator('.maplibregl-ctrl-scale').textContent()).toMatch(/^\d+\s?(m|km)$/);
      const attribution = await page.locator('.maplibregl-ctrl-attrib').evaluate((e) => e.textContent ?? '');
      expect(attribution).toContain('GeoNames');
      expect(attribution).toContain('Natural Earth');
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `fleet-map-labels-${locale}`);

      const plate = labels.filter({ hasText: 'ABC1D23' });
      const vin = await plate.getAttribute('data-vin');
      await plate.click();
      await page.waitForURL(`**/console/vehicles/${vin}`);
      await page.locator('.map-box[data-map-state="idle"]').waitFor({ timeout: scaled(20_000) });
      await expect.poll(() => page.locator('.maplibregl-ctrl-scale').count()).toBe(1);
      expect(watched.errors).toEqual([]);
      expect(watched.external).toEqual([]);
    } finally {
      await watched.context.close();
    }
  }, scaled(90_000));
});
