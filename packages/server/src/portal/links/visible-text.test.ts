import { describe, expect, it } from 'vitest';
import { flattenAction } from './flatten-action.js';
import { isConfusableWord, revealText } from './visible-text.js';

const shown = (text: string) =>
  revealText(text)
    .pieces.map((p) => ('mark' in p ? p.mark : p.text))
    .join('');

describe('revealText', () => {
  it('leaves ordinary text, spaces and other scripts alone', () => {
    for (const text of [
      'Pay 1 200,00 EUR to ACME',
      'Zürich – Ελλάδα – Москва',
      'مرحبا',
      '日本語',
      'e\u0301',
    ]) {
      expect(revealText(text)).toEqual({ pieces: [{ text }], hidden: 0, confusable: [] });
    }
  });

  it('marks every bidirectional control', () => {
    const controls = [
      0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c,
    ];
    for (const code of controls) {
      const hex = code.toString(16).toUpperCase().padStart(4, '0');
      expect(shown(`a${String.fromCodePoint(code)}b`)).toBe(`a⟨U+${hex}⟩b`);
    }
    const r = revealText('invoice\u202Efdp.exe');
    expect(r.hidden).toBe(1);
    expect(r.pieces[1]).toEqual({ mark: '⟨U+202E⟩', name: 'right-to-left override' });
  });

  it('marks invisible, control and odd space characters, not the plain space', () => {
    const odd = [
      '\u200B',
      '\u200C',
      '\u200D',
      '\u2060',
      '\uFEFF',
      '\u00AD',
      '\u00A0',
      '\u3000',
      '\u2028',
      '\n',
      '\t',
      '\u0000',
      '\u{E0041}',
      '\u3164',
      '\uFE0F',
      '\uE000',
    ];
    for (const char of odd) {
      const r = revealText(`x${char}y`);
      expect(r.hidden, JSON.stringify(char)).toBe(1);
      expect(shown(`x${char}y`)).toBe(
        `x⟨U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩y`,
      );
    }
    expect(revealText('a b').hidden).toBe(0);
  });

  it('flags words mixing Latin with Cyrillic or Greek, and look-alike words', () => {
    expect(isConfusableWord('pаypal')).toBe(true); // Cyrillic а
    expect(isConfusableWord('Αpple')).toBe(true); // Greek Α
    expect(isConfusableWord('рау')).toBe(true); // all Cyrillic look-alikes
    expect(isConfusableWord('Москва')).toBe(false);
    expect(isConfusableWord('paypal')).toBe(false);
    expect(isConfusableWord('Ελλάδα')).toBe(false);
    expect(revealText('send to pаypal and paypal').confusable).toEqual(['pаypal']);
  });
});

describe('flattenAction', () => {
  it('labels nested fields with dots and array items with indexes', () => {
    const rows = flattenAction({
      type: 'payout',
      amount: 1200,
      payee: { iban: 'DE89', name: 'ACME' },
      items: [{ sku: 'A-1' }, { sku: 'B-2', qty: 2 }],
      urgent: false,
      memo: null,
    });
    expect(rows.map((r) => [r.label, r.value, r.type])).toEqual([
      ['type', 'payout', 'string'],
      ['amount', '1200', 'number'],
      ['payee.iban', 'DE89', 'string'],
      ['payee.name', 'ACME', 'string'],
      ['items[0].sku', 'A-1', 'string'],
      ['items[1].sku', 'B-2', 'string'],
      ['items[1].qty', '2', 'number'],
      ['urgent', 'false', 'boolean'],
      ['memo', 'null', 'null'],
    ]);
  });

  it('quotes keys that are not plain names, so labels cannot collide', () => {
    const a = flattenAction({ 'payee.iban': 'X' });
    const b = flattenAction({ payee: { iban: 'X' } });
    expect(a[0]!.label).toBe('["payee.iban"]');
    expect(b[0]!.label).toBe('payee.iban');
    expect(flattenAction(JSON.parse('{"__proto__":{"x":1}}') as Record<string, unknown>)[0]!.label).toBe(
      '__proto__.x',
    );
  });

  it('shows empty objects and arrays, and keeps long values whole', () => {
    const long = 'x'.repeat(5000);
    expect(flattenAction({ a: {}, b: [], c: long })).toEqual([
      { label: 'a', value: '{}', type: 'empty object' },
      { label: 'b', value: '[]', type: 'empty array' },
      { label: 'c', value: long, type: 'string' },
    ]);
  });
});
