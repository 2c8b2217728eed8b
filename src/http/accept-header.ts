/**
 * D3's Accept rule for POST /token: absent, `*\/*`, `application/*` or `application/json` (with
 * parameters) is acceptable; a range given `q=0` is an explicit refusal.
 */
export function acceptsJson(header: string | undefined): boolean {
  if (header === undefined || header.trim() === '') return true;
  return header.split(',').some((part) => {
    const [range = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) return false;
    return range === '*/*' || range === 'application/*' || range === 'application/json';
  });
}
