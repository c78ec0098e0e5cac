import type { App } from '../../../http/types.js';
import { html } from '../../html.js';
import { page } from '../routes.js';
import { empty, when } from '../widgets.js';

export function auditPages(app: App): void {
  page(app, '/console/audit', {}, async ({ view }) => {
    const { deps } = view.ctx;
    const entries = await deps.store.console.audit.list(view.tenantId, 200);
    const names = new Map(
      (await deps.store.console.members.list(view.tenantId)).map((m) => [m.id, m.displayName]),
    );
    const body = html`<section class="card wide" aria-labelledby="audit-title">
      <h2 id="audit-title">Every console action (newest first)</h2>
      ${
        entries.length === 0
          ? empty('Nothing yet.')
          : html`<div class="table-wrap">
              <table class="stack" id="audit-log">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Who</th>
                    <th scope="col">Action</th>
                    <th scope="col">Target</th>
                    <th scope="col">Approved by receipt</th>
                  </tr>
                </thead>
                <tbody>
                  ${entries.map(
                    (e) =>
                      html`<tr>
                        <td data-label="When">${when(e.createdAt)}</td>
                        <td data-label="Who">
                          ${e.memberId ? (names.get(e.memberId) ?? e.memberId) : 'operator'}
                        </td>
                        <th scope="row"><code>${e.action}</code></th>
                        <td data-label="Target"><code>${e.target ?? ''}</code></td>
                        <td data-label="Approved by receipt">
                          ${e.receiptId ? html`<code title="${e.receiptHashHex ?? ''}">${e.receiptId}</code>` : html`<span class="muted">no passkey needed</span>`}
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
      <p class="muted">
        Receipts of console approvals are signed by the service like any receipt and kept in the console's own
        receipt log (see docs/console.md).
      </p>
    </section>`;
    return { title: 'Audit log', nav: '/console/audit', body };
  });
}
