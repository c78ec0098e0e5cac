import { Type } from '@sinclair/typebox';
import { listDeniedAttempts, type DeniedAttempt } from '../../../domain/presence/list-denied-attempts.js';
import type { App } from '../../../http/types.js';
import { html, type SafeHtml } from '../../html.js';
import { page } from '../routes.js';
import { empty, when } from '../widgets.js';

const PAGE_SIZE = 100;
const DeniedQuery = Type.Object(
  { before: Type.Optional(Type.String({ pattern: '^chl_[0-9A-HJKMNP-TV-Z]{26}$' })) },
  { additionalProperties: false },
);

function row(d: DeniedAttempt): SafeHtml {
  return html`<tr>
    <td data-label="When">${when(d.decidedAt)}</td>
    <th scope="row">${d.subject ?? html`<span class="muted">no subject</span>`}</th>
    <td data-label="Decision"><code>${d.decision}</code></td>
    <td data-label="Reason">${d.reason ?? ''}</td>
    <td data-label="Challenge">
      <code>${d.challengeId}</code>${d.purpose ? html`<br /><span class="muted">${d.purpose}</span>` : ''}
    </td>
  </tr>`;
}

/** Denied attempts: every presence check of the tenant that did not end in PRESENCE_VERIFIED. */
export function deniedPages(app: App): void {
  page(app, '/console/denied', { querystring: DeniedQuery }, async ({ view, query }) => {
    const result = await listDeniedAttempts(view.ctx.deps, view.tenantId, {
      limit: PAGE_SIZE,
      beforeId: query.before,
    });
    const last = result.items.at(-1)?.challengeId;
    const body = html`<section class="card wide" aria-labelledby="denied-title">
      <h2 id="denied-title">Denied presence checks (newest first)</h2>
      ${
        result.items.length === 0
          ? empty('No denied attempts.')
          : html`<div class="table-wrap">
              <table class="stack" id="denied-attempts">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Subject</th>
                    <th scope="col">Decision</th>
                    <th scope="col">Reason</th>
                    <th scope="col">Challenge</th>
                  </tr>
                </thead>
                <tbody>
                  ${result.items.map(row)}
                </tbody>
              </table>
            </div>`
      }
      ${result.hasMore && last ? html`<p><a href="/console/denied?before=${last}">Older denials</a></p>` : ''}
      <p class="muted">
        Each challenge has exactly one stored decision; a denial is answered with 200 and never issues a
        receipt. Webhook receivers get the same as <code>presence.denied</code>.
      </p>
    </section>`;
    return { title: 'Denied attempts', nav: '/console/denied', body };
  });
}
