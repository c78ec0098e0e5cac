/**
 * The RFC 8785 inputs of the cross-language vectors, as JSON TEXT: each language parses the text
 * with its own JSON reader (numbers become IEEE 754 doubles, as RFC 8785 requires) and must print
 * the canonical form the SDK prints. The expected output is computed by the SDK's canonicalJson
 * when the vectors are written, never typed by hand (canonicalVectors, actionHashVectors below;
 * test/cross-language-drift.test.ts holds the committed files to them).
 */
import { canonicalJson } from '@presence/sdk';
import { computeActionHashSync } from '@presence/sdk/node';

export interface CanonicalInput {
  name: string;
  inputText: string;
}

const numbers: [string, string][] = [
  ['smallest subnormal', '5e-324'],
  ['negative smallest subnormal', '-5e-324'],
  ['largest double', '1.7976931348623157e308'],
  ['largest double, negative', '-1.7976931348623157e308'],
  ['1e21 switches to exponent form', '1e21'],
  ['1e20 stays an integer', '1e20'],
  ['999999999999999900000 (below 1e21)', '999999999999999900000'],
  ['1e-7 switches to exponent form', '1e-7'],
  ['1e-6 stays a decimal', '0.000001'],
  ['negative zero integer', '-0'],
  ['negative zero double', '-0.0'],
  ['zero with exponent', '0e10'],
  ['2^53', '9007199254740992'],
  ['2^53 + 1 rounds to even (down)', '9007199254740993'],
  ['2^53 + 3 rounds to even (up)', '9007199254740995'],
  ['2^54 + 1 rounds', '18014398509481985'],
  ['an integer of 21 digits', '123456789012345678901'],
  ['upper-case exponent', '1E30'],
  ['explicit plus exponent', '1e+2'],
  ['trailing zeros of a fraction', '4.50'],
  ['1.0 is 1', '1.0'],
  ['negative exponent fraction', '2e-3'],
  ['1e-27', '0.000000000000000000000000001'],
  ['shortest round trip (17 digits in)', '333333333.33333329'],
  ['0.1 + 0.2', '0.30000000000000004'],
  ['4.35', '4.35'],
  ['9.999999999999997e22', '9.999999999999997e22'],
  ['1e23', '1e23'],
  ['-1.5e300', '-1.5e300'],
  ['123e-20', '123e-20'],
  ['2.5e-8', '2.5e-8'],
  ['1424953923781206.2', '1424953923781206.2'],
  ['-0.0000033333333333333333', '-0.0000033333333333333333'],
  ['many numbers in an array', '[0, -1, 1.5, 100, 1e100, -1e-100, 65536, 4294967296]'],
];

function nested(depth: number): string {
  let text = '"bottom"';
  for (let i = depth; i > 0; i -= 1) text = i % 2 === 0 ? `{"level${i}":${text},"a":${i}}` : `[${i},${text}]`;
  return text;
}

const structures: [string, string][] = [
  ['literals', '[null, true, false]'],
  ['empty object and array', '{"b": [], "a": {}}'],
  ['whitespace everywhere', ' { "z" : [ 1 , 2 ] ,\n\t"y" :\r\n"x" } '],
  ['keys sorted, nested objects too', '{"b": {"d": 1, "c": 2}, "a": [{"z": 0, "y": 1}]}'],
  [
    'RFC 8785 §3.2.2 example',
    String.raw`{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}`,
  ],
  [
    'RFC 8785 §3.2.3 key order (UTF-16 code units)',
    String.raw`{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}`,
  ],
  [
    'keys whose UTF-16 and code-point orders differ',
    String.raw`{"\uffff": 1, "\ud800\udc00": 2, "\ue000": 3, "\ud83d\ude00": 4, "\uff61": 5, "\ud83c\udf89": 6}`,
  ],
  [
    'integer-like keys sort as strings',
    '{"10": "ten", "9": "nine", "1": "one", "01": "zero-one", "": "empty"}',
  ],
  ['keys differing in case', '{"a": 1, "B": 2, "A": 3, "b": 4}'],
  [
    'control characters escaped',
    String.raw`["\u0000\u0001\u0007\b\t\n\u000b\f\r\u000e\u001f", "\u007f stays", "tab\there"]`,
  ],
  ['quote, backslash and solidus', String.raw`["\"", "\\", "\/", "a/b", "\\\""]`],
  ['line and paragraph separators stay as they are', String.raw`["\u2028", "\u2029"]`],
  ['escaped ASCII letters come out plain', String.raw`["\u0041\u0062\u0063"]`],
  [
    'emoji, flags and joiner sequences',
    String.raw`{"emoji": "😀 \ud83d\ude80", "flag": "🇩🇪", "family": "👩‍👩‍👧", "skin": "👍🏽"}`,
  ],
  ['non-ASCII text', '{"memo": "Zahlung für Müller: 1 000 € — ÅÄÖ, 日本語, עברית, العربية"}'],
  ['composed and decomposed é are different strings', String.raw`{"e1": "\u00e9", "e2": "e\u0301"}`],
  ['deep nesting (64 levels)', nested(64)],
];

export const CANONICAL_INPUTS: CanonicalInput[] = [
  ...numbers.map(([name, inputText]) => ({ name: `number: ${name}`, inputText })),
  ...structures.map(([name, inputText]) => ({ name, inputText })),
];

/**
 * Inputs that have no canonical form: every implementation must refuse them. RFC 8785 takes
 * I-JSON (RFC 7493 §2.1): no lone surrogate, in a string or a member name (Go's encoding/json
 * would read one as U+FFFD, JavaScript and Python keep it, so the hashes would differ).
 */
export const CANONICAL_ERRORS: CanonicalInput[] = [
  { name: 'a number beyond the largest double (Infinity)', inputText: '[1e400]' },
  { name: 'a negative number beyond the largest double', inputText: '{"n": -1E309}' },
  { name: 'a lone high surrogate', inputText: String.raw`["\ud800"]` },
  { name: 'a lone low surrogate in a member name', inputText: String.raw`{"\udc00x": 1}` },
  { name: 'a high surrogate followed by a letter', inputText: String.raw`["\uD83D\u0041"]` },
  { name: 'a surrogate pair in the wrong order', inputText: String.raw`{"a": ["ok", "\ude00\ud83d"]}` },
  { name: 'a high surrogate at the end of a string', inputText: String.raw`["emoji \ud83d"]` },
];

/** Actions as executors build them: amounts and identifiers as strings. */
export const ACTIONS: { name: string; action: Record<string, unknown> }[] = [
  {
    name: 'payout (the specification example)',
    action: { type: 'payout', amount: '250.00', currency: 'EUR', iban: 'DE89370400440532013000' },
  },
  {
    name: 'deploy with nested fields',
    action: {
      type: 'deploy',
      service: 'billing-api',
      image: { repository: 'registry.example/billing', digest: `sha256:${'ab'.repeat(32)}` },
      regions: ['eu-west-1', 'us-east-1'],
      canary: false,
      replicas: 3,
    },
  },
  {
    name: 'role change with non-ASCII names',
    action: { type: 'role.change', member: 'Zoë Ångström', from: 'developer', to: 'owner', tenant: '日本' },
  },
  {
    name: 'an id above 2^53 carried as a string keeps every digit',
    action: { type: 'refund', orderId: '9007199254740993', amount: '0.10' },
  },
];

/** The content of canonicalization.json. */
export function canonicalVectors() {
  return {
    cases: CANONICAL_INPUTS.map(({ name, inputText }) => ({
      name,
      inputText,
      canonical: canonicalJson(JSON.parse(inputText)),
      sha256Hex: computeActionHashSync(JSON.parse(inputText)),
    })),
    errors: CANONICAL_ERRORS,
  };
}

/** The content of action-hashes.json. */
export function actionHashVectors() {
  return ACTIONS.map(({ name, action }) => ({
    name,
    action,
    canonical: canonicalJson(action),
    actionHashHex: computeActionHashSync(action),
  }));
}
