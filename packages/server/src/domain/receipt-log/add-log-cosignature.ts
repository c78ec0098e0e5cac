import type { CosignatureBody } from '@presence/contract';
import {
  SIG_TYPE_COSIGNATURE_V1,
  formatVerifierKey,
  parseCheckpointBody,
  parseSignatureLine,
  parseVerifierKey,
  verifyCosignature,
  type VerifierKey,
} from '@presence/sdk/node';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';

/** Cosignatures kept per checkpoint: enough for any witness set, bounded against spam. */
export const MAX_COSIGNATURES = 32;

/**
 * Stores a witness's C2SP tlog-cosignature of a checkpoint this service signed for the tenant.
 * The line must verify under the witness key given; the checkpoint must match, byte for byte,
 * the body the service signed at that size. Whether a witness counts is the auditor's call (and
 * the tenant's, for packs: see setLogWitnesses); the service only refuses what does not verify.
 */
export async function addLogCosignature(
  deps: Pick<Deps, 'store' | 'clock'>,
  tenantId: string,
  input: CosignatureBody,
): Promise<{ treeSize: number; witnessName: string; stored: boolean }> {
  const witness = parseWitnessKey(input.witnessKey);
  const body = checkpointBodyOf(input.checkpoint);
  const { treeSize } = parseField('checkpoint', () => parseCheckpointBody(body));
  const log = deps.store.receiptLogTree;
  const signed = await log.checkpointAt(tenantId, treeSize);
  if (!signed || !signed.note.startsWith(`${body}\n`)) {
    throw new DomainError(
      'conflict',
      `this service signed no such checkpoint of size ${treeSize} for this tenant`,
    );
  }
  const line = parseField('cosignature', () =>
    parseSignatureLine(`${input.cosignature.replace(/\n$/, '')}\n`),
  );
  if (verifyCosignature(body, line, witness) === undefined) {
    throw new DomainError(
      'invalid_request',
      'the cosignature does not verify under the witness key for this checkpoint',
      [{ field: 'cosignature', message: 'not a valid tlog-cosignature/v1 of this checkpoint by this key' }],
    );
  }
  if ((await log.cosignatures(tenantId, treeSize)).length >= MAX_COSIGNATURES) {
    throw new DomainError('conflict', `this checkpoint already carries ${MAX_COSIGNATURES} cosignatures`);
  }
  const stored = await log.insertCosignature({
    tenantId,
    treeSize,
    witnessName: witness.name,
    keyIdHex: witness.keyId.toString('hex'),
    witnessKey: formatVerifierKey(witness.name, witness.sigType, witness.rawPublicKey),
    line: line.line,
    createdAt: deps.clock.now(),
  });
  return { treeSize, witnessName: witness.name, stored };
}

export function parseWitnessKey(vkey: string, field = 'witnessKey'): VerifierKey {
  const key = parseField(field, () => parseVerifierKey(vkey));
  if (key.sigType !== SIG_TYPE_COSIGNATURE_V1) {
    throw new DomainError('invalid_request', 'a witness key has signature type 0x04 (tlog-cosignature/v1)', [
      { field, message: 'expected type 0x04' },
    ]);
  }
  return key;
}

/** A whole signed note or a bare body: the body is everything up to the blank line. */
function checkpointBodyOf(text: string): string {
  const split = text.indexOf('\n\n');
  return split < 0 ? text : text.slice(0, split + 1);
}

function parseField<T>(field: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new DomainError('invalid_request', `${field}: ${message}`, [{ field, message }], { cause: error });
  }
}
