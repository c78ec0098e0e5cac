import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import { computeActionHash } from './compute-action-hash.js';
import { computeActionHashSync } from './compute-action-hash-sync.js';

/** RFC 8785 Appendix B: IEEE 754 bit patterns and the text JCS requires for each. */
const APPENDIX_B: [string, string][] = [
  ['0000000000000000', '0'],
  ['8000000000000000', '0'],
  ['0000000000000001', '5e-324'],
  ['8000000000000001', '-5e-324'],
  ['7fefffffffffffff', '1.7976931348623157e+308'],
  ['ffefffffffffffff', '-1.7976931348623157e+308'],
  ['4340000000000000', '9007199254740992'],
  ['c340000000000000', '-9007199254740992'],
  ['4430000000000000', '295147905179352830000'],
  ['44b52d02c7e14af5', '9.999999999999997e+22'],
  ['44b52d02c7e14af6', '1e+23'],
  ['44b52d02c7e14af7', '1.0000000000000001e+23'],
  ['444b1ae4d6e2ef4e', '999999999999999700000'],
  ['444b1ae4d6e2ef4f', '999999999999999900000'],
  ['444b1ae4d6e2ef50', '1e+21'],
  ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
  ['3eb0c6f7a0b5ed8d', '0.000001'],
  ['41b3de4355555553', '333333333.3333332'],
  ['41b3de4355555554', '333333333.33333325'],
  ['41b3de4355555555', '333333333.3333333'],
  ['41b3de4355555556', '333333333.3333334'],
  ['41b3de4355555557', '333333333.33333343'],
  ['becbf647612f3696', '-0.0000033333333333333333'],
  ['43143ff3c1cb0959', '1424953923781206.2'],
];

const fromBits = (hex: string) => Buffer.from(hex, 'hex').readDoubleBE(0);
const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('canonicalJson (RFC 8785)', () => {
  it('refuses a lone surrogate anywhere, not a pair, an escaped backslash or a control escape', () => {
    for (const bad of ['\ud800', ['x', '\udfff'], { ['\udc00k']: 1 }, { a: { b: 'ok\\\ud83d' } }])
      expect(() => canonicalJson(bad)).toThrow(/lone surrogate \\ud[89a-f]/);
    expect(canonicalJson(['\ud83d\ude00', '\\ud800', '\\\\ud800', '\u0001\ud83c\udf89'])).toBe(
      '["\ud83d\ude00","\\\\ud800","\\\\\\\\ud800","\\u0001\ud83c\udf89"]',
    );
  });

  it.each(APPENDIX_B)('serializes the double %s as %s (Appendix B)', (bits, expected) => {
    expect(canonicalJson(fromBits(bits))).toBe(expected);
    expect(canonicalJson({ n: fromBits(bits) })).toBe(`{"n":${expected}}`);
  });

  it('refuses NaN and the infinities (Appendix B: "error")', () => {
    for (const bits of ['7fffffffffffffff', '7ff0000000000000', 'fff0000000000000']) {
      expect(() => canonicalJson({ n: fromBits(bits) })).toThrow();
    }
  });

  it('matches the §3.2.2 example: whitespace, numbers, string escapes, literals', () => {
    const input = String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`;
    const expected = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`;
    expect(canonicalJson(JSON.parse(input))).toBe(expected);
  });

  it('sorts members by UTF-16 code units (§3.2.3 example)', () => {
    const input = String.raw`{
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis"
    }`;
    // Read the values in text order (a JS object would put the integer-like key "1" first).
    const text = canonicalJson(JSON.parse(input));
    expect([...text.matchAll(/:"([^"]+)"/g)].map((m) => m[1])).toEqual([
      'Carriage Return',
      'One',
      'Control',
      'Latin Small Letter O With Diaeresis',
      'Euro Sign',
      'Emoji: Grinning Face',
      'Hebrew Letter Dalet With Dagesh',
    ]);
    expect(canonicalJson(JSON.parse(input))).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis",' +
        '"€":"Euro Sign","😀":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });
});

describe('computeActionHash', () => {
  const payout = { type: 'payout', amount: '250.00', currency: 'EUR', iban: 'DE89370400440532013000' };

  it('is the lowercase hex SHA-256 of the canonical UTF-8 bytes, in WebCrypto and in Node', async () => {
    const expected = sha256Hex(
      '{"amount":"250.00","currency":"EUR","iban":"DE89370400440532013000","type":"payout"}',
    );
    expect(await computeActionHash(payout)).toBe(expected);
    expect(computeActionHashSync(payout)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not depend on member order or whitespace, and does depend on every value', async () => {
    const reordered = JSON.parse(
      '{ "iban": "DE89370400440532013000", "currency": "EUR", "amount": "250.00", "type": "payout" }',
    );
    expect(await computeActionHash(reordered)).toBe(await computeActionHash(payout));
    expect(await computeActionHash({ ...payout, amount: '250.01' })).not.toBe(
      await computeActionHash(payout),
    );
  });

  it('hashes non-ASCII text as UTF-8, like the Node version', async () => {
    const action = { memo: 'Zahlung für 😀 €', n: 1e21 };
    expect(await computeActionHash(action)).toBe(sha256Hex(canonicalJson(action)));
    expect(computeActionHashSync(action)).toBe(await computeActionHash(action));
  });

  it('refuses values without a canonical form', async () => {
    await expect(computeActionHash({ amount: Number.NaN })).rejects.toThrow();
    await expect(computeActionHash(undefined)).rejects.toThrow(TypeError);
  });
});
