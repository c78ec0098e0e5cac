import { SCOPES, type ApiKey } from '@presence/contract';
import { Type } from '@sinclair/typebox';
import { createApiKey } from '../../../domain/api-keys/create-api-key.js';
import { OWNER_SCOPES } from '../../../domain/api-keys/check-grantable-scopes.js';
import { listApiKeys } from '../../../domain/api-keys/manage-api-keys.js';
import { mayChange } from '../../../domain/console/permissions.js';
import type { App } from '../../../http/types.js';
import { html, type SafeHtml } from '../../html.js';
import { action, Form, page, type View } from '../routes.js';
import { badge, csrfField, dangerForm, stackedTable, secretOnce, when } from '../widgets.js';

const CreateKeyForm = Form({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  scopes: Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s))), { minItems: 1, uniqueItems: true }),
});

function state(k: ApiKey): SafeHtml {
  if (k.revokedAt) return badge('revoked', 'bad');
  if (k.expiresAt) return badge(`expires ${when(k.expiresAt)}`, 'warn');
  return badge('active', 'ok');
}

function keyRow(view: View, k: ApiKey, canChange: boolean): SafeHtml {
  const active = k.revokedAt === null;
  const controls =
    canChange && active
      ? html`${dangerForm({
          kind: 'api-key.rotate',
          target: k.keyId,
          label: `Rotate ${k.name}`,
          csrf: view.csrf,
          fields: html`<label class="compact"
            >Old key works for (seconds)
            <input type="number" name="graceSeconds" value="86400" min="0" max="2592000" required
          /></label>`,
        })}
        ${dangerForm({ kind: 'api-key.revoke', target: k.keyId, label: `Revoke ${k.name}`, csrf: view.csrf })}`
      : '';
  return html`<tr>
    <th scope="row">${k.name}</th>
    <td data-label="Prefix"><code>${k.prefix}…</code></td>
    <td data-label="Scopes" class="scopes">
      ${k.scopes.length === SCOPES.length ? html`all ${SCOPES.length} scopes` : k.scopes.join(', ')}
    </td>
    <td data-label="Created">${when(k.createdAt)}</td>
    <td data-label="Last used">${when(k.lastUsedAt)}</td>
    <td data-label="State">${state(k)}</td>
    <td data-label="Actions" class="controls">${controls}</td>
  </tr>`;
}

function createForm(view: View): SafeHtml {
  return html`<section class="card" aria-labelledby="create-key-title">
    <h2 id="create-key-title">Create an API key</h2>
    <form method="post" action="/console/keys">
      ${csrfField(view.csrf)}
      <p><label for="key-name">Name</label><input id="key-name" name="name" required maxlength="100" /></p>
      <fieldset>
        <legend>Scopes (grant only what the caller needs)</legend>
        <div class="checks">
          ${SCOPES.map(
            (s) =>
              html`<label><input type="checkbox" name="scopes" value="${s}" /> <code>${s}</code></label>`,
          )}
        </div>
      </fieldset>
      <button type="submit">Create API key</button>
    </form>
  </section>`;
}

async function keysBody(view: View, created?: SafeHtml): Promise<SafeHtml> {
  const keys = (await listApiKeys(view.ctx.deps, view.tenantId, { limit: 200 })).items;
  const canChange = mayChange(view.signedIn.member.role, 'keys');
  return html`${created ?? ''}
    <section class="card wide" aria-labelledby="keys-title">
      <h2 id="keys-title">Keys</h2>
      ${stackedTable(
        ['Name', 'Prefix', 'Scopes', 'Created', 'Last used', 'State', 'Actions'],
        keys.map((k) => keyRow(view, k, canChange)),
        'No API keys.',
      )}
      <p class="muted">Rotating or revoking a key asks for your passkey.</p>
    </section>
    ${canChange ? createForm(view) : ''}`;
}

export function keyPages(app: App): void {
  page(app, '/console/keys', {}, async ({ view }) => ({
    title: 'API keys',
    nav: '/console/keys',
    body: await keysBody(view),
  }));

  action(app, '/console/keys', { body: CreateKeyForm }, 'keys', async ({ view, body }) => {
    // A member allowed to manage keys acts for the tenant's owner, like the CLI: any scope is grantable.
    const input = { name: body.name, scopes: body.scopes };
    const { key, secret } = await createApiKey(view.ctx.deps, view.tenantId, input, OWNER_SCOPES);
    return {
      title: 'API keys',
      nav: '/console/keys',
      body: await keysBody(view, secretOnce(`API key ${key.name}`, secret)),
    };
  });
}
