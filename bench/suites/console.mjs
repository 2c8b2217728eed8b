/**
 * The web console (packages/console) against the budget of ../shared/research/console.md §6.6:
 * - sizes, gzipped (level 9) from the build: the entry script (≤ 30 kB), the console's own CSS
 *   (≤ 10 kB), the chart chunk (≤ 30 kB), the map chunk (≤ 300 kB), MapLibre's worker (≤ 150 kB);
 * - in Debian's Chromium headless on loopback, against `serve --demo` (one day of history): the
 *   fleet screen's first contentful paint (≤ 1 s), its map idle with overlays (≤ 3 s), and the
 *   vehicle screen's charts of a 24 h window, 8,640 records at 10 s (≤ 100 ms for all of them).
 * Each timing is the median of its rounds, each in a fresh browser context (cold cache). Not a
 * database figure: measured once, in the SQLite section.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { median } from '../lib/report.mjs';

export const name = 'console';

const ROOT = new URL('../..', import.meta.url).pathname;
const DIST = join(ROOT, 'packages', 'console', 'dist');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const gzipKb = (file) => gzipSync(readFileSync(file), { level: 9 }).length / 1024;

function builtSizes() {
  const assets = join(DIST, 'assets');
  const files = readdirSync(assets);
  const index = readFileSync(join(DIST, 'index.html'), 'utf8');
  const entry = /src="\/console\/assets\/([^"]+\.js)"/.exec(index)?.[1];
  const css = /href="\/console\/assets\/([^"]+\.css)"/.exec(index)?.[1];
  const one = (prefix, ext) => {
    const found = files.find((f) => f.startsWith(prefix) && f.endsWith(ext));
    if (!found) throw new Error(`no ${prefix}*${ext} in ${assets}: is the console built?`);
    return join(assets, found);
  };
  if (!entry || !css) throw new Error('index.html names no entry script or stylesheet');
  return {
    entry: gzipKb(join(assets, entry)), css: gzipKb(join(assets, css)), chart: gzipKb(one('series-charts-', '.js')),
    // The fleet map loads its own chunk, MapLibre's (map-view, shared with the other maps since
    // geofences and alerts have maps of their own) and the fence layers; its stylesheet is map-view's.
    map: gzipKb(one('fleet-map-', '.js')) + gzipKb(one('map-view-', '.js')) + gzipKb(one('fence-layers-', '.js')),
    worker: gzipKb(one('maplibre-gl-worker-', '.mjs')), mapCss: gzipKb(one('map-view-', '.css')),
  };
}

async function startDemo(folder) {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'telematics.js'), 'serve', '--demo'], {
    cwd: folder,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', TELEMATICS_TELTONIKA_PORT: '0', TELEMATICS_OSMAND_PORT: '0', TELEMATICS_GT06_PORT: '0', TELEMATICS_SIM_BACKFILL: '1d', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => { output += c; });
  child.stderr.on('data', (c) => { output += c; });
  const envFile = join(folder, 'data', 'demo.env');
  const deadline = Date.now() + 120_000;
  while (!output.includes('simulated fleet backfill: ') || !existsSync(envFile)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the demo did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const values = Object.fromEntries(readFileSync(envFile, 'utf8').split('\n').filter((l) => /^[A-Z_]+=/.test(l)).map((l) => l.split(/=(.*)/s)));
  return { values, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) };
}

/** A fresh context signed in through the console's own sign-in call, as the demo's dispatcher. */
async function signedInContext(browser, values) {
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, locale: 'en', timezoneId: 'America/Sao_Paulo' });
  const res = await context.request.post(`${values.BASE}/console/session`, {
    headers: { 'x-telematics-console': '1' }, data: { email: values.DISPATCHER_EMAIL, password: values.DISPATCHER_PASSWORD },
  });
  if (res.status() !== 200) throw new Error(`sign-in: ${res.status()}`);
  return context;
}

export async function run(ctx) {
  if (ctx.kind !== 'sqlite') return [];
  const fig = (figure, service, target, digits = 1) => ({ section: ctx.section, suite: name, name: figure, service, floor: undefined, target, digits });
  const sizes = builtSizes();
  const folder = mkdtempSync(join(tmpdir(), 'bench-console-'));
  const demo = await startDemo(folder);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--enable-unsafe-swiftshader'] });
  try {
    const rounds = ctx.quick ? 1 : 5;
    const paint = [];
    const mapIdle = [];
    const charts = [];
    const vin = (await (await fetch(`${demo.values.BASE}/vehicle`, { headers: { authorization: `Bearer ${await token(demo.values)}` } })).json())[0].vin;
    for (let i = 0; i < rounds; i += 1) {
      const context = await signedInContext(browser, demo.values);
      const page = await context.newPage();
      const t0 = Date.now();
      await page.goto(`${demo.values.BASE}/console/`);
      await page.locator('main [data-ready="true"]').waitFor();
      await page.locator('.map-box[data-map-state="idle"]').waitFor({ timeout: 30_000 });
      mapIdle.push(Date.now() - t0);
      paint.push(await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN));
      await page.goto(`${demo.values.BASE}/console/vehicles/${vin}`);
      const drawn = page.locator('.charts[data-rendered-ms]');
      await drawn.waitFor({ timeout: 30_000 });
      const points = Number(await drawn.getAttribute('data-points'));
      if (points < 8000) ctx.log(`the vehicle's window holds ${points} records, not a full day`);
      charts.push(Number(await drawn.getAttribute('data-rendered-ms')));
      await context.close();
    }
    ctx.log(`fleet FCP ${paint.map((v) => v.toFixed(0)).join(', ')} ms; map idle ${mapIdle.join(', ')} ms; charts ${charts.join(', ')} ms`);
    return [
      fig('console entry script, kB gzip', sizes.entry, { on: 'service', op: '<=', value: 30 }),
      fig('console stylesheet, kB gzip', sizes.css, { on: 'service', op: '<=', value: 10 }),
      fig('chart chunk (uPlot), kB gzip', sizes.chart, { on: 'service', op: '<=', value: 30 }),
      fig('map chunk (MapLibre), kB gzip', sizes.map, { on: 'service', op: '<=', value: 300 }),
      fig('map worker, kB gzip', sizes.worker, { on: 'service', op: '<=', value: 150 }),
      fig('map stylesheet, kB gzip', sizes.mapCss, { on: 'service', op: '<=', value: 11 }),
      fig('fleet first contentful paint, ms (Chromium, loopback)', median(paint), { on: 'service', op: '<=', value: 1000 }, 0),
      fig('fleet map idle with overlays, ms', median(mapIdle), { on: 'service', op: '<=', value: 3000 }, 0),
      fig('vehicle day charts (every chart of a 24 h window, ~8,640 points each), ms', median(charts), { on: 'service', op: '<=', value: 100 }, 0),
    ];
  } finally {
    await browser.close();
    await demo.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

async function token(values) {
  const res = await fetch(`${values.BASE}/token`, {
    method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: values.CLIENT_ID, client_secret: values.CLIENT_SECRET }),
  });
  return (await res.json()).token;
}
