import { WEBHOOK_EVENT_TYPES, type WebhookEndpoint } from '@presence/contract';
import { mayChange } from '../../../domain/console/permissions.js';
import { listWebhookEndpoints } from '../../../domain/webhooks/manage-webhook-endpoints.js';
import type { App } from '../../../http/types.js';
import { html, type SafeHtml } from '../../html.js';
import { page, type View } from '../routes.js';
import { badge, csrfField, empty, when } from '../widgets.js';
import { NEW_ENDPOINT_TARGET } from './webhook-changes.js';

export function endpointState(e: WebhookEndpoint): SafeHtml {
  if (!e.enabled) return badge(`disabled${e.disabledReason ? `: ${e.disabledReason}` : ''}`, 'bad');
  if (e.failingSince) return badge(`failing since ${when(e.failingSince)}`, 'warn');
  return badge('enabled', 'ok');
}

function createForm(view: View): SafeHtml {
  return html`<section class="card" aria-labelledby="create-hook-title">
    <h2 id="create-hook-title">Add an endpoint</h2>
    <form
      method="post"
      action="/console/approve"
      data-approve="webhook.create"
      data-target="${NEW_ENDPOINT_TARGET}"
    >
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
      <p class="muted">An endpoint receives your tenant's events, so adding one asks for your passkey.</p>
      <button type="submit">Add endpoint</button>
    </form>
  </section>`;
}

async function webhooksBody(view: View): Promise<SafeHtml> {
  const endpoints = (await listWebhookEndpoints(view.ctx.deps, view.tenantId, { limit: 200 })).items;
  return html`<section class="card wide" aria-labelledby="hooks-title">
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
}
