import { parseCheckpointBody, type Checkpoint } from './checkpoint.js';
import { verifyCosignature } from './cosignature.js';
import {
  SIG_TYPE_ED25519,
  ed25519PublicKey,
  hasValidSignature,
  noteKeyId,
  parseNote,
  type ParsedNote,
  type VerifierKey,
} from './signed-note.js';

export interface OpenedCheckpoint extends Checkpoint {
  note: ParsedNote;
  /** The signed checkpoint body (origin, size, root). */
  body: string;
  /** Witnesses (of the ones trusted) whose cosignatures verified. */
  witnesses: string[];
}

/**
 * Parses a signed checkpoint and checks it carries a valid signature of one of the service's log
 * keys (raw 32-byte Ed25519 keys, e.g. the `use: "log"` entries of keys.json) under its origin
 * as key name. Counts valid cosignatures of `witnessKeys`. Throws when nothing checks out.
 */
export function openCheckpoint(
  signedNote: string,
  logPublicKeys: readonly Uint8Array[],
  witnessKeys: readonly VerifierKey[] = [],
): OpenedCheckpoint {
  const note = parseNote(signedNote);
  const checkpoint = parseCheckpointBody(note.text);
  const signed = logPublicKeys.some((raw) => {
    const key: VerifierKey = {
      name: checkpoint.origin,
      keyId: noteKeyId(checkpoint.origin, SIG_TYPE_ED25519, raw),
      sigType: SIG_TYPE_ED25519,
      publicKey: ed25519PublicKey(raw),
      rawPublicKey: Buffer.from(raw),
    };
    return hasValidSignature(note, key);
  });
  if (!signed)
    throw new Error(`the checkpoint of ${checkpoint.origin} carries no valid signature of a trusted log key`);
  const witnesses = witnessKeys
    .filter((w) => note.signatures.some((line) => verifyCosignature(note.text, line, w) !== undefined))
    .map((w) => w.name);
  return { ...checkpoint, note, body: note.text, witnesses };
}
