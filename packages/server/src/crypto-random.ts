/**
 * The service's source of random bytes (ids, nonces, secrets): the operating system's CSPRNG
 * through OpenSSL, drawn 4 KiB at a time instead of once per id. A verification asks for random
 * bytes several times (request id, receipt, event and usage ids), and each separate draw cost
 * more than the bytes themselves (docs/performance.md). Every byte is handed out once, copied,
 * and wiped from the pool; large requests bypass the pool.
 */
import { randomBytes, randomFillSync } from 'node:crypto';
import type { Random } from './domain/ports.js';

const POOL_BYTES = 4096;
const LARGEST_POOLED = 64;

export function pooledRandom(): Random {
  const pool = Buffer.alloc(POOL_BYTES);
  let offset = POOL_BYTES;
  return {
    bytes(length) {
      if (length > LARGEST_POOLED) return randomBytes(length);
      if (offset + length > POOL_BYTES) {
        randomFillSync(pool);
        offset = 0;
      }
      const out = Buffer.from(pool.subarray(offset, offset + length));
      pool.fill(0, offset, offset + length);
      offset += length;
      return out;
    },
  };
}

/** The process's one pool. */
export const cryptoRandom: Random = pooledRandom();
