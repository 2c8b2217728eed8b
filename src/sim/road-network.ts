/**
 * The roads the simulated fleet drives on: São Paulo's main highways and avenues
 * (@telematics/map-data, the same lines the console draws), as a graph whose nodes are the
 * lines' vertices; two roads meet where they share one. Routes are the quickest by road class,
 * so a simulated trip reads like a route on the map instead of a straight zig-zag.
 */
import { createRequire } from 'node:module';
import { bearingDeg, distanceKm, type Point } from '../domain/geo.js';

export type RoadClass = 'highway' | 'arterial';

/** Typical cruise speeds, km/h: what a driver settles at between junctions. */
export const CRUISE_KMH: Readonly<Record<RoadClass, readonly [number, number]>> = { highway: [65, 88], arterial: [35, 55] };

interface RoadFeature {
  readonly properties: { readonly name: string; readonly class: RoadClass };
  readonly geometry: { readonly coordinates: readonly (readonly [number, number])[] };
}

export interface RoadEdge {
  readonly to: number;
  readonly km: number;
  readonly roadClass: RoadClass;
}

/** One leg of a route: straight from the previous point to `to`, on a road of `roadClass`. */
export interface RouteLeg {
  readonly to: Point;
  readonly km: number;
  readonly roadClass: RoadClass;
  /** How sharply the route turns at `to`, degrees (0 straight on, 180 back). */
  readonly turnDeg: number;
}

export class RoadNetwork {
  readonly nodes: readonly Point[];
  readonly #edges: RoadEdge[][];

  constructor(features: readonly RoadFeature[]) {
    const nodes: Point[] = [];
    const index = new Map<string, number>();
    const edges: RoadEdge[][] = [];
    const nodeOf = ([lon, lat]: readonly [number, number]) => {
      const key = `${lon.toFixed(5)},${lat.toFixed(5)}`;
      let i = index.get(key);
      if (i === undefined) {
        i = nodes.push({ lat, lon }) - 1;
        index.set(key, i);
        edges.push([]);
      }
      return i;
    };
    for (const { properties, geometry } of features) {
      const ids = geometry.coordinates.map(nodeOf);
      for (let k = 1; k < ids.length; k += 1) {
        const [a, b] = [ids[k - 1]!, ids[k]!];
        const km = distanceKm(nodes[a]!, nodes[b]!);
        edges[a]!.push({ to: b, km, roadClass: properties.class });
        edges[b]!.push({ to: a, km, roadClass: properties.class });
      }
    }
    this.nodes = nodes;
    this.#edges = edges;
  }

  nearest(point: Point): number {
    let best = 0;
    let bestKm = Infinity;
    this.nodes.forEach((node, i) => {
      const km = distanceKm(point, node);
      if (km < bestKm) [best, bestKm] = [i, km];
    });
    return best;
  }

  /** Nodes between `minKm` and `maxKm` as the crow flies from `point`, in a stable order. */
  nodesWithin(point: Point, minKm: number, maxKm: number): number[] {
    return this.nodes.flatMap((node, i) => {
      const km = distanceKm(point, node);
      return km >= minKm && km <= maxKm ? [i] : [];
    });
  }

  /** The quickest way from `from` (anywhere: it first drives to the nearest node) to node `to`. */
  route(from: Point, to: number): RouteLeg[] {
    const start = this.nearest(from);
    const path = this.#quickest(start, to);
    const legs: { to: Point; km: number; roadClass: RoadClass }[] = [];
    const entry = this.nodes[start]!;
    if (distanceKm(from, entry) > 0) legs.push({ to: entry, km: distanceKm(from, entry), roadClass: 'arterial' });
    for (let k = 1; k < path.length; k += 1) {
      const edge = this.#edges[path[k - 1]!]!.find((e) => e.to === path[k])!;
      legs.push({ to: this.nodes[edge.to]!, km: edge.km, roadClass: edge.roadClass });
    }
    let previous = from;
    return legs.map((leg, k) => {
      const next = legs[k + 1];
      const turnDeg = next ? Math.abs(((bearingDeg(leg.to, next.to) - bearingDeg(previous, leg.to) + 540) % 360) - 180) : 0;
      previous = leg.to;
      return { ...leg, turnDeg };
    });
  }

  /** Dijkstra on travel time; the graph has a few hundred nodes, so a linear scan for the minimum is enough. */
  #quickest(from: number, to: number): number[] {
    const hours = new Array<number>(this.nodes.length).fill(Infinity);
    const via = new Array<number>(this.nodes.length).fill(-1);
    const done = new Array<boolean>(this.nodes.length).fill(false);
    hours[from] = 0;
    for (;;) {
      let u = -1;
      for (let i = 0; i < hours.length; i += 1) if (!done[i] && hours[i]! < Infinity && (u < 0 || hours[i]! < hours[u]!)) u = i;
      if (u < 0 || u === to) break;
      done[u] = true;
      for (const e of this.#edges[u]!) {
        const t = hours[u]! + e.km / CRUISE_KMH[e.roadClass][1];
        if (t < hours[e.to]!) [hours[e.to], via[e.to]] = [t, u];
      }
    }
    if (hours[to] === Infinity) return [from];
    const path = [to];
    while (path[0] !== from) path.unshift(via[path[0]!]!);
    return path;
  }
}

let shared: RoadNetwork | undefined;

/** São Paulo's main roads, read once. */
export function saoPauloRoads(): RoadNetwork {
  shared ??= new RoadNetwork((createRequire(import.meta.url)('@telematics/map-data/sao-paulo-main-roads.json') as { features: RoadFeature[] }).features);
  return shared;
}
