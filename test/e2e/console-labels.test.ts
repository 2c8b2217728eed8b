/**
 * What the console's times and values say, in Chromium, in both languages: the zone every time is
 * in is named and can be changed (a shown time moves by the zone's offset; the API's formats do
 * not), datapoints carry human labels with units, coordinates 5 decimals, the fleet table's last
 * seen fits a 1366 px screen, a state older than the offline threshold is not "Moving", and the
 * English console gives the Portuguese ignition alert as sent with an English line beside it.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot, submitSignIn, type DemoRole } from './console-browser.js';
import { demoInChromium } from './demo-in-chromium.js';
import { scaled } from '../support/timeouts.js';

type Locale = 'en' | 'pt-BR';
const SCREEN = { timezoneId: 'Asia/Tokyo', viewport: { width: 1366, height: 768 } };
const TEXTS = {
  en: { fleet: 'Fleet', lastSeen: 'Last seen', speed: 'Speed (km/h)', battery: 'Battery (V)', moving: 'Moving', offline: 'Not reporting', zone: 'Times in', commands: 'Commands', enable: 'Enable ignition', cancel: 'Cancel' },
  'pt-BR': { fleet: 'Frota', lastSeen: 'Visto por último', speed: 'Velocidade (km/h)', battery: 'Bateria (V)', moving: 'Em movimento', offline: 'Sem reportar', zone: 'Horários em', commands: 'Comandos', enable: 'Habilitar ignição', cancel: 'Cancelar' },
} as const;

/** The 24-hour hour of a shown time ("12/2/26, 1:05:09 PM" or "02/12/2026, 13:05:09"). */
function hourOf(shown: string): number {
  const m = /(\d{1,2}):\d{2}:\d{2}\s*([AP]M)?/.exec(shown.replace(/\u202f/g, ' '));
  if (!m) throw new Error(`no time in ${JSON.stringify(shown)}`);
  const h = Number(m[1]);
  return m[2] === undefined ? h : (h % 12) + (m[2] === 'PM' ? 12 : 0);
}

describe('console times and labels in Chromium', () => {
  const run = demoInChromium('console-labels', { TELEMATICS_SIM_BACKFILL: '1h' });

  /** Signed in on a 1366×768 screen in Tokyo (UTC+09:00, twelve hours from the service's zone). */
  async function signedIn(locale: Locale, role: DemoRole = 'viewer'): Promise<Page> {
    const watched = await run.open(locale, { screen: SCREEN });
    const { page } = watched;
    await page.goto(`${run.base}/`);
    await submitSignIn(page, run.demo.values, role, locale);
    await page.getByRole('heading', { level: 1, name: TEXTS[locale].fleet }).waitFor();
    await page.locator('main [data-ready="true"]').first().waitFor();
    return page;
  }

  for (const locale of ['en', 'pt-BR'] as const) {
    const t = TEXTS[locale];

    it(`when a user reads the console (${locale}), then the zone is named and switchable, values carry labels with units and coordinates 5 decimals, last seen fits 1366 px, and the ignition alert is shown as sent${locale === 'en' ? ' with an English line' : ''}`, async () => {
      const page = await signedIn(locale, 'dispatcher');

      // The zone: named, switched, each time moved by its offset, the instant itself unchanged.
      const zone = page.getByLabel(t.zone);
      expect(await zone.locator('option:checked').innerText()).toContain('America/Sao_Paulo (UTC\u221203:00)');
      const vin = await page.locator('table tbody tr').first().getAttribute('data-vin');
      const instant = await page.locator(`table tbody tr[data-vin="${vin}"] td.seen time`).getAttribute('datetime');
      expect(instant).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}-03:00$/);
      const shownIn = async (choice: 'service' | 'utc' | 'browser') => {
        await zone.selectOption(choice);
        return hourOf(await page.locator(`table tbody tr[data-vin="${vin}"] td.seen time[datetime="${instant}"]`).innerText());
      };
      const saoPaulo = await shownIn('service');
      expect(((await shownIn('utc')) - saoPaulo + 24) % 24).toBe(3);
      expect(await zone.locator('option:checked').innerText()).toBe('UTC');
      expect(((await shownIn('browser')) - saoPaulo + 24) % 24).toBe(12);
      expect(await zone.locator('option:checked').innerText()).toContain('Asia/Tokyo (UTC+09:00)');

      // Labels with units; last seen inside the table's box and the screen, no page-wide scroll.
      await page.getByRole('columnheader', { name: t.speed }).waitFor();
      await page.getByRole('columnheader', { name: t.battery }).waitFor();
      const seen = await page.getByRole('columnheader', { name: t.lastSeen }).boundingBox();
      const list = await page.locator('.fleet .list').boundingBox();
      expect(seen!.x + seen!.width).toBeLessThanOrEqual(Math.min(1366, list!.x + list!.width) + 1);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1366);
      const scroll = await page.locator('.fleet .list').evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth }));
      expect(scroll.scroll, 'the fleet table scrolls sideways at 1366 px').toBeLessThanOrEqual(scroll.client);
      await screenshot(page, `fleet-1366-${locale}`);

      // The vehicle: human labels, no raw datapoint name, coordinates with 5 decimals; the zone kept.
      await page.locator(`table tbody tr[data-vin="${vin}"] th a`).click();
      const latest = page.locator('.latest');
      await latest.waitFor();
      expect(await page.getByLabel(t.zone).inputValue()).toBe('browser');
      expect(await latest.locator('dt[data-field="speed"]').innerText()).toBe(t.speed);
      expect(await latest.locator('dt[data-field]').evaluateAll((dts) => dts.filter((d) => (d.textContent ?? '').includes('_')).map((d) => d.textContent))).toEqual([]);
      const decimal = locale === 'en' ? '\\.' : ',';
      for (const field of ['latitude', 'longitude']) {
        expect(await latest.locator(`dt[data-field="${field}"] + dd`).innerText()).toMatch(new RegExp(`^-?\\d{1,3}${decimal}\\d{5}$`));
      }
      await page.locator('.charts figcaption').first().waitFor({ timeout: scaled(20_000) });
      expect(await page.locator('.charts figcaption').first().innerText()).toBe(t.speed);
      await screenshot(page, `vehicle-labels-${locale}`);

      // The ignition alert, as the service sent it; in English also an English line, in Portuguese nothing more.
      await page.getByRole('navigation').getByRole('link', { name: t.commands }).click();
      await page.locator('main [data-ready="true"]').first().waitFor();
      await page.getByRole('button', { name: t.enable }).click();
      const dialog = page.getByRole('alertdialog');
      await dialog.waitFor();
      expect(await dialog.locator('blockquote[lang="pt-BR"]').innerText()).toMatch(/^Atenção: o desbloqueio da ignição/);
      const english = dialog.locator('.translation[lang="en"]');
      if (locale === 'en') expect(await english.innerText()).toMatch(/^In English: Warning: enabling the ignition/);
      else expect(await english.count()).toBe(0);
      await screenshot(page, `commands-alert-${locale}`);
      await dialog.getByRole('button', { name: t.cancel }).click();
    }, scaled(90_000));

    it(`when a shown state is older than the offline threshold (${locale}), then it reads not reporting, not Moving`, async () => {
      // The service judged the vehicle moving when it answered; the page still holds that answer an hour on.
      const watched = await run.open(locale, { screen: SCREEN });
      let staleVin = '';
      await watched.context.route('**/console/api/vehicle-data/latest', async (route) => {
        const response = await route.fetch();
        const body = await response.json() as { vin: string; state: string; record: { date_time: string } | null }[];
        const stale = body.find((v) => v.record !== null)!;
        staleVin = stale.vin;
        const hourEarlier = Date.parse(`${stale.record!.date_time.replace(' ', 'T')}-03:00`) - 3_600_000;
        // Written back as the service writes it: the wall clock at -03:00, no offset.
        stale.record!.date_time = new Date(hourEarlier - 3 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
        stale.state = 'moving';
        await route.fulfill({ status: 200, headers: { 'content-type': 'application/json', date: response.headers().date ?? new Date().toUTCString() }, body: JSON.stringify(body) });
      });
      const { page } = watched;
      await page.goto(`${run.base}/`);
      await submitSignIn(page, run.demo.values, 'viewer', locale);
      await page.locator('main [data-ready="true"]').first().waitFor();
      const badge = page.locator(`table tbody tr[data-vin="${staleVin}"] .badge`);
      expect(await badge.innerText()).toBe(t.offline);
      await page.goto(`${run.base}/console/vehicles/${staleVin}`);
      const state = page.locator('.latest .badge');
      await state.waitFor();
      expect(await state.getAttribute('data-state')).toBe('offline');
      expect(await state.innerText()).not.toBe(t.moving);
    }, scaled(60_000));

  }
});
