/**
 * D3's Accept rule for POST /token: absent, `*\/*`, `application/*` or `application/json` (with
 * parameters) is acceptable. A range with `q=0` is a refusal, and the most specific range that
 * matches JSON decides (RFC 9110 §12.5.1): `application/json;q=0, *\/*` refuses JSON.
 */
const SPECIFICITY: ReadonlyMap<string, number> = new Map([['application/json', 3], ['application/*', 2], ['*/*', 1]]);

export function acceptsJson(header: string | undefined): boolean {
  if (header === undefined || header.trim() === '') return true;
  let best = 0;
  let accepted = false;
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const specificity = SPECIFICITY.get(range) ?? 0;
    if (specificity === 0 || specificity < best) continue;
    const q = params.find((p) => p.startsWith('q='));
    const allows = q === undefined || Number(q.slice(2)) > 0;
    accepted = specificity === best ? accepted || allows : allows;
    best = specificity;
  }
  return accepted;
}
