import type { Deps } from '../deps.js';
import type { IdempotencyRecord } from './ports.js';

/** Who used an Idempotency-Key, for which request. */
export interface IdempotentRequest {
  tenantId: string;
  key: string;
  fingerprintHex: string;
  method: string;
  route: string;
}

/** A response exactly as it was sent: status, content type and serialized body. */
export interface StoredResponse {
  statusCode: number;
  contentType: string;
  body: string;
}

/** What an earlier use of the key means for this request. */
export type KnownOutcome =
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'conflict'; method: string; route: string }
  | { kind: 'in-progress' };

/** The AAD of a sealed response names its row, so a sealed value cannot be moved to another key. */
export function idempotencySealContext(tenantId: string, key: string): string {
  return JSON.stringify(['idempotency', tenantId, key]);
}

export function sealResponse(
  deps: Pick<Deps, 'secrets'>,
  request: IdempotentRequest,
  response: StoredResponse,
) {
  const plaintext = Buffer.from(JSON.stringify(response), 'utf8');
  return deps.secrets.seal(plaintext, idempotencySealContext(request.tenantId, request.key));
}

/** The stored outcome of the key for this tenant, or undefined when the key is unused. */
export async function readIdempotentOutcome(
  deps: Pick<Deps, 'store' | 'secrets'>,
  request: IdempotentRequest,
): Promise<KnownOutcome | undefined> {
  const record = await deps.store.idempotency.get(request.tenantId, request.key);
  return record && outcomeOf(deps, record, request);
}

function outcomeOf(
  deps: Pick<Deps, 'secrets'>,
  record: IdempotencyRecord,
  request: IdempotentRequest,
): KnownOutcome {
  if (record.fingerprintHex !== request.fingerprintHex) {
    return { kind: 'conflict', method: record.method, route: record.route };
  }
  if (record.responseSealed === null) return { kind: 'in-progress' };
  const plaintext = deps.secrets.open(
    record.responseSealed,
    idempotencySealContext(record.tenantId, record.key),
  );
  return { kind: 'replay', response: JSON.parse(plaintext.toString('utf8')) as StoredResponse };
}
