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
  | 'aud'
  | 'apr'
  | 'enl'
  | 'chg';

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
  return `${prefix}_${out}${base32Of80Bits(deps.random.bytes(10))}`;
}

/**
 * The 80 bits as 16 Crockford characters, most significant first: each 5-byte half is a 40-bit
 * integer (exact in a double), i.e. 8 characters.
 */
function base32Of80Bits(bytes: Uint8Array): string {
  let text = '';
  for (let half = 0; half < 10; half += 5) {
    let value =
      bytes[half]! * 2 ** 32 +
      bytes[half + 1]! * 2 ** 24 +
      ((bytes[half + 2]! << 16) | (bytes[half + 3]! << 8) | bytes[half + 4]!);
    let chars = '';
    for (let i = 0; i < 8; i++) {
      chars = CROCKFORD[value % 32]! + chars;
      value = Math.floor(value / 32);
    }
    text += chars;
  }
  return text;
}
