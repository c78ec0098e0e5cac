import { describe, expect, it } from 'vitest';
import { pooledRandom } from './crypto-random.js';

describe('pooled CSPRNG bytes', () => {
  it('hands out each byte once: no two draws overlap, across pool refills', () => {
    const random = pooledRandom();
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const draw = random.bytes(10).toString('hex');
      expect(draw).toHaveLength(20);
      expect(seen.has(draw)).toBe(false);
      seen.add(draw);
    }
  });

  it('returns copies: a caller that keeps or scribbles on its bytes affects no later draw', () => {
    const random = pooledRandom();
    const kept = random.bytes(32);
    const before = Buffer.from(kept);
    for (let i = 0; i < 1000; i++) random.bytes(16).fill(0xaa);
    expect(kept.equals(before)).toBe(true);
    const zeros = Array.from({ length: 200 }, () => random.bytes(16)).filter((b) =>
      b.every((x) => x === 0xaa),
    );
    expect(zeros).toHaveLength(0);
  });

  it('serves lengths above the pooled size directly, and zero bytes', () => {
    const random = pooledRandom();
    expect(random.bytes(4096)).toHaveLength(4096);
    expect(random.bytes(0)).toHaveLength(0);
  });

  it('looks uniform: every byte value appears, and the bit balance is near one half', () => {
    const random = pooledRandom();
    const all = Buffer.concat(Array.from({ length: 4000 }, () => random.bytes(16)));
    const counts = new Array<number>(256).fill(0);
    let ones = 0;
    for (const byte of all) {
      counts[byte]!++;
      for (let b = byte; b; b >>= 1) ones += b & 1;
    }
    expect(counts.every((c) => c > 0)).toBe(true);
    expect(Math.abs(ones / (all.length * 8) - 0.5)).toBeLessThan(0.01);
  });
});
