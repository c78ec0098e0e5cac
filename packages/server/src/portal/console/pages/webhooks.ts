import { WEBHOOK_EVENT_TYPES, WebhookUrl, type WebhookEndpoint } from '@presence/contract';
import { Type } from '@sinclair/typebox';
import { mayChange } from '../../../domain/console/permissions.js';
import {
  createWebhookEndpoint,
  listWebhookEndpoints,
} from '../../../domain/webhooks/manage-webhook-endpoints.js';
import type { App } from '../../../http/types.js';
import { html, type SafeHtml } from '../../html.js';
import { action, Form, page, type View } from '../routes.js';
import { badge, csrfField, empty, secretOnce, when } from '../widgets.js';

const CreateEndpointForm = Form({
  url: WebhookUrl,
  description: Type.Optional(Type.String({ maxLength: 200 })),
  events: Type.Array(Type.Union(WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t))), {
    minItems: 1,
    uniqueItems: true,
  }),
});

export function endpointState(e: WebhookEndpoint): SafeHtml {
  if (!e.enabled) return badge(`disabled${e.disabledReason ? `: ${e.disabledReason}` : ''}`, 'bad');
  if (e.failingSince) return badge(`failing since ${when(e.failingSince)}`, 'warn');
  return badge('enabled', 'ok');
}

function createForm(view: View): SafeHtml {
  return html`<section class="card" aria-labelledby="create-hook-title">
    <h2 id="create-hook-title">Add an endpoint</h2>
    <form method="post" action="/console/webhooks">
      ${csrfField(view.csrf)}
      <p>
        <label for="hook-url">URL (https, publicly reachable)</label
        ><input id="hook-url" name="url" type="url" required />
      </p>
      <p>
        <label for="hook-description">Description (optional)</label
        ><input id="hook-description" name="description" maxlength="200" />
      </p>
      <fieldset>
        <legend>Events</legend>
        <div class="checks">
          ${WEBHOOK_EVENT_TYPES.map(
            (t) =>
              html`<label
                ><input type="checkbox" name="events" value="${t}" checked /> <code>${t}</code></label
              >`,
          )}
        </div>
      </fieldset>
      <button type="submit">Add endpoint</button>
    </form>
  </section>`;
}

async function webhooksBody(view: View, created?: SafeHtml): Promise<SafeHtml> {
  const endpoints = (await listWebhookEndpoints(view.ctx.deps, view.tenantId, { limit: 200 })).items;
  return html`${created ?? ''}
    <section class="card wide" aria-labelledby="hooks-title">
      <h2 id="hooks-title">Endpoints</h2>
      ${
        endpoints.length === 0
          ? empty('No webhook endpoints yet.')
          : html`<div class="table-wrap">
              <table class="stack">
                <thead>
                  <tr>
                    <th scope="col">URL</th>
                    <th scope="col">Events</th>
                    <th scope="col">State</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  ${endpoints.map(
                    (e) =>
                      html`<tr>
                        <th scope="row">
                          <a href="/console/webhooks/${e.id}">${e.url}</a
                          >${e.description ? html`<br /><span class="muted">${e.description}</span>` : ''}
                        </th>
                        <td data-label="Events" class="scopes">${e.events.join(', ')}</td>
                        <td data-label="State">${endpointState(e)}</td>
                        <td data-label="Created">${when(e.createdAt)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </section>
    ${mayChange(view.signedIn.member.role, 'webhooks') ? createForm(view) : ''}`;
}

export function webhookPages(app: App): void {
  page(app, '/console/webhooks', {}, async ({ view }) => ({
    title: 'Webhooks',
    nav: '/console/webhooks',
    body: await webhooksBody(view),
  }));

  action(app, '/console/webhooks', { body: CreateEndpointForm }, 'webhooks', async ({ view, body }) => {
    const { endpoint, secret } = await createWebhookEndpoint(view.ctx.deps, view.tenantId, {
      url: body.url,
      events: body.events,
      ...(body.description ? { description: body.description } : {}),
    });
    const shown = html`${secretOnce('Signing secret', secret)}
      <p>
        <a href="/console/webhooks/${endpoint.id}">Open the endpoint ${endpoint.url}</a> to send a test event.
      </p>`;
    return { title: 'Webhooks', nav: '/console/webhooks', body: await webhooksBody(view, shown) };
  });
}
