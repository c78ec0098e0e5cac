import { sign, verify, type KeyObject } from 'node:crypto';
import {
  SIG_TYPE_COSIGNATURE_V1,
  formatSignatureLine,
  noteKeyId,
  type NoteSignature,
  type VerifierKey,
} from './signed-note.js';

/**
 * C2SP tlog-cosignature v1 (https://c2sp.org/tlog-cosignature): a witness signs
 * `cosignature/v1\ntime <unix seconds>\n<checkpoint body>` with Ed25519; the signature line's value
 * is key id (4) || timestamp (8, big-endian) || signature (64); the key id uses type 0x04.
 */
export function cosignedMessage(checkpointBody: string, timestamp: number): Buffer {
  return Buffer.from(`cosignature/v1\ntime ${timestamp}\n${checkpointBody}`, 'utf8');
}

export function cosignCheckpoint(
  checkpointBody: string,
  witness: { name: string; privateKey: KeyObject; rawPublicKey: Uint8Array },
  timestamp: number,
): string {
  const signature = sign(null, cosignedMessage(checkpointBody, timestamp), witness.privateKey);
  const time = Buffer.alloc(8);
  time.writeBigUInt64BE(BigInt(timestamp));
  const keyId = noteKeyId(witness.name, SIG_TYPE_COSIGNATURE_V1, witness.rawPublicKey);
  return formatSignatureLine(witness.name, Buffer.concat([keyId, time, signature]));
}

/** The cosignature's timestamp when `line` is a valid cosignature of `key` over the body; else undefined. */
export function verifyCosignature(
  checkpointBody: string,
  line: NoteSignature,
  key: VerifierKey,
): number | undefined {
  if (key.sigType !== SIG_TYPE_COSIGNATURE_V1 || line.name !== key.name || !line.keyId.equals(key.keyId))
    return undefined;
  if (line.signature.length !== 8 + 64) return undefined;
  const timestamp = Number(line.signature.readBigUInt64BE(0));
  const ok = verify(
    null,
    cosignedMessage(checkpointBody, timestamp),
    key.publicKey,
    line.signature.subarray(8),
  );
  return ok ? timestamp : undefined;
}
