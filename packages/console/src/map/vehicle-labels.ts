/**
 * Plate labels beside the fleet map's vehicle dots, as HTML markers (no glyphs needed). Each label
 * takes the first side of its dot — right, left, above, below — that is inside the map and free of
 * other labels, so vehicles parked close together or at the edge stay readable; placement is redone when the view or the data changes, not per frame.
 */
import { Marker, type Map as MapLibreMap } from 'maplibre-gl';

export interface VehicleLabel {
  readonly vin: string;
  readonly plate: string;
  readonly title: string;
  readonly lngLat: [number, number];
}

const DOT = 10;
/** Where a label's centre goes from its dot, for a label of w × h pixels: right, left, above, below. */
const SIDES = (w: number, h: number): [number, number][] => [[DOT + w / 2, 0], [-DOT - w / 2, 0], [0, -DOT - h / 2], [0, DOT + h / 2]];

export class VehicleLabels {
  readonly #map: MapLibreMap;
  readonly #open: (vin: string) => void;
  #markers = new Map<string, { marker: Marker; element: HTMLButtonElement; label: VehicleLabel }>();

  constructor(map: MapLibreMap, open: (vin: string) => void) {
    this.#map = map;
    this.#open = open;
    map.on('moveend', () => this.#place());
  }

  set(labels: readonly VehicleLabel[]): void {
    const wanted = new Set(labels.map((l) => l.vin));
    for (const [vin, entry] of this.#markers) {
      if (!wanted.has(vin)) {
        entry.marker.remove();
        this.#markers.delete(vin);
      }
    }
    for (const label of labels) {
      const existing = this.#markers.get(label.vin);
      if (existing) {
        existing.marker.setLngLat(label.lngLat);
        existing.element.title = label.title;
        existing.label = label;
        continue;
      }
      const element = document.createElement('button');
      element.type = 'button';
      element.className = 'vehicle-label';
      element.textContent = label.plate;
      element.title = label.title;
      element.dataset.vin = label.vin;
      element.addEventListener('click', (event) => {
        event.stopPropagation();
        this.#open(label.vin);
      });
      const marker = new Marker({ element, anchor: 'center' }).setLngLat(label.lngLat).addTo(this.#map);
      this.#markers.set(label.vin, { marker, element, label });
    }
    this.#place();
  }

  #place(): void {
    const taken: { x: number; y: number; w: number; h: number }[] = [];
    const { clientWidth: width, clientHeight: height } = this.#map.getContainer();
    const free = (r: { x: number; y: number; w: number; h: number }) =>
      r.x >= 0 && r.y >= 0 && r.x + r.w <= width && r.y + r.h <= height && taken.every((t) => r.x + r.w <= t.x || t.x + t.w <= r.x || r.y + r.h <= t.y || t.y + t.h <= r.y);
    // Top to bottom, so the same view always gives the same placement.
    const entries = [...this.#markers.values()].sort((a, b) => b.label.lngLat[1] - a.label.lngLat[1] || a.label.vin.localeCompare(b.label.vin));
    for (const { marker, element, label } of entries) {
      const at = this.#map.project(label.lngLat);
      const [w, h] = [element.offsetWidth || 60, element.offsetHeight || 18];
      const box = ([dx, dy]: [number, number]) => ({ x: at.x + dx - w / 2, y: at.y + dy - h / 2, w, h });
      const sides = SIDES(w, h);
      const side = sides.find((s) => free(box(s))) ?? sides[0]!;
      taken.push(box(side));
      marker.setOffset(side);
      element.dataset.side = String(sides.indexOf(side));
    }
  }

  remove(): void {
    for (const { marker } of this.#markers.values()) marker.remove();
    this.#markers.clear();
  }
}
