/** The console's optional basemap setting (`--console-basemap`). */

/** An optional basemap under the console's overlays: a raster tile URL template ({z}/{x}/{y}). */
export interface RasterBasemap {
  readonly kind: 'raster';
  readonly tiles: string;
  readonly attribution: string;
}

/**
 * `--console-basemap`: a raster tile URL template with {z}, {x} and {y}, optionally followed by
 * `|` and its attribution. Undefined when the text is not one.
 */
export function parseBasemap(text: string): RasterBasemap | undefined {
  const [url = '', attribution = ''] = text.split('|', 2);
  let parsed: URL;
  try {
    parsed = new URL(url.replaceAll('{z}', '0').replaceAll('{x}', '0').replaceAll('{y}', '0'));
  } catch {
    return undefined;
  }
  if (!['http:', 'https:'].includes(parsed.protocol) || !['{z}', '{x}', '{y}'].every((p) => url.includes(p))) return undefined;
  return { kind: 'raster', tiles: url, attribution: attribution.trim() };
}
