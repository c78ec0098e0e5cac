import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import type { ServiceKey } from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { toIso } from '../encoding.js';
import type { SigningKeyRecord } from './ports.js';
import {
  newSigningKey,
  publicKeyPem,
  publishedKeySet,
  sealContext,
  signingKeyAt,
} from './signing-key-schedule.js';

/** The key that signs one piece of evidence: name it in what you sign, then sign. */
export interface SigningKey {
  kid: string;
  publicKeyB64Url: string;
  /** Ed25519 over `message`, base64url. */
  sign(message: Buffer): string;
}

/**
 * Signs receipts and export manifests with the service's Ed25519 keys, following the schedule in
 * the key table (ADR 0007). Each process keeps a copy of the table; a copy older than twice the
 * refresh interval is never used to sign: the signer re-reads the table or refuses (503).
 */
export interface ReceiptSigner {
  /** How often the table is re-read; rotations must lead and overlap by at least 2× this. */
  readonly refreshMs: number;
  /**
   * The key scheduled for evidence dated `at`. Throws a `service_unavailable` DomainError when the
   * copy of the key table is too old to be sure, or when no key is valid at `at` and now.
   */
  keyAt(at: number): SigningKey;
  /** Every key ever used plus the scheduled one, with validity: old keys stay published. */
  publishedKeys(): ServiceKey[];
  /** Re-reads the key table when the copy is older than the refresh interval (call before signing). */
  ensureFresh(): Promise<void>;
  /** Re-reads the table when `kid` is unknown here (at most once a second); true when it is known. */
  knows(kid: string): Promise<boolean>;
  /** Re-reads the key table now. */
  refresh(): Promise<void>;
}

export const DEFAULT_SIGNING_KEY_REFRESH_MS = 60_000;
type SignerDeps = Pick<Deps, 'store' | 'clock' | 'secrets'>;

interface KeyTable {
  rows: SigningKeyRecord[];
  loadedAt: number;
}

export async function loadReceiptSigner(
  deps: SignerDeps,
  refreshMs: number = DEFAULT_SIGNING_KEY_REFRESH_MS,
): Promise<ReceiptSigner> {
  let table = await loadKeyTable(deps);
  let inFlight: Promise<void> | undefined;
  const privateKeys = new Map<string, KeyObject>();
  const pems = new Map<string, string>();
  const pemOf = (k: SigningKeyRecord) => pems.get(k.kid) ?? pems.set(k.kid, publicKeyPem(k)).get(k.kid)!;
  const maxAgeMs = 2 * refreshMs;
  const refresh = () =>
    (inFlight ??= loadKeyTable(deps)
      .then((t) => void (table = t))
      .finally(() => (inFlight = undefined)));

  return {
    refreshMs,
    keyAt(at) {
      const now = deps.clock.now();
      // Any rotation this copy may miss changes the table only from loadedAt + maxAge on (ADR 0007);
      // evidence is dated when it is produced (at ≤ now), so a fresh copy answers for `at` too.
      if (now >= table.loadedAt + maxAgeMs) {
        throw unavailable(
          `the signing key table was last read at ${toIso(table.loadedAt)}; refusing to sign`,
        );
      }
      const key = signingKeyAt(table.rows, at);
      if (!key || (key.notAfter !== null && now >= key.notAfter)) {
        throw unavailable(`no signing key is valid both at ${toIso(at)} and now`);
      }
      const privateKey = privateKeys.get(key.kid) ?? openPrivateKey(deps, key);
      privateKeys.set(key.kid, privateKey);
      return {
        kid: key.kid,
        publicKeyB64Url: key.publicKeyB64Url,
        sign: (message) => sign(null, message, privateKey).toString('base64url'),
      };
    },
    publishedKeys: () => publishedKeySet(table.rows, deps.clock.now(), pemOf),
    async ensureFresh() {
      if (deps.clock.now() - table.loadedAt < refreshMs) return;
      try {
        await refresh();
      } catch (error) {
        if (deps.clock.now() < table.loadedAt + maxAgeMs) return;
        throw unavailable('the signing key table cannot be read', error);
      }
    },
    async knows(kid) {
      if (table.rows.some((k) => k.kid === kid)) return true;
      if (deps.clock.now() - table.loadedAt >= 1000) await refresh();
      return table.rows.some((k) => k.kid === kid);
    },
    refresh,
  };
}

/**
 * Reads the table; on a first start (no key valid now or later) creates a key valid from now.
 * Two processes may both create one at once: both stay valid, the schedule picks the same one.
 */
async function loadKeyTable(deps: SignerDeps): Promise<KeyTable> {
  const loadedAt = deps.clock.now();
  let rows = await deps.store.signingKeys.list();
  if (!rows.some((k) => k.notAfter === null || k.notAfter > loadedAt)) {
    await deps.store.signingKeys.insert(newSigningKey(deps, loadedAt));
    rows = await deps.store.signingKeys.list();
  }
  return { rows, loadedAt };
}

function openPrivateKey(deps: SignerDeps, key: SigningKeyRecord): KeyObject {
  return createPrivateKey({
    key: deps.secrets.open(key.privateKeySealed, sealContext(key.kid)),
    format: 'der',
    type: 'pkcs8',
  });
}

function unavailable(detail: string, cause?: unknown): DomainError {
  return new DomainError('service_unavailable', detail, [], { cause, retryAfterSeconds: 1 });
}
