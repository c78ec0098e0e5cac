import type { Deps } from '../deps.js';
import type { WebhookEndpointRecord } from './ports.js';

/** A new signing secret: `whsec_` + 32 random bytes, base64url. Shown to the tenant once. */
export function newWebhookSecret(deps: Pick<Deps, 'random'>): string {
  return `whsec_${deps.random.bytes(32).toString('base64url')}`;
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
