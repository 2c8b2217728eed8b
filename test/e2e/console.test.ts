/**
 * The web console end to end: `npm start`'s demo (real service, simulated fleet and automaker) in a
 * child process, Debian's Chromium through playwright-core. Every screen in both languages with
 * axe, the ignition two-step from click to Success, a disabled application's session ending on
 * its next request, the no-WebGL fallback; no console error and no request off loopback, ever.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type DemoProcess } from '../support/demo-process.js';
import { BIN } from '../support/service-process.js';
import { until } from '../support/until.js';
import { accessibilityViolations, launchChromium, openPage, screenshot, submitSignIn, type WatchedPage, type DemoRole } from './console-browser.js';
import { scaled } from '../support/timeouts.js';

const run = promisify(execFile);
/** A demo vehicle whose simulated driver parks between drives (profile `normal`): it has trips every day. */
const PARKING_VIN = '9BWZZZ377VT004251';

/**
 * Waits until trip detection has found `vin`'s trips in the backfilled day. The demo is ready once
 * the history is stored; the trip worker reads it on its next passes, and a trips screen opened
 * before then rightly says there are none.
 */
async function tripsDetected(base: string, clientId: string, clientSecret: string, vin: string): Promise<void> {
  const { token } = await fetch(`${base}/token`, {
    method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  }).then((res) => res.json() as Promise<{ token: string }>);
  await until(`trips of ${vin} detected after the demo started`, async () => {
    const res = await fetch(`${base}/vehicle-trips`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ vins: [vin], datapoints: ['distance'] }),
    });
    const body = await res.json() as Record<string, unknown[]>;
    if (!res.ok) throw new Error(`${res.status} ${JSON.stringify(body)}`);
    return (body[vin]?.length ?? 0) > 0;
  }, 60_000, 250);
}
const TEXTS = {
  en: { signIn: 'Sign in', fleet: 'Fleet', commands: 'Commands', trips: 'Trips', ended: 'Your session ended. Sign in again.' },
  'pt-BR': { signIn: 'Entrar', fleet: 'Frota', commands: 'Comandos', trips: 'Viagens', ended: 'Sua sessão terminou. Entre novamente.' },
} as const;

describe('web console in Chromium', () => {
  let folder: string;
  let demo: DemoProcess;
  let browser: Browser;
  let base: string;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'console-e2e-'));
    [demo, browser] = await Promise.all([startDemo(folder, { TELEMATICS_SIM_BACKFILL: '1d' }), launchChromium()]);
    base = demo.values.BASE!;
    await tripsDetected(base, demo.values.CLIENT_ID!, demo.values.CLIENT_SECRET!, PARKING_VIN);
  }, scaled(120_000));
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
    rmSync(folder, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const watched of opened.splice(0)) {
      expect(watched.errors).toEqual([]);
      expect(watched.external).toEqual([]);
      await watched.context.close();
    }
  });

  async function open(locale: 'en' | 'pt-BR', on: Browser = browser): Promise<Page> {
    const watched = await openPage(on, base, locale);
    opened.push(watched);
    return watched.page;
  }

  async function signIn(page: Page, locale: 'en' | 'pt-BR', role: DemoRole = 'viewer'): Promise<void> {
    const t = TEXTS[locale];
    await page.goto(`${base}/`);
    await submitSignIn(page, demo.values, role, locale);
    await page.getByRole('heading', { level: 1, name: t.fleet }).waitFor();
  }

  /** A 401 the test caused on purpose is logged by Chromium as a failed resource: not a defect. */
  function expectUnauthorized(page: Page): void {
    const watched = opened.find((w) => w.page === page)!;
    const unauthorized = watched.errors.filter((e) => e.includes('status of 401'));
    expect(unauthorized.length).toBeGreaterThan(0);
    watched.errors.splice(0, watched.errors.length, ...watched.errors.filter((e) => !e.includes('status of 401')));
  }

  const ready = (page: Page) => page.locator('main [data-ready="true"]').first().waitFor();

  for (const locale of ['en', 'pt-BR'] as const) {
    it(`when a user signs in (${locale}), then fleet, vehicle, trips and commands screens work, in that language, without accessibility violations`, async () => {
      const t = TEXTS[locale];
      const page = await open(locale);
      await page.goto(`${base}/`);
      await page.getByRole('button', { name: t.signIn }).waitFor();
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `sign-in-${locale}`);
      await signIn(page, locale);

      // Fleet: counters, a row per vehicle, the map idle with a point per positioned vehicle.
      await ready(page);
      const rows = page.locator('table tbody tr');
      expect(await rows.count()).toBeGreaterThan(3);
      await page.locator('.map-box[data-map-state="idle"]').waitFor({ timeout: scaled(20_000) });
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `fleet-${locale}`);

      // Vehicle: a row opens with its latest values and charts. Not simply the first row (the most
      // recently seen, a race between the simulated vehicles): the demo's Onix always drives, so
      // its trips end only when it refuels and a day of history may hold none for the trips step.
      await page.locator(`table tbody tr[data-vin="${PARKING_VIN}"]`).waitFor();
      await page.getByRole('link', { name: PARKING_VIN }).click();
      await page.locator('.charts canvas').first().waitFor({ timeout: scaled(20_000) });
      expect(Number(await page.locator('.charts').getAttribute('data-points'))).toBeGreaterThan(100);
      await page.locator('.map-box[data-map-state="idle"]').waitFor({ timeout: scaled(20_000) });
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `vehicle-${locale}`);

      // Trips: a trip of the day opens its route with a scrubber.
      await page.getByRole('link', { name: t.trips, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: new RegExp(t.trips) }).waitFor();
      const openTrip = page.locator('table tbody tr button').first();
      await openTrip.waitFor();
      await openTrip.click();
      await page.getByRole('slider').waitFor();
      await page.locator('.map-box[data-map-state="idle"]').waitFor({ timeout: scaled(20_000) });
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `trips-${locale}`);

      await page.getByRole('navigation').getByRole('link', { name: t.commands }).click();
      await page.getByRole('heading', { level: 1, name: t.commands }).waitFor();
      await ready(page);
      // Signed in as a viewer: the session reads, says why it sends nothing, and shows no command button.
      await page.getByRole('note').waitFor();
      expect(await page.getByRole('button', { name: locale === 'en' ? 'Diagnostics' : 'Diagnóstico' }).count()).toBe(0);
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `commands-${locale}`);
    }, scaled(90_000));
  }

  it('when ignition is enabled from the console, then the Portuguese alert and code are shown, and after an explicit confirm the status goes Pending to Success', async () => {
    const page = await open('en');
    await signIn(page, 'en', 'dispatcher');
    await page.getByRole('navigation').getByRole('link', { name: 'Commands' }).click();
    await ready(page);
    await page.getByRole('button', { name: 'Enable ignition' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.waitFor();
    expect(await dialog.locator('blockquote[lang="pt-BR"]').innerText()).toMatch(/\S/);
    expect(await dialog.locator('output.code').innerText()).toMatch(/^\d{6}$/);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'commands-confirmation-en');
    await dialog.getByRole('button', { name: 'Confirm and send' }).click();
    const status = page.locator('.current [data-status]');
    await status.waitFor();
    expect(['Pending', 'Success']).toContain(await status.getAttribute('data-status'));
    await page.locator('.current [data-status="Success"]').waitFor({ timeout: scaled(30_000) });
    // The history lists the confirmation and the command that ran.
    await page.getByRole('cell', { name: 'Success' }).first().waitFor();
  }, scaled(60_000));

  it('when the operator changes the person\'s role, then their console session stops working on the next request', async () => {
    const page = await open('en');
    await signIn(page, 'en');
    await ready(page);
    // The fleet map reads the company's geofences once it has loaded: let that request be done, so
    // the next one is the click below (else the fences' request meets the disabled application first
    // and the navigation it would click is gone).
    await page.locator('.map-box[data-fences]').waitFor({ timeout: scaled(20_000) });
    const db = join(folder, 'data', 'telematics.db');
    const role = (as: string) => run(process.execPath, [BIN, 'admin', 'user', 'role', '--company', 'acme', '--email', demo.values.VIEWER_EMAIL!, '--as', as, '--database', db], { cwd: folder });
    await role('dispatcher');
    try {
      await page.getByRole('navigation').getByRole('link', { name: 'Commands' }).click();
      await page.getByText(TEXTS.en.ended).waitFor({ timeout: scaled(10_000) });
      // And the old cookie does not come back to life: the session row is gone.
      await page.reload();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      expectUnauthorized(page);
    } finally {
      await role('viewer');
    }
    // Two CLI processes (each a Node start and the store opened beside the running demo, whose
    // evaluator and simulated fleet write all along) besides the browser: 60 s, as the ignition's.
  }, scaled(60_000));

  it('when the password is wrong, then the sign-in says so and no session starts', async () => {
    const page = await open('pt-BR');
    await page.goto(`${base}/console/`);
    await submitSignIn(page, demo.values, 'viewer', 'pt-BR', 'not the password at all');
    await page.getByRole('alert').getByText('Invalid e-mail or password.').waitFor();
    expect((await page.context().cookies()).length).toBe(0);
    expectUnauthorized(page);
  });

  it('when the browser has no WebGL, then the fleet screen says the map is unavailable and the table still shows the fleet', async () => {
    const noGpu = await launchChromium(['--disable-software-rasterizer']);
    try {
      const page = await open('en', noGpu);
      await signIn(page, 'en');
      await page.locator('.map-box[data-map-state="unavailable"]').waitFor({ state: 'attached', timeout: scaled(20_000) });
      await page.getByRole('note').getByText('The map needs WebGL').waitFor();
      expect(await page.locator('table tbody tr').count()).toBeGreaterThan(3);
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, 'fleet-no-webgl-en');
      for (const watched of opened.splice(0)) {
        expect(watched.errors).toEqual([]);
        expect(watched.external).toEqual([]);
        await watched.context.close();
      }
    } finally {
      await noGpu.close();
    }
  }, scaled(40_000));
});
