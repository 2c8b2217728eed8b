/**
 * Share links in Chromium, against `npm start`'s demo, in both languages: a dispatcher shares a
 * vehicle from its screen; the link, opened in a browser with no session, shows the vehicle's
 * position on the map and nothing else (no navigation, no other vehicle); revoked in the console,
 * the link answers 410 with its page saying so. A viewer has no share section. axe clean, no
 * console error but the 410 the test caused, no request off loopback.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { accessibilityViolations, screenshot, submitSignIn, type DemoRole } from './console-browser.js';
import { scaled } from '../support/timeouts.js';
import { demoInChromium } from './demo-in-chromium.js';

/** A demo vehicle that always has positions (the simulated fleet's Onix). */
const VIN = '9BWZZZ377VT004251';

const TEXTS = {
  en: { fleet: 'Fleet', shareLinks: 'Share links', create: 'Create a share link', label: 'Label shown above the map (optional)', lasting: 'Works for', revoke: 'Revoke', at: 'Recorded at' },
  'pt-BR': { fleet: 'Frota', shareLinks: 'Links de compartilhamento', create: 'Criar um link de compartilhamento', label: 'Rótulo mostrado acima do mapa (opcional)', lasting: 'Vale por', revoke: 'Revogar', at: 'Posição registrada em' },
} as const;

describe('share links in Chromium', () => {
  const run = demoInChromium('console-share-e2e', { TELEMATICS_SIM_BACKFILL: '1h' });

  async function vehicleScreen(page: Page, role: DemoRole, locale: 'en' | 'pt-BR') {
    await page.goto(`${run.base}/console/`);
    await submitSignIn(page, run.demo.values, role, locale);
    await page.getByRole('heading', { level: 1, name: TEXTS[locale].fleet }).waitFor();
    await page.goto(`${run.base}/console/vehicles/${VIN}`);
    await page.locator('main section.vehicle[data-ready="true"]').waitFor();
  }

  for (const locale of ['en', 'pt-BR'] as const) {
    it(`when a dispatcher shares a vehicle (${locale}), then the link shows its position on a map and nothing else, until revoked`, async () => {
      const t = TEXTS[locale];
      const { page: consolePage } = await run.open(locale);
      await vehicleScreen(consolePage, 'dispatcher', locale);
      const section = consolePage.getByRole('region', { name: t.shareLinks });
      await section.getByLabel(t.label).fill(`Order ${locale}`);
      await section.getByRole('button', { name: t.create }).click();
      const url = await section.locator('.new-link input').inputValue();
      expect(url).toMatch(new RegExp(`^${run.base}/share/[A-Za-z0-9_-]{43}$`));
      await section.locator('tr[data-share-state="active"]').filter({ hasText: `Order ${locale}` }).waitFor();
      // A day unless chosen otherwise, as the API's default.
      expect(await section.getByLabel(t.lasting).inputValue()).toBe('86400');
      expect(await accessibilityViolations(consolePage)).toEqual([]);
      await screenshot(consolePage, `share-links-${locale}`);

      // Opened by someone without an account: a browser with no session.
      const { page } = await run.open(locale);
      await page.goto(url);
      await page.getByRole('heading', { level: 1, name: `Order ${locale}` }).waitFor();
      const status = page.locator('[data-shared-position]');
      await status.waitFor();
      expect(await status.getAttribute('data-shared-position')).toMatch(/^-?\d+(\.\d+)?,-?\d+(\.\d+)?$/);
      expect(await status.innerText()).toContain(t.at);
      await page.locator('.map-box[data-map-state="idle"]').waitFor({ timeout: scaled(20_000) });
      expect(await page.locator('.maplibregl-marker').count()).toBe(1);
      expect(await page.locator('nav, a[href^="/console"]').count()).toBe(0);
      expect(await page.locator('body').innerText()).not.toContain(VIN);
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(locale);
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `share-page-${locale}`);

      // Revoked in the console: the open page says so at its next poll, and the link itself is 410.
      // This test's link, by its label: the other language's test left a revoked one in the same list.
      const row = (state: string) => section.locator(`tr[data-share-state="${state}"]`).filter({ hasText: `Order ${locale}` });
      await row('active').getByRole('button', { name: new RegExp(t.revoke) }).click();
      await row('revoked').waitFor();
      // The page left open learns it at its next poll (every 15 s): once is enough to see it.
      if (locale === 'en') {
        await page.getByRole('heading', { level: 1, name: 'This link has expired or was revoked.' }).waitFor({ timeout: scaled(30_000) });
        expect(await page.locator('.map-box').count()).toBe(0);
      }
      const reopened = await page.goto(url);
      expect(reopened?.status()).toBe(410);
      await page.getByRole('heading', { level: 1, name: 'This link has expired or was revoked.' }).waitFor();
      expect(await page.locator('body').innerText()).toContain('Este link expirou ou foi revogado.');
      expect(await accessibilityViolations(page)).toEqual([]);
      run.expectCausedErrors(page, 410);
    });
  }

  it('when a viewer opens a vehicle, then there is no share section (and the server refuses one anyway)', async () => {
    const { page } = await run.open('en');
    await vehicleScreen(page, 'viewer', 'en');
    expect(await page.getByRole('region', { name: TEXTS.en.shareLinks }).count()).toBe(0);
    const refused = await page.evaluate(async (vin) => {
      const res = await fetch('/console/api/share-links', { method: 'POST', headers: { 'content-type': 'application/json', 'x-telematics-console': '1' }, body: JSON.stringify({ vin }) });
      return { status: res.status, body: await res.json() };
    }, VIN);
    expect(refused).toEqual({ status: 403, body: { detail: 'Insufficient scope: shares:manage is required.' } });
    run.expectCausedErrors(page, 403);
  });
});
