import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { ServiceKey } from '@presence/contract';
import { signNoteLine } from '@presence/sdk/node';
import type { Deps } from '../deps.js';
import { toIso } from '../encoding.js';
import { newSealedEd25519Key } from '../receipts/signing-key-schedule.js';
import type { LogKeyRecord } from './ports.js';

type LogSignerDeps = Pick<Deps, 'store' | 'clock' | 'secrets'>;

/**
 * The service's Ed25519 log key: it signs checkpoints only (never receipts), so a receipt key and
 * a log key can be rotated and judged apart. Sealed at rest like the receipt signing keys. The
 * note key name is the checkpoint's origin, so one key serves every tenant's log.
 */
export interface LogSigner {
  kid: string;
  rawPublicKey: Buffer;
  /** The checkpoint body followed by a blank line and the service's signature line. */
  signCheckpoint(origin: string, body: string): string;
}

export async function loadLogSigner(deps: LogSignerDeps): Promise<LogSigner> {
  let keys = await deps.store.receiptLogTree.logKeys();
  if (keys.length === 0) {
    await deps.store.receiptLogTree.insertLogKey(newLogKey(deps));
    keys = await deps.store.receiptLogTree.logKeys();
  }
  // Two processes may both create a first key at once; the oldest one wins for everyone.
  const key = keys[0]!;
  const privateKey: KeyObject = createPrivateKey({
    key: deps.secrets.open(key.privateKeySealed, logKeySealContext(key.kid)),
    format: 'der',
    type: 'pkcs8',
  });
  const rawPublicKey = Buffer.from(key.publicKeyB64Url, 'base64url');
  return {
    kid: key.kid,
    rawPublicKey,
    signCheckpoint: (origin, body) => `${body}\n${signNoteLine(body, origin, privateKey, rawPublicKey)}`,
  };
}

/** The log keys as keys.json lists them (`use: "log"`); the oldest is the one in use. */
export async function publishedLogKeys(deps: Pick<Deps, 'store'>): Promise<ServiceKey[]> {
  const keys = await deps.store.receiptLogTree.logKeys();
  return keys.map((k) => ({
    kid: k.kid,
    alg: 'Ed25519',
    use: 'log',
    publicKeyB64Url: k.publicKeyB64Url,
    publicKeyPem: createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: k.publicKeyB64Url },
      format: 'jwk',
    })
      .export({ format: 'pem', type: 'spki' })
      .toString(),
    notBefore: toIso(k.createdAt),
    notAfter: null,
    status: 'active',
  }));
}

function newLogKey(deps: Pick<Deps, 'clock' | 'secrets'>): LogKeyRecord {
  return newSealedEd25519Key(deps, logKeySealContext);
}

/** The associated data the log key is sealed with (domain/secrets.ts); master-key reseal uses it too. */
export function logKeySealContext(kid: string): string {
  return `presence/log-key/${kid}`;
}

/** `<prefix>/presence/<tenantId>`: the origin line of a tenant's checkpoints (docs/api-contract.md#11-the-receipt-log). */
export function logOrigin(prefix: string, tenantId: string): string {
  return `${prefix}/presence/${tenantId}`;
}
