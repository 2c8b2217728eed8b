/**
 * The OpenAPI document's prose is rendered as Markdown by /docs, where anything shaped like an
 * HTML tag outside a code span (`<text>`, `<token>`) is swallowed with the rest of the sentence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/test-service.js';

function prose(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) prose(item, found);
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if ((key === 'description' || key === 'summary') && typeof value === 'string') found.push(value);
      else prose(value, found);
    }
  }
  return found;
}

describe('the OpenAPI document as /docs shows it', () => {
  let svc: TestService;
  beforeAll(async () => { svc = await startTestService('sqlite'); });
  afterAll(async () => { await svc?.close(); });

  it('when its prose is rendered as Markdown, then nothing in it reads as an HTML tag outside a code span', async () => {
    const doc = (await svc.request('GET', '/openapi.json')).body;
    const texts = prose(doc);
    expect(texts.length).toBeGreaterThan(50);
    const tagLike = texts.filter((t) => /<[a-z/!][^>]*>/i.test(t.replace(/`[^`]*`/g, '')));
    expect(tagLike).toEqual([]);
    expect(doc.info.description).toContain('Every error body is `{"detail": "…"}`, with the exact text of the error');
  });
});
