import type { Deps } from '../deps.js';
import type { WebhookEndpointRecord } from './ports.js';

/**
 * A new signing secret: `whsec_` + 32 random bytes in standard base64 (44 characters, padded),
 * the Standard Webhooks form. Shown to the tenant once. X-PRESENCE-Signature is keyed with the
 * whole string as UTF-8 (docs/api-contract.md#8-webhooks); webhook-signature with the 32 decoded bytes.
 */
export function newWebhookSecret(deps: Pick<Deps, 'random'>): string {
  return `whsec_${deps.random.bytes(32).toString('base64')}`;
}

/** The associated data binds a sealed secret to its endpoint (current and previous alike). */
export function webhookSecretSealContext(endpointId: string): string {
  return `webhook-secret:${endpointId}`;
}

export function sealWebhookSecret(deps: Pick<Deps, 'secrets'>, endpointId: string, secret: string): string {
  return deps.secrets.seal(Buffer.from(secret, 'utf8'), webhookSecretSealContext(endpointId));
}

/** The secrets that sign at `now`: the current one, and the previous one during its overlap. */
export function signingSecrets(
  deps: Pick<Deps, 'secrets'>,
  endpoint: WebhookEndpointRecord,
  now: number,
): string[] {
  const open = (sealed: string) =>
    deps.secrets.open(sealed, webhookSecretSealContext(endpoint.id)).toString('utf8');
  const secrets = [open(endpoint.secretSealed)];
  const previous = endpoint.previousSecretSealed;
  if (previous !== null && (endpoint.previousSecretExpiresAt ?? 0) > now) secrets.push(open(previous));
  return secrets;
}
