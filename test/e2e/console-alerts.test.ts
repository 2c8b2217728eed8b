/**
 * The console's alert screens end to end, against `npm start`'s demo with a backfilled day, in
 * Debian's Chromium, in both languages: a rule written in the editor and tried on the last days
 * (the day's drives make it fire), saved and read back through the API, refused with the
 * service's own detail, deleted after a confirmation; an overspeed sent through the real ingest
 * appearing on the Alerts screen by itself (its refresh), newest first, its position on the map.
 * axe clean, no console error, no request off loopback. The demo may seed rules of its own: the
 * tests find theirs by name.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { scaled } from '../support/timeouts.js';
import { until } from '../support/until.js';
import { accessibilityViolations, screenshot, submitSignIn } from './console-browser.js';
import { demoInChromium } from './demo-in-chromium.js';

/** The demo's Strada (simulated, profile `normal`): it never drives near 300 km/h by itself. */
const STRADA = '9BD17164LB5123456';

const TEXTS = {
  en: {
    fleet: 'Fleet', rules: 'Alert rules', alerts: 'Alerts', newRule: 'New rule', name: 'Name', threshold: 'Threshold (km/h)', duration: 'Duration (s)',
    cooldown: 'Cooldown (s)', chosen: 'Chosen vehicles', tryIt: 'Try on last 7 days', save: 'Save', remove: 'Delete', yesRemove: 'Yes, delete',
    kind: 'Overspeed', showOnMap: 'Show on map', previewTitle: 'What this rule would have fired over the last 7 days',
  },
  'pt-BR': {
    fleet: 'Frota', rules: 'Regras de alerta', alerts: 'Alertas', newRule: 'Nova regra', name: 'Nome', threshold: 'Limite (km/h)', duration: 'Duração (s)',
    cooldown: 'Intervalo mínimo (s)', chosen: 'Veículos escolhidos', tryIt: 'Testar nos últimos 7 dias', save: 'Salvar', remove: 'Excluir', yesRemove: 'Sim, excluir',
    kind: 'Excesso de velocidade', showOnMap: 'Ver no mapa', previewTitle: 'O que esta regra teria disparado nos últimos 7 dias',
  },
} as const;

type Locale = keyof typeof TEXTS;
type Rule = { id: string; name: string; kind: string; threshold: number | null; duration_s: number; vins: string[] | null; cooldown_s: number; enabled: boolean };
type Alert = { id: string; type: string; timestamp: string; data: Record<string, unknown> };

describe('alert screens of the web console in Chromium', () => {
  const run = demoInChromium('console-alerts-e2e', { TELEMATICS_SIM_BACKFILL: '1d' });

  async function open(locale: Locale): Promise<Page> {
    const watched = await run.open(locale);
    const page = watched.page;
    await page.goto(`${run.base}/`);
    await submitSignIn(page, run.demo.values, 'admin', locale);
    await page.getByRole('heading', { level: 1, name: TEXTS[locale].fleet }).waitFor();
    return page;
  }

  /** A 400 the test caused on purpose is logged by Chromium as a failed resource: not a defect. */
  const expectRefusedRequest = (page: Page) => run.expectCausedErrors(page, 400);

  /** The rules through the session's API, as an application reads them. */
  const rulesOf = async (page: Page): Promise<Rule[]> => {
    const res = await page.request.get(`${run.base}/console/api/alert-rules`);
    expect(res.status()).toBe(200);
    return (await res.json()) as Rule[];
  };

  async function openScreen(page: Page, locale: Locale, screen: 'rules' | 'alerts'): Promise<void> {
    await page.getByRole('navigation').getByRole('link', { name: TEXTS[locale][screen], exact: true }).click();
    await page.getByRole('heading', { level: 1, name: TEXTS[locale][screen] }).waitFor();
    await page.locator('main [data-ready="true"]').first().waitFor();
  }

  async function fillRule(page: Page, locale: Locale, rule: { name: string; threshold: string; cooldown?: string; vins?: readonly string[] }): Promise<void> {
    const t = TEXTS[locale];
    await page.getByRole('button', { name: t.newRule }).click();
    const editor = page.locator('form.rule-editor');
    await editor.waitFor();
    await editor.getByLabel(t.name, { exact: true }).fill(rule.name);
    await editor.getByLabel(t.threshold).fill(rule.threshold);
    await editor.getByLabel(t.duration).fill('0');
    if (rule.cooldown !== undefined) await editor.getByLabel(t.cooldown).fill(rule.cooldown);
    if (rule.vins) {
      await editor.getByLabel(t.chosen).check();
      for (const vin of rule.vins) await editor.locator(`input[name="vins"][value="${vin}"]`).check();
    }
  }

  for (const locale of ['en', 'pt-BR'] as const) {
    it(`when a rule is written in the editor (${locale}), then trying it lists what the backfilled day would have fired, saving it shows it through the API, a wrong one is refused with the service's text, and delete asks first`, async () => {
      const t = TEXTS[locale];
      const page = await open(locale);
      await openScreen(page, locale, 'rules');
      const name = `E2E speeding ${locale} ${randomBytes(3).toString('hex')}`;
      await fillRule(page, locale, { name, threshold: '40' });

      // Tried before saving: the day's drives pass 40 km/h.
      await page.getByRole('button', { name: t.tryIt }).click();
      const preview = page.locator('section.preview');
      await preview.getByRole('heading', { name: t.previewTitle }).waitFor({ timeout: scaled(30_000) });
      const count = Number(await preview.getAttribute('data-preview-count'));
      expect(count).toBeGreaterThan(0);
      // Every event counted; the newest 25 listed.
      expect(await preview.locator('tbody tr[data-preview-event="alert.overspeed"]').count()).toBe(Math.min(count, 25));
      // Newest first.
      const times = await preview.locator('tbody time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime')!));
      expect(times).toEqual([...times].sort().reverse());
      expect(await (await rulesOf(page)).some((r) => r.name === name)).toBe(false);
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `alert-rule-preview-${locale}`);

      await page.getByRole('button', { name: t.save, exact: true }).click();
      const row = page.locator('tbody tr', { has: page.getByRole('rowheader', { name, exact: true }) });
      await row.waitFor();
      const saved = (await rulesOf(page)).find((r) => r.name === name);
      expect(saved).toMatchObject({ kind: 'overspeed', threshold: 40, duration_s: 0, vins: null, cooldown_s: 600, enabled: true });
      expect(await row.getAttribute('data-rule-id')).toBe(saved!.id);
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `alert-rules-${locale}`);

      // Refused: the detail as the service sent it, and nothing saved.
      const wrong = `${name} wrong`;
      await fillRule(page, locale, { name: wrong, threshold: '500' });
      await page.getByRole('button', { name: t.save, exact: true }).click();
      await page.getByRole('alert').locator('[lang="en"]', { hasText: 'Invalid alert rule: threshold must be a number from 1 to 400 (km/h) for overspeed.' }).waitFor();
      expectRefusedRequest(page);
      expect((await rulesOf(page)).some((r) => r.name === wrong)).toBe(false);
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `alert-rule-refused-${locale}`);

      // Deleted only once confirmed.
      await row.getByRole('button', { name: new RegExp(`^${t.remove}`) }).click();
      await page.getByRole('alertdialog').waitFor();
      expect((await rulesOf(page)).some((r) => r.id === saved!.id)).toBe(true);
      await page.getByRole('alertdialog').getByRole('button', { name: t.yesRemove }).click();
      await row.waitFor({ state: 'detached' });
      expect((await rulesOf(page)).some((r) => r.id === saved!.id)).toBe(false);
    }, scaled(90_000));

    it(`when a vehicle speeds through the real ingest (${locale}), then the Alerts screen shows the alert by itself, newest first, and its position on the map`, async () => {
      const t = TEXTS[locale];
      const page = await open(locale);
      await openScreen(page, locale, 'rules');
      const name = `E2E 300 ${locale} ${randomBytes(3).toString('hex')}`;
      await fillRule(page, locale, { name, threshold: '300', cooldown: '0', vins: [STRADA] });
      await page.getByRole('button', { name: t.save, exact: true }).click();
      await page.getByRole('rowheader', { name, exact: true }).waitFor();
      const ruleId = (await rulesOf(page)).find((r) => r.name === name)!.id;

      await openScreen(page, locale, 'alerts');
      const shownBefore = await page.locator('tbody tr').evaluateAll((els) => els.map((e) => e.getAttribute('data-alert-id')!));
      // A position of this test's own, 5 decimals.
      const latitude = Number((-23.6 - Math.random() / 100).toFixed(5));
      const longitude = Number((-46.7 - Math.random() / 100).toFixed(5));
      // Sent each second until the evaluator has judged one with the new rule (the rule takes
      // effect within a pass; a second the simulator already stored keeps its own record).
      let alert: Alert | undefined;
      await until('an alert.overspeed of the new rule', async () => {
        const sent = await fetch(`${run.base}/ingest/${run.demo.values.INGEST_OEM}`, {
          method: 'POST', headers: { authorization: `Bearer ${run.demo.values.INGEST_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ records: [{ vin: STRADA, date_time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), speed: 350, latitude, longitude }] }),
        });
        expect(sent.status).toBe(200);
        const res = await page.request.get(`${run.base}/console/api/alerts?types=alert.overspeed&vin=${STRADA}&limit=100`);
        alert = ((await res.json()) as { data: Alert[] }).data.find((a) => a.data['rule_id'] === ruleId);
        return alert !== undefined;
      }, 30_000, 1000);
      expect(alert!.data).toMatchObject({ vin: STRADA, rule_name: name, speed: 350, limit: 300, latitude, longitude });

      // Not reloaded: the screen's own refresh (every 10 s) brings it.
      const row = page.locator(`tbody tr[data-alert-id="${alert!.id}"]`);
      await row.waitFor({ timeout: scaled(25_000) });
      expect(await row.innerText()).toContain(name);
      expect(await row.innerText()).toContain(t.kind);
      expect(await row.innerText()).toMatch(/350 km\/h.*300 km\/h/);
      expect(await row.innerText()).toContain('FUN2E45');
      // Newest first: it came on top of everything the screen showed before it happened (the
      // order is the service's recording order, not the events' own instants: docs/console.md).
      const ids = await page.locator('tbody tr').evaluateAll((els) => els.map((e) => e.getAttribute('data-alert-id')!));
      const at = ids.indexOf(alert!.id);
      for (const older of shownBefore) expect(ids.indexOf(older)).toBeGreaterThan(at);

      await row.getByRole('button', { name: t.showOnMap }).click();
      const box = page.locator('.map-box[data-alert-points]');
      await box.waitFor({ timeout: scaled(20_000) });
      await until('the chosen alert on the map', async () => (await box.getAttribute('data-alert-points')) === JSON.stringify([[longitude, latitude]]), 10_000);
      await page.locator('.map-box[data-map-state="idle"]').waitFor({ timeout: scaled(20_000) });
      const where = await page.locator('.alert-where').innerText();
      expect(where).toContain(new Intl.NumberFormat(locale, { minimumFractionDigits: 5 }).format(latitude));

      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, `alerts-${locale}`);

      // The kind filter: overspeeds only.
      await page.getByLabel(locale === 'en' ? 'Kind' : 'Tipo', { exact: true }).selectOption('alert.overspeed');
      await page.locator('section.alerts[data-kind="alert.overspeed"][data-ready="true"]').waitFor();
      await row.waitFor();
      const kinds = await page.locator('tbody tr').evaluateAll((els) => els.map((e) => e.getAttribute('data-alert-type')));
      expect(new Set(kinds)).toEqual(new Set(['alert.overspeed']));
    }, scaled(90_000));
  }
});
