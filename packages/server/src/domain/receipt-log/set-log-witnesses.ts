import { formatVerifierKey } from '@presence/sdk/node';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { parseWitnessKey } from './add-log-cosignature.js';
import type { LogWitnessSettings } from './ports.js';

/**
 * Sets the witnesses a tenant trusts and how many of them must have cosigned the checkpoint of an
 * export pack (0: packs use the newest checkpoint, witnessed or not). A per-tenant setting rather
 * than a policy field: the policy is hashed into every receipt and governs WebAuthn checks only.
 */
export async function setLogWitnesses(
  deps: Pick<Deps, 'store' | 'clock'>,
  tenantId: string,
  input: { witnessKeys: string[]; required: number },
): Promise<LogWitnessSettings> {
  const keys = [
    ...new Set(
      input.witnessKeys.map((k, i) => {
        const key = parseWitnessKey(k, `witnessKeys[${i}]`);
        return formatVerifierKey(key.name, key.sigType, key.rawPublicKey);
      }),
    ),
  ];
  if (!Number.isInteger(input.required) || input.required < 0 || input.required > keys.length) {
    throw new DomainError(
      'invalid_request',
      `required must be between 0 and the ${keys.length} witness keys given`,
    );
  }
  if (!(await deps.store.tenants.get(tenantId)))
    throw new DomainError('not_found', 'the tenant was not found');
  const settings = { tenantId, witnessKeys: keys, required: input.required, updatedAt: deps.clock.now() };
  await deps.store.receiptLogTree.putWitnessSettings(settings);
  return settings;
}
