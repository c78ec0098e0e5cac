import { createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { SIG_TYPE_COSIGNATURE_V1, formatVerifierKey, noteKeyId } from '../log/signed-note.js';

/**
 * A witness's Ed25519 key, in the note key format:
 * `PRIVATE+KEY+<name>+<key id hex>+<base64(0x04 || 32-byte seed)>` (one line, mode 0600). Its
 * verifier key, `<name>+<key id hex>+<base64(0x04 || public key)>`, is what the tenant and
 * auditors trust (`presence log witnesses --vkey …`, `presence-verify --witness …`).
 */
export interface WitnessKey {
  name: string;
  privateKey: KeyObject;
  rawPublicKey: Buffer;
  /** The verifier key to publish. */
  vkey: string;
}

/** PKCS#8 DER of an Ed25519 seed: a fixed 16-byte prefix, then the 32 bytes. */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export function witnessKeyFromSeed(name: string, seed: Buffer): WitnessKey {
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const rawPublicKey = Buffer.from(
    createPublicKey(privateKey).export({ format: 'jwk' }).x ?? '',
    'base64url',
  );
  return {
    name,
    privateKey,
    rawPublicKey,
    vkey: formatVerifierKey(name, SIG_TYPE_COSIGNATURE_V1, rawPublicKey),
  };
}

export function formatWitnessKeyFile(name: string, seed: Buffer): string {
  const key = witnessKeyFromSeed(name, seed);
  const id = noteKeyId(name, SIG_TYPE_COSIGNATURE_V1, key.rawPublicKey).toString('hex');
  return `PRIVATE+KEY+${name}+${id}+${Buffer.concat([Buffer.of(SIG_TYPE_COSIGNATURE_V1), seed]).toString('base64')}\n`;
}

export function parseWitnessKeyFile(text: string): WitnessKey {
  const match = /^PRIVATE\+KEY\+([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+=*)$/.exec(text.trim());
  if (!match) throw new Error('not a witness key file (PRIVATE+KEY+<name>+<id>+<base64>)');
  const body = Buffer.from(match[3]!, 'base64');
  if (body.length !== 33 || body[0] !== SIG_TYPE_COSIGNATURE_V1)
    throw new Error('the witness key is not an Ed25519 cosignature key');
  const key = witnessKeyFromSeed(match[1]!, body.subarray(1));
  if (noteKeyId(key.name, SIG_TYPE_COSIGNATURE_V1, key.rawPublicKey).toString('hex') !== match[2])
    throw new Error('the witness key id does not match its key');
  return key;
}

/** Reads the key file, or creates it (mode 0600, never overwriting) when absent. */
export function loadOrCreateWitnessKey(path: string, name: string): { key: WitnessKey; created: boolean } {
  if (!existsSync(path)) {
    try {
      writeFileSync(path, formatWitnessKeyFile(name, randomBytes(32)), { mode: 0o600, flag: 'wx' });
      const key = parseWitnessKeyFile(readFileSync(path, 'utf8'));
      writeFileSync(`${path}.pub`, `${key.vkey}\n`);
      return { key, created: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return { key: parseWitnessKeyFile(readFileSync(path, 'utf8')), created: false };
}
