import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { mapPlaces } from './build/places-plugin.js';

// Served by the service at /console/ (src/http/console/console-plugin.ts): hashed file names are cached
// for a year, index.html never.
export default defineConfig({
  base: '/console/',
  plugins: [preact(), mapPlaces()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The map chunk (MapLibre) is large by nature and loaded only when a map is shown.
    chunkSizeWarningLimit: 1500,
    assetsInlineLimit: 0,
    // Three pages: the console, the map a share link opens (share.html, served at /share/<token>)
    // and the operator console (operator.html, served at /operator/).
    rollupOptions: { input: { index: 'index.html', share: 'share.html', operator: 'operator.html' } },
  },
});
