import type { WebhookDelivery, WebhookEndpoint } from '@presence/contract';
import { Type } from '@sinclair/typebox';
import { mayChange } from '../../../domain/console/permissions.js';
import {
  listWebhookDeliveries,
  recoverWebhookDeliveries,
  redeliverWebhook,
  sendTestWebhook,
} from '../../../domain/webhooks/manage-webhook-deliveries.js';
import {
  getWebhookEndpoint,
  updateWebhookEndpoint,
} from '../../../domain/webhooks/manage-webhook-endpoints.js';
import type { App } from '../../../http/types.js';
import { UTC_MINUTE, utcMinuteMs } from '../../../http/validators.js';
import { html, type SafeHtml } from '../../html.js';
import { action, audit, Form, page, type View } from '../routes.js';
import { badge, dangerForm, empty, plainForm, when } from '../widgets.js';
import { endpointState } from './webhooks.js';

const EndpointParams = Type.Object({ id: Type.String({ pattern: '^whe_[0-9A-HJKMNP-TV-Z]{26}$' }) });
const DeliveryParams = Type.Object({
  id: EndpointParams.properties.id,
  deliveryId: Type.String({ pattern: '^dlv_[0-9A-HJKMNP-TV-Z]{26}$' }),
});
const Empty = Form({});
/** A real minute (`utc-minute`): an impossible date is a 400 before anything is requeued. */
const RecoverForm = Form({ since: Type.String({ format: UTC_MINUTE }) });

function attempts(d: WebhookDelivery): SafeHtml {
  if (d.attempts.length === 0) return html`<span class="muted">no attempt yet</span>`;
  return html`<ol class="attempts">
    ${d.attempts.map(
      (a) =>
        html`<li>
          #${a.attempt} ${when(a.startedAt)} · ${a.statusCode ?? 'no response'} · ${a.durationMs} ms
          ${a.error ? html`· <span class="bad-text">${a.error}</span>` : ''}
          ${a.responseSnippet ? html`<pre class="snippet">${a.responseSnippet}</pre>` : ''}
        </li>`,
    )}
  </ol>`;
}

function deliveryRow(view: View, e: WebhookEndpoint, d: WebhookDelivery, canChange: boolean): SafeHtml {
  const kind = d.status === 'succeeded' ? 'ok' : d.status === 'failed' ? 'bad' : 'warn';
  return html`<tr>
    <th scope="row"><code>${d.id}</code><br /><span class="muted">${d.eventType}</span></th>
    <td data-label="Status">${badge(d.status, kind)}</td>
    <td data-label="Created">${when(d.createdAt)}</td>
    <td data-label="Attempts">${attempts(d)}</td>
    <td data-label="Actions">
      ${canChange && e.enabled ? plainForm(`/console/webhooks/${e.id}/deliveries/${d.id}/redeliver`, view.csrf, `Redeliver|${d.id}`) : ''}
    </td>
  </tr>`;
}

function controls(view: View, e: WebhookEndpoint): SafeHtml {
  const base = `/console/webhooks/${e.id}`;
  return html`<section class="card" aria-labelledby="manage-title">
    <h2 id="manage-title">Manage</h2>
    <div class="button-row">
      ${e.enabled ? plainForm(`${base}/test`, view.csrf, 'Send a test event', html``, 'primary') : ''}
      ${e.enabled ? plainForm(`${base}/disable`, view.csrf, 'Disable endpoint') : plainForm(`${base}/enable`, view.csrf, 'Enable endpoint', html``, 'primary')}
    </div>
    <form method="post" action="${base}/recover" class="inline-form">
      <input type="hidden" name="_csrf" value="${view.csrf}" />
      <label class="compact"
        >Failed since (UTC)
        <input
          type="datetime-local"
          name="since"
          required
          value="${new Date(view.ctx.deps.clock.now() - 86_400_000).toISOString().slice(0, 16)}"
      /></label>
      <button type="submit" class="secondary">Recover failed deliveries</button>
    </form>
    <h3>Needs your passkey</h3>
    <div class="button-row">
      ${dangerForm({
        kind: 'webhook.rotate-secret',
        target: e.id,
        label: 'Rotate signing secret',
        csrf: view.csrf,
        fields: html`<label class="compact"
          >Old secret also signs for (seconds)
          <input type="number" name="overlapSeconds" value="86400" min="0" max="604800" required
        /></label>`,
      })}
      ${dangerForm({ kind: 'webhook.delete', target: e.id, label: 'Delete endpoint', csrf: view.csrf })}
    </div>
  </section>`;
}

async function endpointPage(view: View, id: string) {
  const e = await getWebhookEndpoint(view.ctx.deps, view.tenantId, id);
  const deliveries = (await listWebhookDeliveries(view.ctx.deps, view.tenantId, id, {}, { limit: 50 })).items;
  const canChange = mayChange(view.signedIn.member.role, 'webhooks');
  const body = html`<section class="card wide" aria-labelledby="endpoint-title">
      <h2 id="endpoint-title">Endpoint</h2>
      <dl class="facts">
        <dt>URL</dt>
        <dd><code>${e.url}</code></dd>
        <dt>State</dt>
        <dd>${endpointState(e)}</dd>
        <dt>Events</dt>
        <dd>${e.events.join(', ')}</dd>
        <dt>Secret created</dt>
        <dd>
          ${when(e.secretCreatedAt)}${e.previousSecretExpiresAt ? html` (previous secret signs until ${when(e.previousSecretExpiresAt)})` : ''}
        </dd>
        <dt>Id</dt>
        <dd><code>${e.id}</code></dd>
      </dl>
    </section>
    ${canChange ? controls(view, e) : ''}
    <section class="card wide" aria-labelledby="log-title">
      <h2 id="log-title">Delivery log</h2>
      ${
        deliveries.length === 0
          ? empty('No deliveries yet.')
          : html`<div class="table-wrap">
              <table class="stack" id="delivery-log">
                <thead>
                  <tr>
                    <th scope="col">Delivery</th>
                    <th scope="col">Status</th>
                    <th scope="col">Created</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  ${deliveries.map((d) => deliveryRow(view, e, d, canChange))}
                </tbody>
              </table>
            </div>`
      }
      <p><a href="/console/webhooks/${e.id}">Refresh the log</a></p>
    </section>`;
  return { title: `Webhook endpoint`, nav: '/console/webhooks', body };
}

export function webhookEndpointPages(app: App): void {
  page(app, '/console/webhooks/:id', { params: EndpointParams }, async ({ view, params }) =>
    endpointPage(view, params.id),
  );

  const back = (id: string) => ({ redirect: `/console/webhooks/${id}` });
  action(
    app,
    '/console/webhooks/:id/test',
    { body: Empty, params: EndpointParams },
    'webhooks',
    async ({ view, params }) => {
      const delivery = await sendTestWebhook(view.ctx.deps, view.tenantId, params.id);
      await audit(view, 'webhook.test', params.id, { deliveryId: delivery.id });
      return back(params.id);
    },
  );
  for (const enabled of [true, false]) {
    action(
      app,
      `/console/webhooks/:id/${enabled ? 'enable' : 'disable'}`,
      { body: Empty, params: EndpointParams },
      'webhooks',
      async ({ view, params }) => {
        await updateWebhookEndpoint(view.ctx.deps, view.tenantId, params.id, { enabled });
        await audit(view, enabled ? 'webhook.enable' : 'webhook.disable', params.id, {});
        return back(params.id);
      },
    );
  }
  action(
    app,
    '/console/webhooks/:id/recover',
    { body: RecoverForm, params: EndpointParams },
    'webhooks',
    async ({ view, params, body }) => {
      const since = utcMinuteMs(body.since)!;
      const { requeued } = await recoverWebhookDeliveries(view.ctx.deps, view.tenantId, params.id, since);
      await audit(view, 'webhook.recover', params.id, { since: new Date(since).toISOString(), requeued });
      return back(params.id);
    },
  );
  action(
    app,
    '/console/webhooks/:id/deliveries/:deliveryId/redeliver',
    { body: Empty, params: DeliveryParams },
    'webhooks',
    async ({ view, params }) => {
      const delivery = await redeliverWebhook(view.ctx.deps, view.tenantId, params.deliveryId);
      await audit(view, 'webhook.redeliver', delivery.endpointId, { deliveryId: delivery.id });
      return back(delivery.endpointId);
    },
  );
}
