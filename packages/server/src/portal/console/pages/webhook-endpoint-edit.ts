import {
  WEBHOOK_EVENT_TYPES,
  WebhookUrl,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '@presence/contract';
import { Type } from '@sinclair/typebox';
import { DomainError } from '../../../domain/errors.js';
import {
  getWebhookEndpoint,
  updateWebhookEndpoint,
} from '../../../domain/webhooks/manage-webhook-endpoints.js';
import type { DeliveryBody } from '../../../domain/webhooks/read-delivery-bodies.js';
import type { App } from '../../../http/types.js';
import { html, type SafeHtml } from '../../html.js';
import { action, Form, type View } from '../routes.js';
import { csrfField } from '../widgets.js';

const EndpointParams = Type.Object({ id: Type.String({ pattern: '^whe_[0-9A-HJKMNP-TV-Z]{26}$' }) });
const EditEndpointForm = Form({
  url: WebhookUrl,
  description: Type.Optional(Type.String({ maxLength: 200 })),
  events: Type.Array(Type.Union(WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t))), {
    minItems: 1,
    uniqueItems: true,
  }),
});

/**
 * Edit URL, events and description (the same checks as PATCH on the API, SSRF rules included): a
 * `webhook.update` the member's passkey approves (webhook-changes.ts). Without JavaScript the form
 * posts to the plain route below, which saves a new description only.
 */
export function editForm(view: View, e: WebhookEndpoint): SafeHtml {
  return html`<section class="card" aria-labelledby="edit-hook-title">
    <h2 id="edit-hook-title">Edit endpoint</h2>
    <form
      method="post"
      action="/console/webhooks/${e.id}/edit"
      data-approve="webhook.update"
      data-target="${e.id}"
    >
      ${csrfField(view.csrf)}
      <p>
        <label for="edit-url">URL (https, publicly reachable)</label
        ><input id="edit-url" name="url" type="url" required value="${e.url}" />
      </p>
      <p>
        <label for="edit-description">Description</label
        ><input id="edit-description" name="description" maxlength="200" value="${e.description ?? ''}" />
      </p>
      <fieldset>
        <legend>Events</legend>
        <div class="checks">
          ${WEBHOOK_EVENT_TYPES.map(
            (t) =>
              html`<label
                ><input
                  type="checkbox"
                  name="events"
                  value="${t}"
                  ${e.events.includes(t) ? html`checked` : ''}
                />
                <code>${t}</code></label
              >`,
          )}
        </div>
      </fieldset>
      <p class="muted">
        The URL and events decide where your tenant's events go, so saving asks for your passkey.
      </p>
      <button type="submit">Save endpoint</button>
    </form>
  </section>`;
}

/** The bytes a delivery sent and what the receiver answered, both capped. */
export function deliveryBodies(d: WebhookDelivery, body: DeliveryBody | undefined): SafeHtml {
  const last = d.attempts.at(-1);
  return html`<details class="bodies">
    <summary>Request and response<span class="sr-only"> of ${d.id}</span></summary>
    <p class="muted">Request body${body?.truncated ? ' (first 8 KiB)' : ''}</p>
    ${
      body?.requestBody
        ? html`<pre class="snippet wrap" tabindex="0" aria-label="Request body">${body.requestBody}</pre>`
        : html`<p class="muted">The event is no longer kept (retention).</p>`
    }
    <p class="muted">Response body of the last attempt (capped when stored)</p>
    ${last?.responseSnippet ? html`<pre class="snippet wrap" tabindex="0" aria-label="Response body">${last.responseSnippet}</pre>` : html`<p class="muted">none</p>`}
  </details>`;
}

/** Whether the form keeps the endpoint's URL and events (in any order) as they are. */
function keepsWhereItSends(e: WebhookEndpoint, body: Pick<WebhookEndpoint, 'url' | 'events'>): boolean {
  const same = body.events.length === e.events.length && body.events.every((t) => e.events.includes(t));
  return body.url === e.url && same;
}

/**
 * The form without JavaScript (no passkey check): a new description only. A new URL or events
 * could send the tenant's events elsewhere (and recover or redeliver past ones there), so they are
 * refused with 403 and nothing is saved; `webhook.update` with the passkey changes them.
 */
export function webhookEditRoutes(app: App): void {
  action(
    app,
    '/console/webhooks/:id/edit',
    { body: EditEndpointForm, params: EndpointParams },
    'webhooks',
    async ({ view, params, body }) => {
      const endpoint = await getWebhookEndpoint(view.ctx.deps, view.tenantId, params.id);
      if (!keepsWhereItSends(endpoint, body)) {
        throw new DomainError(
          'forbidden',
          'changing the URL or events of an endpoint must be approved with your passkey, which needs JavaScript in this page; enable it and try again. Nothing was changed',
          [{ field: 'body/url', message: 'needs a passkey approval' }],
        );
      }
      await updateWebhookEndpoint(view.ctx.deps, view.tenantId, params.id, {
        description: body.description ? body.description : null,
      });
      return { redirect: `/console/webhooks/${params.id}` };
    },
  );
}
