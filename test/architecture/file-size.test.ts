/**
 * No hand-written source file over 300 lines (STYLE.md: split past 300), except the few whose one
 * job is long by nature, each with its reason here. Generated files (the SDK's types and
 * catalogue) are not hand-written and not counted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const LIMIT = 300;

/** Longer than the limit on purpose: one concept each, which splitting would scatter. */
const JUSTIFIED: Readonly<Record<string, string>> = {
  'src/store/schema.ts': "Kysely's Database interface: one interface per table, as Kysely intends",
  'src/domain/fleet-file.ts': 'one validator of the fleet file that reports every problem with its path',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return ['node_modules', 'dist', 'generated'].includes(entry.name) ? [] : sourceFiles(rel);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [rel] : [];
  });
}

const lineCount = (file: string) => readFileSync(join(root, file), 'utf8').split('\n').length - 1;

describe('file sizes', () => {
  const files = ['src', ...readdirSync(join(root, 'packages')).map((p) => `packages/${p}/src`)].flatMap(sourceFiles);
  const long = files.filter((file) => lineCount(file) > LIMIT);

  it(`when src/ and packages/*/src are read, then no hand-written file has more than ${LIMIT} lines but those justified`, () => {
    expect(files.length).toBeGreaterThan(200);
    expect(long.filter((file) => !(file in JUSTIFIED)).map((file) => `${file}: ${lineCount(file)} lines`)).toEqual([]);
  });

  it('when a justified file is back under the limit or gone, then it is taken off the list', () => {
    expect(Object.keys(JUSTIFIED).filter((file) => !long.includes(file))).toEqual([]);
  });
});
