import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DATAPOINTS } from '../../src/domain/datapoints.js';

const doc = readFileSync(new URL('../../docs/vehicle-data.md', import.meta.url), 'utf8');

describe('docs/vehicle-data.md', () => {
  it.each(DATAPOINTS.map((d) => [d.name, d] as const))('documents %s with its unit and range', (_name, d) => {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${d.name}\` |`));
    expect(row).toBeDefined();
    if (d.unit) expect(row).toContain(`| ${d.unit} |`);
    if (d.min !== undefined) expect(row).toContain(`| ${d.min} to ${d.max} |`);
  });
});
