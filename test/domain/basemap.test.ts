import { describe, expect, it } from 'vitest';
import { basemapOrigin, parseBasemap, publicBasemap } from '../../src/domain/basemap.js';

describe('--console-basemap', () => {
  it.each([
    ['https://tiles.example.org/{z}/{x}/{y}.png|© OSM', { kind: 'raster', tiles: 'https://tiles.example.org/{z}/{x}/{y}.png', attribution: '© OSM' }],
    ['http://10.0.0.5:8080/{z}/{y}/{x}', { kind: 'raster', tiles: 'http://10.0.0.5:8080/{z}/{y}/{x}', attribution: '' }],
    ['maps/brazil.pmtiles|© OpenStreetMap', { kind: 'pmtiles', file: 'maps/brazil.pmtiles', attribution: '© OpenStreetMap' }],
    ['/srv/tiles/World.PMTiles', { kind: 'pmtiles', file: '/srv/tiles/World.PMTiles', attribution: '' }],
    ['https://maps.example.org/styles/basic/style.json', { kind: 'style', url: 'https://maps.example.org/styles/basic/style.json', attribution: '' }],
  ])('when it is %s, then it is read as the right kind', (text, expected) => {
    expect(parseBasemap(text)).toEqual(expected);
  });

  it.each(['ftp://tiles.example.org/{z}/{x}/{y}.png', 'https://tiles.example.org/{z}/{x}.png', 'tiles/{z}/{x}/{y}.png', 'brazil.mbtiles', 'file:///x.pmtiles', 'javascript:alert(1)', ''])(
    'when it is %j, then it is refused', (text) => {
      expect(parseBasemap(text)).toBeUndefined();
    },
  );

  it('when the console is told of a .pmtiles basemap, then it gets the service\'s URL of it, never the path; the CSP origin is the basemap\'s own', () => {
    expect(publicBasemap({ kind: 'pmtiles', file: '/srv/secret/dir/brazil.pmtiles', attribution: 'a' })).toEqual({ kind: 'pmtiles', url: '/console/basemap/brazil.pmtiles', attribution: 'a' });
    expect(basemapOrigin({ kind: 'pmtiles', file: '/x.pmtiles', attribution: '' })).toBeUndefined();
    expect(basemapOrigin({ kind: 'raster', tiles: 'https://t.example:8443/{z}/{x}/{y}.png', attribution: '' })).toBe('https://t.example:8443');
    expect(basemapOrigin({ kind: 'style', url: 'https://s.example/style.json', attribution: '' })).toBe('https://s.example');
  });
});
