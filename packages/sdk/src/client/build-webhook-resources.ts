import type { CallOptions, CreateOptions, HttpTransport } from './http-transport.js';
import { newIdempotencyKey } from './http-transport.js';
import { listing } from './build-admin-resources.js';
import type {
  CreateWebhookEndpointBody,
  ListWebhookDeliveriesQuery,
  RecoverWebhookBody,
  RecoverWebhookResult,
  RotateWebhookSecretBody,
  UpdateWebhookEndpointBody,
  WebhookDelivery,
  WebhookDeliveryEnvelope,
  WebhookEndpoint,
  WebhookEndpointEnvelope,
  WebhookEndpointWithSecret,
} from './wire-types.js';

const id = encodeURIComponent;
const keyOf = (o?: CreateOptions) => o?.idempotencyKey ?? newIdempotencyKey();
const endpoints = '/v1/webhooks/endpoints';
const deliveries = '/v1/webhooks/deliveries';

/**
 * Webhook endpoints and their delivery log (docs/api-contract.md#8-webhooks). The signing secret is in the responses
 * of `create` and `rotateSecret` only; verify deliveries with `verifyWebhook` from `@presence/sdk/node`.
 */
export function buildWebhookResources(t: HttpTransport) {
  return {
    create: (body: CreateWebhookEndpointBody, o?: CreateOptions) =>
      t.json<WebhookEndpointWithSecret>(
        { method: 'POST', path: endpoints, body, idempotencyKey: keyOf(o) },
        o,
      ),
    ...listing<WebhookEndpoint, object>(t, endpoints),
    get: (endpointId: string, o?: CallOptions) =>
      t.json<WebhookEndpointEnvelope>({ method: 'GET', path: `${endpoints}/${id(endpointId)}` }, o),
    update: (endpointId: string, body: UpdateWebhookEndpointBody, o?: CallOptions) =>
      t.json<WebhookEndpointEnvelope>({ method: 'PATCH', path: `${endpoints}/${id(endpointId)}`, body }, o),
    delete: (endpointId: string, o?: CallOptions) =>
      t.json<undefined>({ method: 'DELETE', path: `${endpoints}/${id(endpointId)}` }, o),
    rotateSecret: (endpointId: string, body: RotateWebhookSecretBody = {}, o?: CreateOptions) =>
      t.json<WebhookEndpointWithSecret>(
        {
          method: 'POST',
          path: `${endpoints}/${id(endpointId)}/rotate-secret`,
          body,
          idempotencyKey: keyOf(o),
        },
        o,
      ),
    /** Sends a `webhook.test` event to this endpoint only (202, queued). */
    sendTest: (endpointId: string, o?: CreateOptions) =>
      t.json<WebhookDeliveryEnvelope>(
        { method: 'POST', path: `${endpoints}/${id(endpointId)}/test`, body: {}, idempotencyKey: keyOf(o) },
        o,
      ),
    /** Re-queues every failed delivery of the endpoint created at or after `since`. */
    recover: (endpointId: string, body: RecoverWebhookBody, o?: CreateOptions) =>
      t.json<RecoverWebhookResult>(
        { method: 'POST', path: `${endpoints}/${id(endpointId)}/recover`, body, idempotencyKey: keyOf(o) },
        o,
      ),
    /** The delivery log of one endpoint, newest first, with every attempt. */
    deliveries: (endpointId: string) =>
      listing<WebhookDelivery, Omit<ListWebhookDeliveriesQuery, 'cursor' | 'limit'>>(
        t,
        `${endpoints}/${id(endpointId)}/deliveries`,
      ),
    getDelivery: (deliveryId: string, o?: CallOptions) =>
      t.json<WebhookDeliveryEnvelope>({ method: 'GET', path: `${deliveries}/${id(deliveryId)}` }, o),
    redeliver: (deliveryId: string, o?: CreateOptions) =>
      t.json<WebhookDeliveryEnvelope>(
        {
          method: 'POST',
          path: `${deliveries}/${id(deliveryId)}/redeliver`,
          body: {},
          idempotencyKey: keyOf(o),
        },
        o,
      ),
  };
}
