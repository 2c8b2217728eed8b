/**
 * Which content coding a compressed response uses, from the request's Accept-Encoding (RFC 9110
 * §12.5.3). A coding the header names is acceptable at its own q, one it does not name at the q of
 * `*`, and `q=0` refuses it: `gzip;q=0, *` means br. The highest q wins; on a tie the smaller
 * output does (br, then gzip). Identity is the answer when the header is absent or empty, when no
 * coding is acceptable (even if identity was refused too: an uncompressed body beats none), and
 * when identity itself is named with a q above every coding's.
 */
export type ContentCoding = 'br' | 'gzip' | 'identity';

/** Best first. */
const CODINGS = ['br', 'gzip'] as const;
const QVALUE = /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/;

/** The entry's q, 1 when it has none; undefined when its q is malformed (the entry is ignored). */
function weightOf(params: readonly string[]): number | undefined {
  // `q = 0` (spaces around `=`) is not a weight RFC 9110 allows: ignored, not read as no weight.
  const q = params.find((p) => p.split('=')[0]!.trim() === 'q');
  if (q === undefined) return 1;
  return QVALUE.test(q) ? Number(q.slice(2)) : undefined;
}

export function negotiateContentCoding(header: string | undefined): ContentCoding {
  if (header === undefined) return 'identity';
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [token = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const weight = weightOf(params);
    if (token === '' || weight === undefined) continue;
    const coding = token === 'x-gzip' ? 'gzip' : token;
    // The first mention counts, as for any list a client repeats itself in.
    if (!weights.has(coding)) weights.set(coding, weight);
  }
  const any = weights.get('*') ?? 0;
  let chosen: ContentCoding = 'identity';
  let best = 0;
  for (const coding of CODINGS) {
    const weight = weights.get(coding) ?? any;
    if (weight > best) {
      chosen = coding;
      best = weight;
    }
  }
  return (weights.get('identity') ?? 0) > best ? 'identity' : chosen;
}
