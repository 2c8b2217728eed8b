/**
 * The console's optional basemap, one setting (`--console-basemap`) in one of three forms:
 * - a raster tile URL template with {z}, {x} and {y} (`https://tiles.example/{z}/{x}/{y}.png`);
 * - a local `.pmtiles` file (Protomaps vector tiles), which the service itself serves to the
 *   console with HTTP Range, so nothing leaves the installation;
 * - an http(s) URL of a MapLibre style JSON, whose sources and layers go under the overlays.
 * Any of them may be followed by `|` and the attribution to show.
 */
export type Basemap =
  | { readonly kind: 'raster'; readonly tiles: string; readonly attribution: string }
  | { readonly kind: 'pmtiles'; readonly file: string; readonly attribution: string }
  | { readonly kind: 'style'; readonly url: string; readonly attribution: string };

/** What the console is told: never a path on the server. */
export type PublicBasemap =
  | { readonly kind: 'raster'; readonly tiles: string; readonly attribution: string }
  | { readonly kind: 'pmtiles'; readonly url: string; readonly attribution: string }
  | { readonly kind: 'style'; readonly url: string; readonly attribution: string };

/** Where the service serves a `.pmtiles` basemap. */
export const PMTILES_PREFIX = '/console/basemap/';

const isHttpUrl = (text: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
};

/**
 * Undefined when the text is none of the three forms. A `.pmtiles` path is returned as written:
 * resolving it and checking that it exists are the caller's (the domain does no I/O).
 */
export function parseBasemap(text: string): Basemap | undefined {
  const bar = text.indexOf('|');
  const value = (bar < 0 ? text : text.slice(0, bar)).trim();
  const attribution = bar < 0 ? '' : text.slice(bar + 1).trim();
  const placeholders = ['{z}', '{x}', '{y}'].filter((p) => value.includes(p)).length;
  // A template with some of the placeholders is a mistyped template, not a style URL.
  if (placeholders > 0) {
    return placeholders === 3 && isHttpUrl(value.replace(/\{[zxy]\}/g, '0')) ? { kind: 'raster', tiles: value, attribution } : undefined;
  }
  if (/\.pmtiles$/i.test(value) && !/^[a-z][a-z0-9+.-]*:/i.test(value)) return { kind: 'pmtiles', file: value, attribution };
  if (isHttpUrl(value)) return { kind: 'style', url: value, attribution };
  return undefined;
}

export function publicBasemap(basemap: Basemap): PublicBasemap {
  if (basemap.kind === 'pmtiles') return { kind: 'pmtiles', url: `${PMTILES_PREFIX}${encodeURIComponent(fileName(basemap.file))}`, attribution: basemap.attribution };
  return basemap;
}

const fileName = (path: string) => path.split(/[\\/]/).pop() ?? path;

/** The origin the console's page must be allowed to reach for the basemap (CSP); none for a local file. */
export function basemapOrigin(basemap: Basemap): string | undefined {
  if (basemap.kind === 'pmtiles') return undefined;
  return new URL(basemap.kind === 'raster' ? basemap.tiles.replace(/\{[zxy]\}/g, '0') : basemap.url).origin;
}
