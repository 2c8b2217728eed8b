/**
 * People in the web console, against `npm start`'s demo, in Debian's Chromium, in both
 * languages: an admin invites a viewer on the People screen (and finds it on the Audit screen); the link, opened in another
 * browser, sets a password; the viewer signs in, sees no command button and no People screen,
 * enrols two-factor sign-in on the Account screen (the code computed from the secret it shows)
 * and signs in again with a recovery code. axe clean on every screen, no console error, no
 * request off loopback.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { currentTotp } from '../../src/security/one-time-codes.js';
import { scaled } from '../support/timeouts.js';
import { accessibilityViolations, screenshot, submitSignIn } from './console-browser.js';
import { demoInChromium } from './demo-in-chromium.js';

const TEXTS = {
  en: {
    fleet: 'Fleet', people: 'People', account: 'Account', audit: 'Audit', invite: 'Invite', role: 'Role', viewer: 'viewer', setPassword: 'Set password', newPassword: 'New password (12 characters or more)',
    signIn: 'Sign in', password: 'Password', code: 'Code', setUp: 'Set up two-factor sign-in', confirm: 'Confirm', commands: 'Commands', signOut: 'Sign out',
  },
  'pt-BR': {
    fleet: 'Frota', people: 'Pessoas', account: 'Conta', audit: 'Auditoria', invite: 'Convidar', role: 'Papel', viewer: 'leitor', setPassword: 'Definir senha', newPassword: 'Nova senha (12 caracteres ou mais)',
    signIn: 'Entrar', password: 'Senha', code: 'Código', setUp: 'Ativar login em duas etapas', confirm: 'Confirmar', commands: 'Comandos', signOut: 'Sair',
  },
} as const;

describe('people in the web console in Chromium', () => {
  const run = demoInChromium('console-people-e2e', { TELEMATICS_SIM_BACKFILL: '1h' });

  async function open(locale: 'en' | 'pt-BR'): Promise<Page> {
    const watched = await run.open(locale);
    return watched.page;
  }

  for (const locale of ['en', 'pt-BR'] as const) {
    it(`when an admin invites a viewer (${locale}), then the link sets a password, the viewer reads without command buttons, enrols two-factor sign-in and signs in with a recovery code`, async () => {
      const t = TEXTS[locale];
      const email = `new-viewer-${locale.toLowerCase()}@acme.example`;
      const password = `a long password for ${locale}`;
      const admin = await open(locale);
      await admin.goto(`${run.base}/console/`);
      await submitSignIn(admin, run.demo.values, 'admin', locale);
      await admin.getByRole('navigation').getByRole('link', { name: t.people }).click();
      await admin.getByRole('heading', { level: 1, name: t.people }).waitFor();
      await admin.locator('main [data-ready="true"]').first().waitFor();
      await admin.getByRole('form', { name: locale === 'en' ? 'Invite a person' : 'Convidar uma pessoa' }).getByLabel('E-mail').fill(email);
      await admin.getByRole('button', { name: t.invite, exact: true }).click();
      const link = await admin.locator('output.link').innerText();
      expect(link).toMatch(new RegExp(`^${run.base}/console/#password=[A-Za-z0-9_-]{43}$`));
      await admin.locator(`tr[data-email="${email}"]`).waitFor();
      expect(await accessibilityViolations(admin)).toEqual([]);
      await screenshot(admin, `people-${locale}`);
      // The invitation is in the audit trail, under the admin's name.
      await admin.getByRole('navigation').getByRole('link', { name: t.audit }).click();
      const invitedEntry = admin.locator('tr[data-action="user.invited"]').filter({ hasText: email });
      await invitedEntry.waitFor();
      expect(await invitedEntry.innerText()).toContain(`user: ${run.demo.values.ADMIN_EMAIL}`);
      expect(await accessibilityViolations(admin)).toEqual([]);
      await screenshot(admin, `audit-${locale}`);

      // The invited person, in a browser of their own.
      const viewer = await open(locale);
      await viewer.goto(link);
      await viewer.getByText(email).waitFor();
      expect(await accessibilityViolations(viewer)).toEqual([]);
      await viewer.getByLabel(t.newPassword).fill(password);
      await viewer.getByRole('button', { name: t.setPassword }).click();
      await viewer.getByRole('status').waitFor();
      expect(await viewer.getByLabel('E-mail').inputValue()).toBe(email);
      await viewer.getByLabel(t.password, { exact: true }).fill(password);
      await viewer.getByRole('button', { name: t.signIn }).click();
      await viewer.getByRole('heading', { level: 1, name: t.fleet }).waitFor();
      expect(await viewer.getByRole('navigation').getByRole('link', { name: t.people }).count()).toBe(0);
      await viewer.getByRole('navigation').getByRole('link', { name: t.commands }).click();
      await viewer.getByRole('heading', { level: 1, name: t.commands }).waitFor();
      await viewer.getByRole('note').waitFor();
      expect(await viewer.locator('main button').filter({ hasText: /Diagn/ }).count()).toBe(0);

      // Two-factor sign-in: the code from the key the page shows, the recovery codes once.
      await viewer.getByRole('navigation').getByRole('link', { name: t.account }).click();
      await viewer.getByRole('button', { name: t.setUp }).click();
      const secret = await viewer.locator('output.secret').innerText();
      expect(await accessibilityViolations(viewer)).toEqual([]);
      await viewer.getByLabel(t.code).fill(currentTotp(secret, Date.now()));
      await viewer.getByRole('button', { name: t.confirm }).click();
      const codes = viewer.locator('.recovery-codes code');
      await codes.first().waitFor();
      expect(await codes.count()).toBe(10);
      const recovery = await codes.first().innerText();
      expect(await accessibilityViolations(viewer)).toEqual([]);
      await screenshot(viewer, `account-two-factor-${locale}`);

      await viewer.getByRole('button', { name: t.signOut }).click();
      await viewer.getByLabel('E-mail').fill(email);
      await viewer.getByLabel(t.password, { exact: true }).fill(password);
      await viewer.getByRole('button', { name: t.signIn }).click();
      await viewer.getByLabel(t.code).fill(recovery);
      await viewer.getByRole('button', { name: t.signIn }).click();
      // Signed in again where they signed out: their account, now with two-factor sign-in on.
      await viewer.getByRole('heading', { level: 1, name: t.account }).waitFor();
      await viewer.getByRole('button', { name: locale === 'en' ? 'Turn off two-factor sign-in' : 'Desativar login em duas etapas' }).waitFor();
      // The sign-in that asked for the code was a 401 on purpose, which Chromium logs as a failed resource.
      run.expectCausedErrors(viewer, 401, 1);
    }, scaled(90_000));
  }
});
