import type { Clock, Random } from './ports.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export type IdPrefix =
  | 'ten'
  | 'key'
  | 'pol'
  | 'reg'
  | 'cred'
  | 'chl'
  | 'rct'
  | 'evt'
  | 'use'
  | 'dlv'
  | 'sk'
  | 'whe'
  | 'inv'
  | 'exp'
  | 'mem'
  | 'cin'
  | 'ses'
  | 'aud';

/**
 * A prefixed, time-sortable id: `chl_` + 26 Crockford base32 characters (48-bit millisecond
 * time, 80 random bits), the same in both databases (ULID layout).
 */
export function newId(deps: { clock: Clock; random: Random }, prefix: IdPrefix): string {
  let time = deps.clock.now();
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[time % 32]! + out;
    time = Math.floor(time / 32);
  }
  const bytes = deps.random.bytes(10);
  let acc = 0n;
  for (const b of bytes) acc = (acc << 8n) | BigInt(b);
  let rand = '';
  for (let i = 0; i < 16; i++) {
    rand = CROCKFORD[Number(acc & 31n)]! + rand;
    acc >>= 5n;
  }
  return `${prefix}_${out}${rand}`;
}
