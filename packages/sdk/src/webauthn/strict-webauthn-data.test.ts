import { encodeCBOR } from '@levischuck/tiny-cbor';
import { describe, expect, it } from 'vitest';
import { parseAssertionAuthenticatorData } from './authenticator-data.js';
import { parseClientDataJSON } from './client-data.js';

const CHROME =
  '{"type":"webauthn.get","challenge":"Y2hhbA","origin":"https://app.example","crossOrigin":false,"other_keys_can_be_added_here":"do not compare clientDataJSON against a template. See https://goo.gl/yabPex"}';
const bytes = (text: string) => new TextEncoder().encode(text);
const header = (flags: number, ...rest: number[]) =>
  new Uint8Array([...new Array<number>(32).fill(7), flags, 0, 0, 0, 5, ...rest]);

describe('parseClientDataJSON (strict)', () => {
  it('reads what browsers produce, extra members included', () => {
    expect(parseClientDataJSON(bytes(CHROME))).toEqual({
      type: 'webauthn.get',
      challenge: 'Y2hhbA',
      origin: 'https://app.example',
      crossOrigin: false,
      topOrigin: null,
    });
  });

  it('refuses a UTF-8 byte order mark before the JSON', () => {
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...bytes(CHROME)]);
    expect(parseClientDataJSON(withBom)).toBe('clientDataJSON starts with a UTF-8 byte order mark');
  });

  it('refuses a member twice, however it is spelled and however deep', () => {
    const cases = [
      '{"type":"webauthn.get","challenge":"Y2hhbA","origin":"https://app.example","challenge":"b3RoZXI"}',
      '{"type":"webauthn.get","challenge":"Y2hhbA","origin":"https://evil.example","\\u006frigin":"https://app.example"}',
      '{"type":"webauthn.get","challenge":"Y2hhbA","origin":"https://app.example","x":[{"a":1,"a":2}]}',
    ];
    expect(cases.map((c) => parseClientDataJSON(bytes(c)))).toEqual([
      'clientDataJSON has the member "challenge" more than once',
      'clientDataJSON has the member "origin" more than once',
      'clientDataJSON has the member "a" more than once',
    ]);
  });

  it('refuses invalid UTF-8, non-JSON and non-objects; checks member types', () => {
    expect(parseClientDataJSON(new Uint8Array([0x7b, 0xff, 0x7d]))).toBe('clientDataJSON is not UTF-8 JSON');
    expect(parseClientDataJSON(bytes('{"type":"webauthn.get",}'))).toBe('clientDataJSON is not UTF-8 JSON');
    expect(parseClientDataJSON(bytes('[1]'))).toBe('clientDataJSON is not a JSON object');
    expect(parseClientDataJSON(bytes('{"type":1,"challenge":"a","origin":"b"}'))).toMatch(/lacks a string/);
    expect(
      parseClientDataJSON(bytes('{"type":"t","challenge":"a","origin":"b","crossOrigin":"no"}')),
    ).toMatch(/crossOrigin is not a boolean/);
  });
});

describe('parseAssertionAuthenticatorData (strict)', () => {
  it('reads rpIdHash, flags and signCount; accepts ED with one CBOR map', () => {
    const plain = parseAssertionAuthenticatorData(header(0x05));
    expect(plain).toMatchObject({ signCount: 5, flags: { UP: true, UV: true, ED: false } });
    const map = encodeCBOR(new Map([['example.ext', true]]));
    expect(parseAssertionAuthenticatorData(header(0x85, ...map))).toMatchObject({ flags: { ED: true } });
  });

  it('reads through a view into a larger buffer', () => {
    const big = new Uint8Array(100);
    big.set(header(0x05), 50);
    expect(parseAssertionAuthenticatorData(big.subarray(50, 87))).toMatchObject({ signCount: 5 });
  });

  it('refuses ED followed by bytes that are not one CBOR map', () => {
    const map = [...encodeCBOR(new Map([['k', 1]]))];
    expect(parseAssertionAuthenticatorData(header(0x85, 0xff))).toMatch(/not well-formed CBOR/);
    expect(parseAssertionAuthenticatorData(header(0x85, 0xa1, 0x61))).toMatch(/not well-formed CBOR/);
    expect(parseAssertionAuthenticatorData(header(0x85, ...map, 0x00))).toMatch(/not well-formed CBOR/);
    expect(parseAssertionAuthenticatorData(header(0x85, 0x01))).toBe(
      'the extension data after the ED flag is not a CBOR map',
    );
  });

  it('refuses AT, ED without data, data without ED, and short data', () => {
    expect(parseAssertionAuthenticatorData(header(0x45))).toMatch(/AT flag/);
    expect(parseAssertionAuthenticatorData(header(0x85))).toMatch(/no extension data follows/);
    expect(parseAssertionAuthenticatorData(header(0x05, 0xa0))).toMatch(
      /1 bytes follow signCount without the ED flag/,
    );
    expect(parseAssertionAuthenticatorData(new Uint8Array(36))).toMatch(/needs at least 37/);
  });
});
