import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newId } from './ids.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The layout spelled out with BigInt: 48-bit time, then the 80 random bits, big-endian. */
function reference(now: number, bytes: Uint8Array): string {
  let value = (BigInt(now) << 80n) | BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
  let text = '';
  for (let i = 0; i < 26; i++) {
    text = CROCKFORD[Number(value & 31n)]! + text;
    value >>= 5n;
  }
  return text;
}

describe('newId', () => {
  it('is the ULID layout of the clock and the random bytes, for any bytes', () => {
    const edges = [Buffer.alloc(10, 0), Buffer.alloc(10, 0xff), Buffer.from('80808080808080808080', 'hex')];
    const samples = [...edges, ...Array.from({ length: 2000 }, () => randomBytes(10))];
    for (const bytes of samples) {
      const now = Math.floor(Math.random() * 2 ** 48);
      const id = newId({ clock: { now: () => now }, random: { bytes: () => bytes } }, 'chl');
      expect(id).toBe(`chl_${reference(now, bytes)}`);
    }
  });

  it('sorts by time first', () => {
    const bytes = () => randomBytes(10);
    const a = newId({ clock: { now: () => 1_700_000_000_000 }, random: { bytes } }, 'rct');
    const b = newId({ clock: { now: () => 1_700_000_000_001 }, random: { bytes } }, 'rct');
    expect(a < b).toBe(true);
  });
});
