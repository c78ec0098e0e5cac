import { CredentialParams, type Credential } from '@presence/contract';
import { Type } from '@sinclair/typebox';
import { mayChange } from '../../../domain/console/permissions.js';
import { listCredentials, revokeCredential } from '../../../domain/credentials/manage-credentials.js';
import type { App } from '../../../http/types.js';
import { html, type SafeHtml } from '../../html.js';
import { action, Form, page, type View } from '../routes.js';
import { badge, stackedTable, plainForm, when } from '../widgets.js';

const SubjectQuery = Type.Object(
  { subject: Type.Optional(Type.String({ maxLength: 128, pattern: '^[A-Za-z0-9._:@/+=-]*$' })) },
  { additionalProperties: false },
);

function row(view: View, c: Credential, canChange: boolean): SafeHtml {
  return html`<tr>
    <th scope="row"><code>${c.id}</code></th>
    <td data-label="Subject"><code>${c.subject}</code></td>
    <td data-label="Attestation">${c.attestationFormat}</td>
    <td data-label="Backup">
      ${c.backupEligible ? (c.backedUp ? 'backed up (synced passkey)' : 'can be backed up') : 'device-bound'}
    </td>
    <td data-label="Enrolled">${when(c.createdAt)}</td>
    <td data-label="Last used">${when(c.lastUsedAt)}</td>
    <td data-label="State">${c.revokedAt ? badge('revoked', 'bad') : badge('active', 'ok')}</td>
    <td data-label="Actions">
      ${canChange && !c.revokedAt ? plainForm(`/console/credentials/${c.id}/revoke`, view.csrf, `Revoke|credential ${c.id}`, html``, 'danger') : ''}
    </td>
  </tr>`;
}

export function credentialPages(app: App): void {
  page(app, '/console/credentials', { querystring: SubjectQuery }, async ({ view, query }) => {
    const subject = query.subject ? query.subject : undefined;
    const { items } = await listCredentials(
      view.ctx.deps,
      view.tenantId,
      { subject, includeRevoked: true },
      { limit: 200 },
    );
    const canChange = mayChange(view.signedIn.member.role, 'credentials');
    const body = html`<section class="card wide" aria-labelledby="cred-title">
      <h2 id="cred-title">Enrolled authenticators</h2>
      <form method="get" action="/console/credentials" class="search">
        <label>Subject <input name="subject" value="${subject ?? ''}" /></label>
        <button type="submit">Show credentials</button>
      </form>
      ${stackedTable(
        ['Credential', 'Subject', 'Attestation', 'Backup', 'Enrolled', 'Last used', 'State', 'Actions'],
        items.map((c) => row(view, c, canChange)),
        'No credentials match.',
      )}
      <p class="muted">A revoked credential's later assertions are denied (CREDENTIAL_REVOKED).</p>
    </section>`;
    return { title: 'Credentials', nav: '/console/credentials', body };
  });

  action(
    app,
    '/console/credentials/:credentialId/revoke',
    { body: Form({}), params: CredentialParams },
    'credentials',
    async ({ view, params }) => {
      const revoked = await revokeCredential(view.ctx.deps, view.tenantId, params.credentialId);
      return { redirect: `/console/credentials?subject=${encodeURIComponent(revoked.subject)}` };
    },
  );
}
