/**
 * Debian's Chromium driven by playwright-core, for the console's end-to-end tests: a page that
 * records console errors and every request that tries to leave loopback (aborted, so nothing
 * does), and axe for accessibility.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { scaled } from '../support/timeouts.js';
import { CHROMIUM, failWithoutChromium } from './chromium-path.js';

// As this module loads: every file that drives the browser fails at once without one.
failWithoutChromium(CHROMIUM);

/** Where each run's screenshots go; `npm run screenshots` copies them to docs/screenshots. */
/** The built console the demo serves. */
const CONSOLE_DIST = fileURLToPath(new URL('../../packages/console/dist/', import.meta.url));

export const SCREENSHOTS = process.env.SCREENSHOTS_DIR ?? join(process.cwd(), 'test-results', 'console');

/** Debian's chromium (CI installs it: .ci/run), never a browser playwright would download. */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    timeout: scaled(30_000),
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--enable-unsafe-swiftshader', ...extraArgs],
  });
}

export interface WatchedPage {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Console errors and uncaught exceptions. */
  readonly errors: string[];
  /** Requests to anywhere but the service (all aborted). */
  readonly external: string[];
}

export interface Screen {
  readonly timezoneId?: string;
  readonly viewport?: { readonly width: number; readonly height: number };
}

/** `alsoAllowed`: other loopback origins the page may reach (a test's tile server); `screen`: another zone or size. */
export async function openPage(browser: Browser, base: string, locale: 'en' | 'pt-BR', alsoAllowed: readonly string[] = [], screen: Screen = {}): Promise<WatchedPage> {
  const context = await browser.newContext({
    locale, timezoneId: screen.timezoneId ?? 'America/Sao_Paulo', viewport: screen.viewport ?? { width: 1360, height: 900 }, deviceScaleFactor: 1, reducedMotion: 'reduce',
  });
  const errors: string[] = [];
  const external: string[] = [];
  const allowed = new Set([new URL(base).origin, ...alsoAllowed]);
  await context.route((url) => !allowed.has(url.origin) && url.protocol !== 'data:' && url.protocol !== 'blob:', (route) => {
    external.push(route.request().url());
    return route.abort();
  });
  // Every wait the tests do not size themselves (clicks, navigation): playwright's 30 s, scaled.
  context.setDefaultTimeout(scaled(30_000));
  const page = await context.newPage();
  page.on('console', (message) => { if (message.type() === 'error') errors.push(`console: ${message.text()}`); });
  page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
  // A console asset that fails says which, and whether the built file was there: a rebuild under
  // a running demo once made them vanish mid-suite (`npx telematics` ran prepare; scripts/prepare.mjs).
  page.on('response', (response) => {
    const path = new URL(response.url()).pathname;
    if (response.status() >= 400 && path.startsWith('/console/assets/')) {
      errors.push(`asset: ${response.status()} ${path} (built file ${existsSync(join(CONSOLE_DIST, path.slice('/console/'.length))) ? 'present' : 'absent'})`);
    }
  });
  return { context, page, errors, external };
}

/** The sign-in button and the password field in each language. */
const SIGN_IN = { en: 'Sign in', 'pt-BR': 'Entrar' } as const;
const PASSWORD = { en: 'Password', 'pt-BR': 'Senha' } as const;

export type DemoRole = 'owner' | 'admin' | 'dispatcher' | 'viewer';

/**
 * Fills the sign-in form as one of the demo's people (data/demo.env's `<ROLE>_EMAIL` and
 * `<ROLE>_PASSWORD`) and submits it; the caller waits for what it expects next.
 */
export async function submitSignIn(page: Page, demo: Readonly<Record<string, string>>, role: DemoRole, locale: 'en' | 'pt-BR' = 'en', password?: string): Promise<void> {
  const key = role.toUpperCase();
  await page.getByLabel('E-mail').fill(demo[`${key}_EMAIL`]!);
  await page.getByLabel(PASSWORD[locale], { exact: true }).fill(password ?? demo[`${key}_PASSWORD`]!);
  await page.getByRole('button', { name: SIGN_IN[locale] }).click();
}

/**
 * axe's violations on the page as it is, the map canvas excluded (a picture, described by its
 * label). axe-core is evaluated in the page (its Playwright wrapper wants Node 22); evaluation
 * is not subject to the page's CSP, which rightly refuses an injected inline script.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const run = (globalThis as unknown as { axe: typeof axe }).axe.run;
    const result = await run({ exclude: [['.map-box']] } as never);
    // A run that checked nothing would pass anything: count what passed too.
    if (result.passes.length < 10) return [`axe checked only ${result.passes.length} rules`];
    return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  });
  return violations;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true, animations: 'disabled', caret: 'hide' });
}
