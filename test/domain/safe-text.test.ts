import { describe, expect, it } from 'vitest';
import { escapeUnsafeText, unsafeTextProblem } from '../../src/domain/safe-text.js';

const RULE = 'must not contain control or invisible formatting characters';

describe('operator text: what names may hold and how echoes are printed', () => {
  it.each([
    ['ESC (C0)', 'evil\u001b]0;pwned\u0007', 'U+001B'],
    ['DEL', 'a\u007fb', 'U+007F'],
    ['CSI (C1)', 'ACME\u009b2J', 'U+009B'],
    ['NEL (C1)', 'a\u0085b', 'U+0085'],
    ['right-to-left override', 'ACME\u202egnp.exe', 'U+202E'],
    ['right-to-left isolate', 'a\u2067b', 'U+2067'],
    ['Arabic letter mark', 'a\u061cb', 'U+061C'],
    ['left-to-right mark', 'a\u200eb', 'U+200E'],
    ['line separator', 'a\u2028b', 'U+2028'],
    ['paragraph separator', 'a\u2029b', 'U+2029'],
    ['zero-width space', 'AC\u200bME', 'U+200B'],
    ['word joiner', 'a\u2060b', 'U+2060'],
    ['byte order mark', '\ufeffACME', 'U+FEFF'],
  ])('refuses a name with %s, naming the character', (_label, name, codePoint) => {
    expect(unsafeTextProblem(name)).toBe(`${RULE} (${codePoint})`);
  });

  it.each([
    ['plain ASCII', 'ACME Logistics'],
    ['accents and dashes', 'Transportes São João — Filial 2'],
    ['Arabic', 'شركة النقل'],
    ['Persian with a zero-width non-joiner', 'می\u200cروم'],
    ['an emoji sequence with zero-width joiners', 'Fleet \u{1f468}\u200d\u{1f469}\u200d\u{1f467}'],
    ['a narrow no-break space', '10\u202fkm'],
  ])('accepts %s', (_label, name) => {
    expect(unsafeTextProblem(name)).toBeUndefined();
  });

  it('escapes every refused character as \\uXXXX and leaves ordinary text as it is', () => {
    expect(escapeUnsafeText('evil\u001b]0;pwned\u0007')).toBe('evil\\u001b]0;pwned\\u0007');
    expect(escapeUnsafeText('ACME\u009b2J\u202e\u200b\ufeff')).toBe('ACME\\u009b2J\\u202e\\u200b\\ufeff');
    expect(escapeUnsafeText('line\nnext')).toBe('line\\u000anext');
    expect(escapeUnsafeText('line\n\u001b', { keepNewlines: true })).toBe('line\n\\u001b');
    for (const ordinary of ['ACME Logistics', 'Transportes São João — Filial 2', 'می\u200cروم', 'C:\\fleet "x"']) {
      expect(escapeUnsafeText(ordinary)).toBe(ordinary);
    }
  });

  it('keeps JSON valid and lossless when applied to JSON text', () => {
    const value = { name: 'ACME\u009b\u202e\u2028\u007f', plain: 'São\n"q"\\' };
    const text = escapeUnsafeText(JSON.stringify(value, null, 2), { keepNewlines: true });
    expect(text).not.toMatch(/[\u007f-\u009f\u202e\u2028]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('invisible characters past the first list', () => {
  it.each(['\u00ad', '\u180e', '\u206a', '\u206f', '\ufff9', '\u3164', '\u{e0001}', '\u{e007f}'])('refuses U+%s and escapes it as JSON would', (char) => {
    expect(unsafeTextProblem(`A${char}B`)).toMatch(/U\+[0-9A-F]{4,5}\)$/);
    const escaped = escapeUnsafeText(`A${char}B`);
    expect(escaped).not.toContain(char);
    expect(JSON.parse(`"${escaped}"`)).toBe(`A${char}B`);
  });
});
