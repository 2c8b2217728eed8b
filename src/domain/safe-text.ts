/**
 * Text an operator gives (names, plates, models, URLs) ends up on other people's terminals (`admin
 * … list`, error messages) and in API answers. Characters a terminal or a text renderer obeys
 * instead of showing are refused in it, and escaped wherever such text is printed:
 * - control characters, C0, DEL and C1 (ESC and CSI start terminal escape sequences);
 * - bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which make
 *   text read differently from what it holds;
 * - line and paragraph separators (U+2028, U+2029), which break a one-line label;
 * - invisible characters with no use in a label (zero-width space U+200B, word joiner and invisible
 *   operators U+2060–U+2064, deprecated format characters U+206A–U+206F, byte order mark U+FEFF,
 *   soft hyphen U+00AD, Mongolian vowel separator U+180E, Hangul fillers U+115F, U+1160, U+3164,
 *   U+FFA0, interlinear annotation U+FFF9–U+FFFB, tag characters U+E0000–U+E007F), which make two
 *   different names look alike or smuggle hidden text.
 * Zero-width non-joiner and joiner (U+200C, U+200D) are allowed: Persian, Indic scripts and emoji
 * need them.
 */
/** Every refused character but the C0 controls, as a regular-expression class body. */
const REFUSED_BEYOND_C0 = '\\u007f-\\u009f\\u061c\\u200b\\u200e\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff'
  + '\\u00ad\\u115f\\u1160\\u180e\\u3164\\uffa0\\ufff9-\\ufffb\\u{e0000}-\\u{e007f}\\u206a-\\u206f';
const UNSAFE = new RegExp(`[\\u0000-\\u001f${REFUSED_BEYOND_C0}]`, 'u');
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'gu');
/** The same, but a newline: multi-line output keeps its lines. */
const UNSAFE_BUT_NEWLINE = new RegExp(`[\\u0000-\\u0009\\u000b-\\u001f${REFUSED_BEYOND_C0}]`, 'gu');

export const UNSAFE_TEXT_RULE = 'must not contain control or invisible formatting characters';

const hex4 = (char: string) => char.codePointAt(0)!.toString(16).padStart(4, '0');

/** Why `text` may not be stored, naming its first refused character (it may be invisible), or undefined. */
export function unsafeTextProblem(text: string): string | undefined {
  const found = UNSAFE.exec(text);
  return found ? `${UNSAFE_TEXT_RULE} (U+${hex4(found[0]).toUpperCase()})` : undefined;
}

/**
 * Writes each refused character as `\uXXXX` (as JSON does), so echoed text cannot act on a
 * terminal; anything else, backslashes included, is left as it is, so ordinary text prints
 * unchanged. `keepNewlines` is for multi-line output (and JSON text, whose strings never hold a
 * raw newline, so what it escapes stays valid JSON with the same values).
 */
export function escapeUnsafeText(text: string, { keepNewlines = false }: { keepNewlines?: boolean } = {}): string {
  // Per UTF-16 unit, as JSON escapes: a tag character (beyond U+FFFF) becomes its surrogate pair.
  return text.replace(keepNewlines ? UNSAFE_BUT_NEWLINE : UNSAFE_ALL, (char) => [...Array(char.length).keys()].map((i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''));
}
