/**
 * Pointing at the Geofences screen's map from a test: a click or a drag at a fraction of the
 * canvas, and where on Earth that pixel is, read from the view the map box announces
 * (`data-bounds`: west,south,east,north) through the Web Mercator projection MapLibre draws with.
 */
import type { Page } from 'playwright-core';

export type LngLat = [number, number];

const mercatorY = (lat: number) => Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360));
const latitudeOf = (y: number) => (360 / Math.PI) * Math.atan(Math.exp(y)) - 90;

export interface MapPointer {
  /** The page position of a fraction of the canvas, and the longitude and latitude under it. */
  at(fx: number, fy: number): Promise<{ x: number; y: number; lngLat: LngLat; degreesPerPixel: number }>;
  lngLatOf(x: number, y: number): Promise<{ lngLat: LngLat; degreesPerPixel: number }>;
  click(fx: number, fy: number): Promise<LngLat>;
}

export function mapPointer(page: Page): MapPointer {
  const box = page.locator('.map-box');
  const canvas = page.locator('.map-box canvas');
  const lngLatOf = async (x: number, y: number) => {
    const rect = (await canvas.boundingBox())!;
    const [w, s, e, n] = (await box.getAttribute('data-bounds'))!.split(',').map(Number) as [number, number, number, number];
    const fx = (x - rect.x) / rect.width;
    const fy = (y - rect.y) / rect.height;
    const lngLat: LngLat = [w + fx * (e - w), latitudeOf(mercatorY(n) - fy * (mercatorY(n) - mercatorY(s)))];
    return { lngLat, degreesPerPixel: (e - w) / rect.width };
  };
  const at = async (fx: number, fy: number) => {
    const rect = (await canvas.boundingBox())!;
    const [x, y] = [rect.x + fx * rect.width, rect.y + fy * rect.height];
    return { x, y, ...(await lngLatOf(x, y)) };
  };
  return {
    at,
    lngLatOf,
    async click(fx, fy) {
      const point = await at(fx, fy);
      await page.mouse.click(point.x, point.y);
      return point.lngLat;
    },
  };
}

/** Drags a DOM handle of the map by (dx, dy) pixels from its centre; answers where the pointer let go. */
export async function dragBy(page: Page, selector: string, dx: number, dy: number): Promise<{ x: number; y: number }> {
  const rect = (await page.locator(selector).boundingBox())!;
  const [x, y] = [rect.x + rect.width / 2, rect.y + rect.height / 2];
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx / 2, y + dy / 2, { steps: 5 });
  await page.mouse.move(x + dx, y + dy, { steps: 5 });
  await page.mouse.up();
  return { x: x + dx, y: y + dy };
}

/** Within `pixels` of each other at the map's scale. */
export function near(a: readonly number[], b: readonly number[], degreesPerPixel: number, pixels = 2.5): boolean {
  return Math.abs(a[0]! - b[0]!) <= pixels * degreesPerPixel && Math.abs(a[1]! - b[1]!) <= pixels * degreesPerPixel;
}
