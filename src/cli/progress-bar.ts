/**
 * Progress of long CLI work: a redrawn bar at the bottom of a terminal (lines printed meanwhile
 * go above it), a line every 10% otherwise (so logs and CI output stay readable).
 */
import { Terminal } from './terminal.js';

export interface Progress {
  update(done: number, total: number): void;
  finish(summary: string): void;
}

export function progressBar(label: string, terminal: Terminal = new Terminal()): Progress {
  let lastDraw = 0;
  let lastDecile = -1;
  const started = Date.now();
  const line = (done: number, total: number) => {
    const share = total === 0 ? 1 : Math.min(1, done / total);
    const width = 30;
    const filled = Math.round(share * width);
    const rate = done / Math.max(0.001, (Date.now() - started) / 1000);
    return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor(share * 100)}% ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} (${Math.round(rate).toLocaleString('en-US')}/s)`;
  };
  return {
    update(done, total) {
      if (terminal.interactive) {
        if (Date.now() - lastDraw < 100 && done < total) return;
        lastDraw = Date.now();
        terminal.showStatus(line(done, total));
        return;
      }
      const decile = total === 0 ? 10 : Math.floor((done / total) * 10);
      if (decile !== lastDecile) {
        lastDecile = decile;
        terminal.note(`${line(done, total)}\n`);
      }
    },
    finish(summary) {
      terminal.endStatus(`${label}: ${summary} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    },
  };
}
