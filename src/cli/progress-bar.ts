/**
 * Progress of long CLI work on stderr: a redrawn bar on a terminal, a line every 10% otherwise
 * (so logs and CI output stay readable).
 */
export interface Progress {
  update(done: number, total: number): void;
  finish(summary: string): void;
}

export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
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
      if (stream.isTTY) {
        if (Date.now() - lastDraw < 100 && done < total) return;
        lastDraw = Date.now();
        stream.write(`\r${line(done, total)}`);
        return;
      }
      const decile = total === 0 ? 10 : Math.floor((done / total) * 10);
      if (decile !== lastDecile) {
        lastDecile = decile;
        stream.write(`${line(done, total)}\n`);
      }
    },
    finish(summary) {
      stream.write(`${stream.isTTY ? '\r\x1b[K' : ''}${label}: ${summary} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    },
  };
}
