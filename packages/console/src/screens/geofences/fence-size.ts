import type { Translator } from '../../i18n/i18n.js';
import { lineLength, polygonArea } from '../../map/fence-shapes.js';
import type { Geofence } from './geofence-types.js';

/** A fence's size as the table writes it: a circle's radius, a polygon's area, a corridor's width and length. */
export function fenceSize(fence: Geofence, i18n: Translator): string {
  const { geometry } = fence;
  if (geometry.type === 'Point') return i18n.t('sizeCircle', { m: i18n.number(fence.radius_m ?? 0, 0) });
  if (geometry.type === 'Polygon') return i18n.t('sizePolygon', { km2: i18n.number(polygonArea(geometry) / 1e6, 2) });
  return i18n.t('sizeCorridor', { m: i18n.number(fence.width_m ?? 0, 0), km: i18n.number(lineLength(geometry.coordinates) / 1000, 1) });
}

/** The service writes a fence's instants with -03:00; the translator reads them without it. */
export const serviceTime = (iso: string): string => iso.replace(/([+-]\d\d:\d\d|Z)$/, '');
