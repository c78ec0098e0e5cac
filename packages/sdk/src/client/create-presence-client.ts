import {
  buildBillingResources,
  buildKeyResources,
  buildPolicyResources,
  buildWellKnownResources,
} from './build-admin-resources.js';
import {
  buildCredentialResources,
  buildPresenceResources,
  buildReceiptResources,
} from './build-presence-resources.js';
import { buildWebhookResources } from './build-webhook-resources.js';
import { buildApprovalResources, buildEnrollmentLinkResources } from './build-approval-resources.js';
import { HttpTransport, type TransportOptions } from './http-transport.js';

export type PresenceClientOptions = TransportOptions;

/**
 * A typed client for the Presence API. Works wherever `fetch` and WebCrypto exist (Node 20+,
 * browsers, Deno, Bun, edge runtimes). Keep API keys on servers: a browser should only run the
 * WebAuthn ceremony and hand its result to your backend.
 *
 * ```ts
 * const presence = createPresenceClient({ baseUrl: 'https://presence.example.com', apiKey });
 * const challenge = await presence.presence.createChallenge({ actionHashHex, subject });
 * ```
 */
export function createPresenceClient(options: PresenceClientOptions) {
  const transport = new HttpTransport(options);
  return {
    presence: buildPresenceResources(transport),
    credentials: buildCredentialResources(transport),
    receipts: buildReceiptResources(transport),
    keys: buildKeyResources(transport),
    policy: buildPolicyResources(transport),
    billing: buildBillingResources(transport),
    webhooks: buildWebhookResources(transport),
    wellKnown: buildWellKnownResources(transport),
    approvals: buildApprovalResources(transport),
    enrollmentLinks: buildEnrollmentLinkResources(transport),
  };
}

export type PresenceClient = ReturnType<typeof createPresenceClient>;
