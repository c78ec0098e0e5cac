import { changeLinkSealContext } from '../console/change-link.js';
import type { Deps } from '../deps.js';
import { idempotencySealContext } from '../idempotency/read-idempotent-outcome.js';
import { logKeySealContext } from '../receipt-log/log-signer.js';
import { sealContext as signingKeySealContext } from '../receipts/signing-key-schedule.js';
import { webhookSecretSealContext } from '../webhooks/webhook-secret.js';
import type { SealedKind } from './ports.js';

/** The associated data each kind was sealed with (see domain/secrets.ts). */
const CONTEXTS: Record<SealedKind, (key: string[]) => string> = {
  'signing-key': ([kid]) => signingKeySealContext(kid ?? ''),
  'receipt-log-key': ([kid]) => logKeySealContext(kid ?? ''),
  'webhook-secret': ([id]) => webhookSecretSealContext(id ?? ''),
  'webhook-previous-secret': ([id]) => webhookSecretSealContext(id ?? ''),
  'idempotency-response': ([tenantId, key]) => idempotencySealContext(tenantId ?? '', key ?? ''),
  'console-change-link': ([id]) => changeLinkSealContext(id ?? ''),
};

export const SEALED_KINDS = Object.keys(CONTEXTS) as SealedKind[];

export interface ResealCount {
  kind: SealedKind;
  /** Values that were sealed under the previous key and are now under the current one. */
  resealed: number;
  /** Values already under the current key. */
  current: number;
}

/**
 * Step two of a master-key rotation: with PRESENCE_MASTER_KEY the new key and
 * PRESENCE_MASTER_KEY_PREVIOUS the old one, re-seals every value the current key cannot open.
 * Row by row with a compare-and-set, so running servers may keep writing meanwhile; safe to
 * repeat. A value neither key opens stops the run with an error naming it.
 */
export async function resealSecrets(
  deps: Pick<Deps, 'store' | 'secrets'>,
  batchSize = 200,
): Promise<ResealCount[]> {
  const counts: ResealCount[] = [];
  for (const kind of SEALED_KINDS) {
    const count: ResealCount = { kind, resealed: 0, current: 0 };
    let after: string[] | undefined;
    for (;;) {
      const page = await deps.store.sealedSecrets.list(kind, after, batchSize);
      for (const value of page) {
        const context = CONTEXTS[kind](value.key);
        if (deps.secrets.isCurrent(value.sealed, context)) {
          count.current++;
          continue;
        }
        const sealed = deps.secrets.seal(
          openOrExplain(deps, kind, value.key, value.sealed, context),
          context,
        );
        if (await deps.store.sealedSecrets.replace(kind, value.key, value.sealed, sealed)) count.resealed++;
      }
      if (page.length < batchSize) break;
      after = page[page.length - 1]?.key;
    }
    counts.push(count);
  }
  return counts;
}

function openOrExplain(
  deps: Pick<Deps, 'secrets'>,
  kind: SealedKind,
  key: string[],
  sealed: string,
  context: string,
): Buffer {
  try {
    return deps.secrets.open(sealed, context);
  } catch (error) {
    throw new Error(
      `${kind} ${key.join('/')} opens with neither PRESENCE_MASTER_KEY nor PRESENCE_MASTER_KEY_PREVIOUS`,
      { cause: error },
    );
  }
}
