/**
 * Code comments give their reason in place or cite a decision record (docs/decisions/) or the
 * benchmark history (bench/history/): never bench/RESULTS.md, which holds only current figures
 * and changes with every run, and never an issue number, which a reader of the code cannot open.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CITATION = /RESULTS\.md|\bissue \d+|\bissue-\d+/i;
/** A comment line, or the comment at the end of a line of code. */
const commentOf = (line: string): string | undefined => {
  const trimmed = line.trim();
  if (/^(\/\/|\/\*|\*|#)/.test(trimmed)) return trimmed;
  const at = line.indexOf(' // ');
  return at < 0 ? undefined : line.slice(at);
};

function files(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return ['node_modules', 'dist', 'generated', 'history'].includes(entry.name) ? [] : files(rel);
    return /\.(tsx?|mjs|js)$/.test(entry.name) ? [rel] : [];
  });
}

describe('comment citations', () => {
  it('when the code is read, then no comment cites bench/RESULTS.md or an issue number', () => {
    const dirs = ['src', 'bench', 'bin', 'scripts', ...readdirSync(join(root, 'packages')).map((p) => `packages/${p}/src`)];
    const found = dirs.flatMap(files).flatMap((file) =>
      readFileSync(join(root, file), 'utf8').split('\n').flatMap((line, i) => (CITATION.test(commentOf(line) ?? '') ? [`${file}:${i + 1}: ${line.trim()}`] : [])));
    expect(found).toEqual([]);
  });
});
