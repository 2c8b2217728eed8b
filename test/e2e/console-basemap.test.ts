/**
 * The console map's optional basemap (`--console-basemap`) in Chromium, against a tile server of
 * the test's on loopback: a raster template whose tiles partly fail (the overlays still draw and
 * one notice says so), and a style URL whose raster source the map then reads. The page's CSP must
 * let the basemap's origin through and nothing else.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo } from '../support/demo-process.js';
import { launchChromium, openPage, submitSignIn } from './console-browser.js';
import type { Browser } from 'playwright-core';
import { scaled } from '../support/timeouts.js';

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

describe('console basemap in Chromium', () => {
  let tiles: Server;
  let origin: string;
  let browser: Browser;
  const requested: string[] = [];

  beforeAll(async () => {
    tiles = createServer((request, response) => {
      requested.push(request.url ?? '');
      if (request.url === '/style.json') {
        response.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
        response.end(JSON.stringify({
          version: 8, sources: { osm: { type: 'raster', tiles: [`${origin}/ok/{z}/{x}/{y}.png`], tileSize: 256 } },
          layers: [{ id: 'bg', type: 'background', paint: { 'background-color': '#000' } }, { id: 'osm', type: 'raster', source: 'osm' }],
        }));
        return;
      }
      // Tiles of an odd x fail: a basemap that partly does not load.
      const m = /^\/(ok|half)\/\d+\/(\d+)\/\d+\.png$/.exec(request.url ?? '');
      if (m && (m[1] === 'ok' || Number(m[2]) % 2 === 0)) {
        response.writeHead(200, { 'content-type': 'image/png', 'access-control-allow-origin': '*' });
        response.end(PNG);
        return;
      }
      // 500, not 404: MapLibre reads a 404 as "no tile here", not as a failure.
      response.writeHead(500, { 'access-control-allow-origin': '*' }).end();
    });
    await new Promise<void>((r) => tiles.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(tiles.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => tiles?.close(r));
  });

  async function fleetWith(basemap: string) {
    const folder = mkdtempSync(join(tmpdir(), 'console-basemap-'));
    const demo = await startDemo(folder, { TELEMATICS_SIM_BACKFILL: '1h', TELEMATICS_CONSOLE_BASEMAP: basemap });
    const watched = await openPage(browser, demo.values.BASE!, 'en', [origin]);
    const { page } = watched;
    await page.goto(`${demo.values.BASE}/console/`);
    await submitSignIn(page, demo.values, 'viewer');
    await page.locator('.map-box[data-map-state="idle"]').waitFor({ timeout: scaled(20_000) });
    return {
      watched, page,
      async close() {
        await watched.context.close();
        await demo.stop();
        rmSync(folder, { recursive: true, force: true });
      },
    };
  }

  it('when a raster template\'s tiles partly fail, then the tiles that load are drawn, one notice says so, and no console error is logged', async () => {
    requested.length = 0;
    const fleet = await fleetWith(`${origin}/half/{z}/{x}/{y}.png|© test tiles`);
    try {
      await fleet.page.getByRole('note').getByText('The basemap could not be loaded').waitFor({ timeout: scaled(10_000) });
      expect(requested.filter((u) => u.startsWith('/half/')).length).toBeGreaterThan(1);
      expect(await fleet.page.getByText('© test tiles').count()).toBeGreaterThan(0);
      // Failed tiles show in Chromium's log as failed resources: the only errors allowed here.
      expect(fleet.watched.errors.filter((e) => !/status of 500/.test(e))).toEqual([]);
      expect(fleet.watched.external).toEqual([]);
    } finally {
      await fleet.close();
    }
  }, scaled(60_000));

  it('when the basemap is a style URL, then its raster source is read from that origin under the overlays', async () => {
    requested.length = 0;
    const fleet = await fleetWith(`${origin}/style.json`);
    try {
      for (let i = 0; i < 100 && !requested.some((u) => u.startsWith('/ok/')); i += 1) await new Promise((r) => setTimeout(r, 100));
      expect(requested).toContain('/style.json');
      expect(requested.some((u) => u.startsWith('/ok/'))).toBe(true);
      expect(await fleet.page.getByRole('note').count()).toBe(0);
      expect(fleet.watched.errors).toEqual([]);
      expect(fleet.watched.external).toEqual([]);
    } finally {
      await fleet.close();
    }
  }, scaled(60_000));
});
