/**
 * The handles of a fence being drawn: draggable MapLibre markers (DOM elements, so a mouse, a
 * test or a touch can move them) at a polygon's corners or a corridor's points, or at a circle's
 * centre with a second handle on its edge that sets the radius.
 */
import { Marker, type Map as MapLibreMap } from 'maplibre-gl';
import { destination, distance, type Position } from './fence-shapes.js';

export interface DraftHandles {
  readonly kind: 'circle' | 'polygon' | 'corridor';
  readonly points: readonly Position[];
  readonly radiusM: number;
  /** An open polygon: a click on its first corner finishes it. */
  readonly open: boolean;
}

export interface DraftHandleEvents {
  move(index: number, to: Position): void;
  radius(metres: number): void;
  finish(): void;
  title(kind: 'vertex' | 'first' | 'centre' | 'radius', n: number): string;
}

const EAST = Math.PI / 2;

export class DraftMarkers {
  readonly #map: MapLibreMap;
  readonly #on: DraftHandleEvents;
  #points: Marker[] = [];
  #radius: Marker | undefined;
  #centre: Position | undefined;
  #open = false;

  constructor(map: MapLibreMap, on: DraftHandleEvents) {
    this.#map = map;
    this.#on = on;
  }

  set(handles: DraftHandles | undefined): void {
    const points = handles?.points ?? [];
    while (this.#points.length > points.length) this.#points.pop()!.remove();
    while (this.#points.length < points.length) this.#points.push(this.#pointMarker(this.#points.length));
    points.forEach((p, i) => {
      const marker = this.#points[i]!;
      marker.setLngLat([p[0], p[1]]);
      const element = marker.getElement();
      element.title = handles!.kind === 'circle' ? this.#on.title('centre', 1) : i === 0 && handles!.open ? this.#on.title('first', 1) : this.#on.title('vertex', i + 1);
      element.dataset.vertex = String(i);
      element.classList.toggle('centre', handles!.kind === 'circle');
    });
    this.#centre = handles?.kind === 'circle' ? points[0] : undefined;
    if (this.#centre && handles) {
      const edge = destination(this.#centre, handles.radiusM, EAST);
      this.#radius ??= this.#radiusMarker();
      this.#radius.setLngLat(edge);
    } else {
      this.#radius?.remove();
      this.#radius = undefined;
    }
    this.#open = handles?.open ?? false;
  }

  #pointMarker(index: number): Marker {
    const element = handleElement('fence-handle');
    const marker = new Marker({ element, draggable: true, anchor: 'center' }).setLngLat([0, 0]).addTo(this.#map);
    let dragged = false;
    marker.on('dragstart', () => { dragged = true; });
    marker.on('drag', () => { const { lng, lat } = marker.getLngLat(); this.#on.move(index, [lng, lat]); });
    marker.on('dragend', () => { const { lng, lat } = marker.getLngLat(); this.#on.move(index, [lng, lat]); });
    element.addEventListener('mousedown', () => { dragged = false; });
    element.addEventListener('click', (event) => {
      event.stopPropagation();
      if (!dragged && index === 0 && this.#open) this.#on.finish();
    });
    return marker;
  }

  #radiusMarker(): Marker {
    const element = handleElement('fence-handle radius');
    element.title = this.#on.title('radius', 1);
    element.dataset.radiusHandle = 'true';
    const marker = new Marker({ element, draggable: true, anchor: 'center' }).setLngLat([0, 0]).addTo(this.#map);
    const report = () => {
      if (!this.#centre) return;
      const { lng, lat } = marker.getLngLat();
      this.#on.radius(Math.round(distance(this.#centre, [lng, lat])));
    };
    marker.on('drag', report);
    marker.on('dragend', report);
    element.addEventListener('click', (event) => event.stopPropagation());
    return marker;
  }

  remove(): void {
    for (const marker of this.#points) marker.remove();
    this.#points = [];
    this.#radius?.remove();
    this.#radius = undefined;
  }
}

function handleElement(className: string): HTMLElement {
  const element = document.createElement('span');
  element.className = className;
  return element;
}
