/**
 * The operator console (/operator/) in Chromium, against `npm start`'s demo, in both languages:
 * a wrong password is refused with the service's text; the demo's operator signs in and adds a
 * plan, an automaker of trackers (its ingest key shown once), a company on the plan, a vehicle of
 * it with a Teltonika tracker (then changed, the tracker kept) and an application (its secrets
 * shown once, gone once the screen is left), rotates the application's secrets and renames the
 * company. The API then holds every entry, and only the rotated secret gets a token. axe clean on
 * every screen, no console error but the 401 the test caused, no request off loopback.
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { scaled } from '../support/timeouts.js';
import { accessibilityViolations, screenshot } from './console-browser.js';
import { demoInChromium } from './demo-in-chromium.js';

const TEXTS = {
  en: {
    title: 'Operator console', signIn: 'Sign in', password: 'Password', signOut: 'Sign out', companies: 'Companies', plans: 'Plans', oems: 'Automakers',
    vehicles: 'Vehicles', applications: 'Applications', add: 'Add', save: 'Save', name: 'Name', id: 'Id', plan: 'Plan', company: 'Company',
    commands: 'Commands', chosen: 'Only those chosen', connector: 'Connector', addPlan: 'Add a plan', addOem: 'Add an automaker', addCompany: 'Add a company',
    addVehicle: 'Add a vehicle to', addApplication: 'Add an application to', editCompany: 'Edit company', editVehicle: 'Edit vehicle', edit: 'Edit', plate: 'Plate', model: 'Model', year: 'Year',
    oem: 'Automaker', protocol: 'Tracker protocol', trackerId: 'Tracker id', ingestKey: 'Ingest key', clientSecret: 'Client secret', signSecret: 'Sign-secret',
    rotate: 'Rotate secrets', rotateYes: 'Yes, rotate', both: 'Both', once: 'will not be shown again', imeiRule: 'a 15-digit IMEI',
  },
  'pt-BR': {
    title: 'Console do operador', signIn: 'Entrar', password: 'Senha', signOut: 'Sair', companies: 'Empresas', plans: 'Planos', oems: 'Montadoras',
    vehicles: 'Veículos', applications: 'Aplicações', add: 'Adicionar', save: 'Salvar', name: 'Nome', id: 'Id', plan: 'Plano', company: 'Empresa',
    commands: 'Comandos', chosen: 'Somente os escolhidos', connector: 'Conector', addPlan: 'Adicionar um plano', addOem: 'Adicionar uma montadora',
    addCompany: 'Adicionar uma empresa', addVehicle: 'Adicionar um veículo a', addApplication: 'Adicionar uma aplicação a', editCompany: 'Editar a empresa',
    editVehicle: 'Editar o veículo',
    edit: 'Editar', plate: 'Placa', model: 'Modelo', year: 'Ano', oem: 'Montadora', protocol: 'Protocolo do rastreador', trackerId: 'Id do rastreador',
    ingestKey: 'Chave de ingestão', clientSecret: 'Segredo do cliente', signSecret: 'Segredo de assinatura', rotate: 'Trocar segredos',
    rotateYes: 'Sim, trocar', both: 'Os dois', once: 'não serão mostradas novamente', imeiRule: 'um IMEI de 15 dígitos',
  },
} as const;

/** Each language's own entries: the two tests share the demo's database. */
const ENTRIES = {
  en: { plan: 'ops-plan-en', oem: 'ops-trackers-en', company: 'ops-co-en', app: 'ops-app-en', vin: '9BWZZZ377VT0E0001', imei: '356307042441099' },
  'pt-BR': { plan: 'ops-plan-pt', oem: 'ops-trackers-pt', company: 'ops-co-pt', app: 'ops-app-pt', vin: '9BWZZZ377VT0P0002', imei: '356307042441107' },
} as const;

describe('the operator console in Chromium', () => {
  const run = demoInChromium('console-operator-e2e', { TELEMATICS_SIM_BACKFILL: '10m' });

  const ready = (page: Page) => page.locator('main [data-ready="true"]').first().waitFor();
  async function go(page: Page, link: string) {
    await page.getByRole('navigation').getByRole('link', { name: link, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: link }).waitFor();
    await ready(page);
  }
  const secretOf = (page: Page, label: string) => page.locator('.secret-once').getByRole('textbox', { name: label, exact: true }).inputValue();
  const clean = async (page: Page) => expect(await accessibilityViolations(page)).toEqual([]);
  const apiList = (page: Page, path: string) => page.evaluate(async (p) => (await (await fetch(`/operator/api${p}`)).json() as { data: unknown[] }).data, path);
  const token = async (clientId: string, clientSecret: string) => (await fetch(`${run.base}/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ client_id: clientId, client_secret: clientSecret }).toString(),
  })).status;

  async function signIn(page: Page, locale: 'en' | 'pt-BR', password: string) {
    await page.getByLabel('E-mail').fill(run.demo.values.OPERATOR_EMAIL!);
    await page.getByLabel(TEXTS[locale].password, { exact: true }).fill(password);
    await page.getByRole('button', { name: TEXTS[locale].signIn }).click();
  }

  for (const locale of ['en', 'pt-BR'] as const) {
    it(`when the operator registers a fleet (${locale}), then every entry is in the registry and each secret was shown once`, async () => {
      const t = TEXTS[locale];
      const e = ENTRIES[locale];
      const companyName = `Operator test ${locale}`;
      const { page } = await run.open(locale);
      await page.goto(`${run.base}/operator/`);
      await page.getByRole('heading', { level: 1, name: t.title }).waitFor();
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(locale);
      await clean(page);

      await signIn(page, locale, 'not the password');
      expect(await page.getByRole('alert').innerText()).toBe('Invalid e-mail or password.');
      run.expectCausedErrors(page, 401, 1);
      await signIn(page, locale, run.demo.values.OPERATOR_PASSWORD!);
      await page.getByRole('heading', { level: 1, name: t.companies }).waitFor();
      await ready(page);
      expect(await page.locator('header').innerText()).toContain(run.demo.values.OPERATOR_EMAIL!);
      await clean(page);

      // A plan of every datapoint and one command.
      await go(page, t.plans);
      const planForm = page.getByRole('form', { name: t.addPlan });
      await planForm.getByLabel(t.name, { exact: true }).fill(e.plan);
      const commands = planForm.getByRole('group', { name: t.commands });
      await commands.getByLabel(t.chosen).check();
      await commands.getByLabel('diagnostics', { exact: true }).check();
      await planForm.getByRole('button', { name: t.add }).click();
      expect(await page.locator(`tr[data-name="${e.plan}"] td`).nth(1).innerText()).toBe('diagnostics');
      await clean(page);

      // An automaker of trackers: its ingest key, once.
      await go(page, t.oems);
      const oemForm = page.getByRole('form', { name: t.addOem });
      await oemForm.getByLabel(t.name, { exact: true }).fill(e.oem);
      await oemForm.getByLabel(t.connector).selectOption('device');
      await oemForm.getByRole('button', { name: t.add }).click();
      await page.locator(`tr[data-name="${e.oem}"]`).waitFor();
      expect(await secretOf(page, t.ingestKey)).toMatch(/^\S{20,}$/);
      await clean(page);

      await go(page, t.companies);
      const companyForm = page.getByRole('form', { name: t.addCompany });
      await companyForm.getByLabel(t.id, { exact: true }).fill(e.company);
      await companyForm.getByLabel(t.name, { exact: true }).fill(companyName);
      await companyForm.getByLabel(t.plan).selectOption(e.plan);
      await companyForm.getByRole('button', { name: t.add }).click();
      await page.locator(`tr[data-id="${e.company}"]`).waitFor();

      // A vehicle of the company, with its tracker: the protocol's id rule is shown beside the id.
      await go(page, t.vehicles);
      await page.getByLabel(t.company).selectOption(e.company);
      const vehicleForm = page.getByRole('form', { name: `${t.addVehicle} ${companyName}` });
      await vehicleForm.getByLabel('VIN', { exact: true }).fill(e.vin);
      await vehicleForm.getByLabel(t.plate, { exact: true }).fill(`OPS${locale === 'en' ? '1E' : '2P'}23`);
      await vehicleForm.getByLabel(t.oem).selectOption(e.oem);
      await vehicleForm.getByLabel(t.model, { exact: true }).fill('FH 540');
      await vehicleForm.getByLabel(t.year, { exact: true }).fill('2022');
      await vehicleForm.getByLabel(t.protocol).selectOption('teltonika');
      const trackerId = vehicleForm.getByLabel(t.trackerId);
      expect(await description(trackerId)).toContain(t.imeiRule);
      await trackerId.fill(e.imei);
      await vehicleForm.getByRole('button', { name: t.add }).click();
      expect(await page.locator(`tr[data-vin="${e.vin}"] [data-tracker]`).getAttribute('data-tracker')).toBe(`teltonika:${e.imei}`);
      // Changed in its edit form: what is not touched (the tracker) stays.
      await page.locator(`tr[data-vin="${e.vin}"]`).getByRole('button', { name: new RegExp(t.edit) }).click();
      const vehicleEdit = page.getByRole('form', { name: `${t.editVehicle} ${e.vin}` });
      expect(await vehicleEdit.getByLabel(t.trackerId).inputValue()).toBe(e.imei);
      await clean(page);
      await vehicleEdit.getByLabel(t.model, { exact: true }).fill('FH 460');
      await vehicleEdit.getByRole('button', { name: t.save }).click();
      await page.locator(`tr[data-vin="${e.vin}"]`).filter({ hasText: 'FH 460' }).waitFor();
      expect(await page.locator(`tr[data-vin="${e.vin}"] [data-tracker]`).getAttribute('data-tracker')).toBe(`teltonika:${e.imei}`);
      await clean(page);
      await screenshot(page, `operator-vehicles-${locale}`);

      // An application: its secrets shown once, gone after leaving the screen. The company chosen on Vehicles stays chosen.
      await go(page, t.applications);
      expect(await page.getByLabel(t.company).inputValue()).toBe(e.company);
      const appForm = page.getByRole('form', { name: `${t.addApplication} ${companyName}` });
      await appForm.getByLabel(t.name, { exact: true }).fill(e.app);
      await appForm.getByRole('button', { name: t.add }).click();
      const row = page.locator(`tr[data-name="${e.app}"]`);
      await row.waitFor();
      const clientId = (await row.getAttribute('data-client-id'))!;
      const firstSecret = await secretOf(page, t.clientSecret);
      expect(firstSecret.length).toBeGreaterThan(20);
      expect(await secretOf(page, t.signSecret)).not.toBe('');
      expect(await page.locator('.secret-once').innerText()).toContain(t.once);
      await clean(page);
      await screenshot(page, `operator-credentials-${locale}`);
      await go(page, t.plans);
      await go(page, t.applications);
      expect(await page.locator('.secret-once').count()).toBe(0);
      expect(await page.locator('body').innerText()).not.toContain(firstSecret);
      // innerText leaves out what fields hold: no field may still hold it either.
      expect(await page.locator('input, textarea').evaluateAll((fields, secret) => fields.some((f) => (f as HTMLInputElement).value.includes(secret)), firstSecret)).toBe(false);

      // Rotated after a question: new secrets, once; the old client secret gets no token any more.
      await row.getByRole('button', { name: new RegExp(t.rotate) }).click();
      const question = page.getByRole('alertdialog');
      expect(await question.getByLabel(t.both).isChecked()).toBe(true);
      await clean(page);
      await question.getByRole('button', { name: t.rotateYes }).click();
      await page.locator('.secret-once').waitFor();
      const rotatedSecret = await secretOf(page, t.clientSecret);
      expect(rotatedSecret).not.toBe(firstSecret);
      expect(await question.count()).toBe(0);

      // The company renamed.
      await go(page, t.companies);
      await page.locator(`tr[data-id="${e.company}"]`).getByRole('button', { name: new RegExp(t.edit) }).click();
      const editForm = page.getByRole('form', { name: `${t.editCompany} ${e.company}` });
      await editForm.getByLabel(t.name, { exact: true }).fill(`${companyName} renamed`);
      await editForm.getByRole('button', { name: t.save }).click();
      await page.locator(`tr[data-id="${e.company}"]`).filter({ hasText: `${companyName} renamed` }).waitFor();
      await clean(page);

      // What the service now holds, read on the page's session.
      expect(await apiList(page, '/plans')).toContainEqual({ name: e.plan, datapoints: '*', commands: ['diagnostics'] });
      expect(await apiList(page, '/oems')).toContainEqual(expect.objectContaining({ name: e.oem, connector: 'device' }));
      expect(await apiList(page, '/companies')).toContainEqual({ id: e.company, name: `${companyName} renamed`, plan: e.plan });
      expect(await apiList(page, `/vehicles?company=${e.company}`)).toEqual([
        expect.objectContaining({ vin: e.vin, oem: e.oem, model: 'FH 460', year: 2022, device: { protocol: 'teltonika', id: e.imei } }),
      ]);
      expect(await apiList(page, `/applications?company=${e.company}`)).toContainEqual(expect.objectContaining({ name: e.app, client_id: clientId, enabled: true }));
      expect(await token(clientId, firstSecret)).toBe(401);
      expect(await token(clientId, rotatedSecret)).toBe(200);

      await page.getByRole('button', { name: t.signOut }).click();
      await page.getByRole('heading', { level: 1, name: t.title }).waitFor();
    }, scaled(60_000));
  }
});

/** The text an input is described by (its aria-describedby), as a screen reader reads it after the label. */
async function description(input: Locator): Promise<string> {
  return input.evaluate((el) => (el.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' '));
}
