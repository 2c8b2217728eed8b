/**
 * The Geofences screen end to end, in Chromium against `npm start`'s demo: fences drawn by clicking
 * the map canvas (a polygon, a circle, a corridor) and typed as GeoJSON, saved, found through the
 * API with the drawn positions; a corner dragged and a radius changed, seen through the API; a
 * self-intersecting polygon answered with the service's own 400 detail; a delete after its
 * confirmation; the preview's events; the fleet and vehicle maps drawing the company's fences. Both
 * languages, axe clean, no console error and no request off loopback. The demo may hold fences of
 * its own: this test finds its fences by the names it gives them.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { scaled } from '../support/timeouts.js';
import { until } from '../support/until.js';
import { accessibilityViolations, screenshot, submitSignIn } from './console-browser.js';
import { demoInChromium } from './demo-in-chromium.js';
import { dragBy, mapPointer, near, type LngLat } from './fence-map-pointer.js';

interface Fence { id: string; name: string; geometry: { type: string; coordinates: unknown }; radius_m?: number; width_m?: number }

const TEXTS = {
  en: { fleet: 'Fleet', geofences: 'Geofences', new: 'New geofence', name: 'Name', kind: 'Kind', save: 'Save', saved: 'Saved', apply: 'Apply', geometry: /^Geometry as GeoJSON/ },
  'pt-BR': { fleet: 'Frota', geofences: 'Cercas', new: 'Nova cerca', name: 'Nome', kind: 'Tipo', save: 'Salvar', saved: 'salva', apply: 'Aplicar', geometry: /^Geometria em GeoJSON/ },
} as const;

describe('console geofences in Chromium', () => {
  const run = demoInChromium('console-geofences', { TELEMATICS_SIM_BACKFILL: '1h' });
  let token: string;
  beforeAll(async () => {
    ({ token } = await fetch(`${run.base}/token`, {
      method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: run.demo.values.CLIENT_ID!, client_secret: run.demo.values.CLIENT_SECRET! }),
    }).then((res) => res.json() as Promise<{ token: string }>));
  });

  const api = (path: string, init: RequestInit = {}) => fetch(`${run.base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers } });
  async function allFences(): Promise<Fence[]> {
    const all: Fence[] = [];
    let after: string | null = null;
    do {
      const page: { data: Fence[]; next_cursor: string | null } = await api(`/geofences?limit=200${after ? `&after=${encodeURIComponent(after)}` : ''}`).then((r) => r.json() as Promise<{ data: Fence[]; next_cursor: string | null }>);
      all.push(...page.data);
      after = page.next_cursor;
    } while (after !== null);
    return all;
  }
  async function fenceNamed(name: string): Promise<Fence> {
    let found: Fence | undefined;
    await until(`the geofence "${name}" saved`, async () => (found = (await allFences()).find((f) => f.name === name)) !== undefined);
    return found!;
  }

  async function openGeofences(locale: 'en' | 'pt-BR'): Promise<Page> {
    const t = TEXTS[locale];
    const watched = await run.open(locale);
    const { page } = watched;
    await page.goto(`${run.base}/console/`);
    await submitSignIn(page, run.demo.values, 'admin', locale);
    await page.getByRole('heading', { level: 1, name: t.fleet }).waitFor();
    await page.getByRole('navigation').getByRole('link', { name: t.geofences }).click();
    await page.locator('section.geofences[data-ready="true"]').waitFor();
    await mapIdle(page);
    return page;
  }
  const mapIdle = (page: Page) => page.locator('.map-box[data-map-state="idle"]').waitFor({ timeout: scaled(20_000) });

  /** Starts a new fence of `kind` named `name`; the map then takes clicks as its points. */
  async function newFence(page: Page, locale: 'en' | 'pt-BR', kind: 'circle' | 'polygon' | 'corridor', name: string): Promise<void> {
    const t = TEXTS[locale];
    await page.getByRole('button', { name: t.new }).click();
    await page.getByLabel(t.kind).selectOption(kind);
    await page.getByLabel(t.name, { exact: true }).fill(name);
  }
  const save = async (page: Page, locale: 'en' | 'pt-BR', name: string) => {
    await page.getByRole('button', { name: TEXTS[locale].save, exact: true }).click();
    await page.getByRole('status').filter({ hasText: name }).filter({ hasText: TEXTS[locale].saved }).waitFor();
    await page.locator('section.geofences[data-ready="true"]').waitFor();
  };
  /** The 400 the test caused on purpose is logged by Chromium as a failed resource: not a defect. */
  const expectOneRefusal = (page: Page) => run.expectCausedErrors(page, 400, 1);
  const select = (page: Page, name: string) => page.locator('.fence-table').getByRole('button', { name, exact: true }).click();

  it('when a user draws, edits, previews and deletes fences on the map (en), then the API holds what was drawn and the fleet map shows them', async () => {
    const page = await openGeofences('en');
    expect(await accessibilityViolations(page)).toEqual([]);
    const pointer = mapPointer(page);

    // A polygon: four clicks on the canvas, Finish, Save; the API has those corners.
    await newFence(page, 'en', 'polygon', 'E2E square');
    const corners: LngLat[] = [];
    for (const [fx, fy] of [[0.35, 0.3], [0.6, 0.3], [0.6, 0.6], [0.35, 0.6]] as const) corners.push(await pointer.click(fx, fy));
    await page.locator('[data-points="4"]').waitFor();
    const { degreesPerPixel } = await pointer.at(0.5, 0.5);
    await page.getByRole('button', { name: 'Finish polygon' }).click();
    await save(page, 'en', 'E2E square');
    const square = await fenceNamed('E2E square');
    expect(square.geometry.type).toBe('Polygon');
    const ring = (square.geometry.coordinates as number[][][])[0]!;
    expect(ring).toHaveLength(5);
    expect(ring[4]).toEqual(ring[0]);
    corners.forEach((corner, i) => expect(near(ring[i]!, corner, degreesPerPixel), `corner ${i}: ${ring[i]} vs ${corner}`).toBe(true));

    // A bow tie, finished by clicking its first corner: the service's 400 detail, shown as it was sent.
    await newFence(page, 'en', 'polygon', 'E2E bow tie');
    for (const [fx, fy] of [[0.2, 0.2], [0.45, 0.45], [0.45, 0.2], [0.2, 0.45]] as const) await pointer.click(fx, fy);
    await page.locator('.fence-handle[data-vertex="0"]').click();
    await page.getByRole('button', { name: 'Finish polygon' }).waitFor({ state: 'detached' });
    const typed = JSON.parse(await page.getByLabel(TEXTS.en.geometry).inputValue()) as unknown;
    const refused = await api('/geofences', { method: 'POST', body: JSON.stringify({ name: 'E2E bow tie', geometry: typed }) });
    expect(refused.status).toBe(400);
    const { detail } = await refused.json() as { detail: string };
    expect(detail).toMatch(/^Invalid geofence: geometry: ring 0 intersects itself/);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: detail }).waitFor();
    expect(await page.getByRole('alert').filter({ hasText: detail }).innerText()).toBe(`The service answered: ${detail}`);
    expect((await allFences()).some((f) => f.name === 'E2E bow tie')).toBe(false);
    expectOneRefusal(page);
    await page.getByRole('button', { name: 'Cancel' }).click();

    // A circle of 50 km around the middle of the view: the demo fleet drives inside it, so the
    // preview over the last days finds each vehicle entering.
    await newFence(page, 'en', 'circle', 'E2E city');
    const centre = await pointer.click(0.5, 0.5);
    await page.getByLabel('Radius (m)').fill('50000');
    await page.getByRole('button', { name: 'Try on last 7 days' }).click();
    const answer = page.locator('.preview-answer');
    await answer.waitFor({ timeout: scaled(20_000) });
    expect(Number(await answer.locator('[data-type="entered"] strong').innerText())).toBeGreaterThan(0);
    expect(await answer.locator('tbody tr').count()).toBe(Number(await answer.getAttribute('data-events')));
    expect(await answer.locator('tbody tr').first().innerText()).toMatch(/[A-Z0-9]{7} · [A-HJ-NPR-Z0-9]{17}\s+Entered\s+\d/);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'geofences-preview-en');
    await save(page, 'en', 'E2E city');
    const city = await fenceNamed('E2E city');
    expect(city.geometry.type).toBe('Point');
    expect(city.radius_m).toBe(50_000);
    expect(near(city.geometry.coordinates as number[], centre, degreesPerPixel)).toBe(true);

    // A corridor of three points, 120 m wide.
    await newFence(page, 'en', 'corridor', 'E2E road');
    await page.getByLabel('Width (m)').fill('120');
    const road: LngLat[] = [];
    for (const [fx, fy] of [[0.25, 0.8], [0.5, 0.72], [0.75, 0.8]] as const) road.push(await pointer.click(fx, fy));
    const { degreesPerPixel: roadScale } = await pointer.at(0.5, 0.5);
    await save(page, 'en', 'E2E road');
    const corridor = await fenceNamed('E2E road');
    expect(corridor.geometry.type).toBe('LineString');
    expect(corridor.width_m).toBe(120);
    road.forEach((p, i) => expect(near((corridor.geometry.coordinates as number[][])[i]!, p, roadScale)).toBe(true));

    // Edit: the square's first corner dragged 40 px right and 30 px down; the others stay.
    await select(page, 'E2E square');
    await mapIdle(page);
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const droppedAt = await dragBy(page, '.fence-handle[data-vertex="0"]', 40, 30);
    const moved = await pointer.lngLatOf(droppedAt.x, droppedAt.y);
    await save(page, 'en', 'E2E square');
    await until('the dragged corner stored', async () => {
      const after = (await fenceNamed('E2E square')).geometry.coordinates as number[][][];
      return near(after[0]![0]!, moved.lngLat, moved.degreesPerPixel) && near(after[0]![4]!, moved.lngLat, moved.degreesPerPixel)
        && JSON.stringify(after[0]!.slice(1, 4)) === JSON.stringify(ring.slice(1, 4));
    });

    // Edit: the circle's radius typed.
    await select(page, 'E2E city');
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    // The handle on the edge sets the radius too (the view fits the 50 km circle, the handle on its east).
    await dragBy(page, '.fence-handle[data-radius-handle="true"]', -60, 0);
    await expect.poll(async () => Number(await page.getByLabel('Radius (m)').inputValue())).toBeLessThan(48_000);
    await page.getByLabel('Radius (m)').fill('30000');
    await save(page, 'en', 'E2E city');
    await until('the new radius stored', async () => (await fenceNamed('E2E city')).radius_m === 30_000);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'geofences-en');

    // Delete, after the confirmation.
    await select(page, 'E2E road');
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText('Delete E2E road?').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Delete the geofence' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted E2E road.' }).waitFor();
    expect((await api(`/geofences/${corridor.id}`)).status).toBe(404);

    // The fleet map draws every fence of the company, from every page.
    await page.getByRole('navigation').getByRole('link', { name: 'Fleet' }).click();
    await mapIdle(page);
    const total = (await allFences()).length;
    await expect.poll(() => page.locator('.map-box').getAttribute('data-fences'), { timeout: scaled(10_000) }).toBe(String(total));
    await screenshot(page, 'fleet-fences-en');
    // The vehicles stay clickable above the fences.
    const plate = page.locator('.vehicle-label').first();
    const vin = await plate.getAttribute('data-vin');
    await plate.click();
    await page.waitForURL(`**/console/vehicles/${vin}`);
  }, scaled(90_000));

  it('when a user types a fence as GeoJSON (pt-BR), then it is saved as typed and the vehicle map draws the fences', async () => {
    const page = await openGeofences('pt-BR');
    await newFence(page, 'pt-BR', 'polygon', 'E2E teclado');
    const typed = [[[-46.66, -23.57], [-46.62, -23.57], [-46.62, -23.54], [-46.66, -23.54], [-46.66, -23.57]]];
    await page.getByLabel(TEXTS['pt-BR'].geometry).fill(JSON.stringify({ type: 'Polygon', coordinates: typed }));
    await page.getByRole('button', { name: TEXTS['pt-BR'].apply }).click();
    await page.locator('.fence-handle[data-vertex="3"]').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await save(page, 'pt-BR', 'E2E teclado');
    expect((await fenceNamed('E2E teclado')).geometry.coordinates).toEqual(typed);
    await select(page, 'E2E teclado');
    await expect.poll(() => page.locator('.fence-table tr.chosen th').innerText()).toBe('E2E teclado');
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'geofences-pt-BR');

    const [vehicle] = await api('/vehicle').then((r) => r.json() as Promise<{ vin: string }[]>);
    await page.goto(`${run.base}/console/vehicles/${vehicle!.vin}`);
    await page.locator('section.vehicle[data-ready="true"]').waitFor();
    await mapIdle(page);
    const total = (await allFences()).length;
    await expect.poll(() => page.locator('.map-box').getAttribute('data-fences'), { timeout: scaled(10_000) }).toBe(String(total));
  }, scaled(60_000));
});
