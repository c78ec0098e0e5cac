import { SCOPES, type ApiKey, type Scope } from '@presence/contract';
import { Type } from '@sinclair/typebox';
import { createMemberKey } from '../../../domain/console/create-member-key.js';
import { listKeysWithCreators, type KeyWithCreator } from '../../../domain/console/key-creators.js';
import { GATED_SCOPES, mayChange, scopesOfRole } from '../../../domain/console/permissions.js';
import type { App } from '../../../http/types.js';
import { html, type SafeHtml } from '../../html.js';
import { action, Form, page, type View } from '../routes.js';
import { badge, csrfField, dangerForm, stackedTable, secretOnce, when } from '../widgets.js';
import { NEW_KEY_TARGET } from './key-changes.js';
import { SCOPE_DESCRIPTIONS, SCOPE_PRESETS } from './key-scopes.js';

// No minItems: an empty choice reaches the domain, which says "Choose at least one scope".
const CreateKeyForm = Form({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  scopes: Type.Optional(Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s))), { uniqueItems: true })),
});

function state(k: ApiKey): SafeHtml {
  if (k.revokedAt) return badge('revoked', 'bad');
  if (k.expiresAt) return badge(`expires ${when(k.expiresAt)}`, 'warn');
  return badge('active', 'ok');
}

/** "Dana (admin)", "Dana (removed)" or "API or CLI", with what calls for a rotation. */
function creatorCell({ creator, concern }: KeyWithCreator): SafeHtml {
  const who =
    creator === null
      ? html`<span class="muted">API or CLI</span>`
      : html`${creator.name} <span class="muted">(${creator.removed ? 'removed' : creator.role})</span>`;
  return concern === null ? who : html`${who}<br />${badge('rotate or revoke', 'warn')} ${concern}`;
}

/** The working keys whose creator left or lost the role for their scopes, with what to do. */
function keysToReview(keys: readonly KeyWithCreator[]): SafeHtml {
  const flagged = keys.filter((k) => k.concern !== null);
  if (flagged.length === 0) return html``;
  return html`<div class="callout" role="note" id="keys-to-review">
    <p>
      ${badge('review', 'warn')}
      ${flagged.length === 1 ? 'This key was' : `These ${flagged.length} keys were`} created by a member who
      has since been removed or may no longer use their scopes. That member may still hold the secret, and the
      key keeps working: rotate it (the new secret goes to you) or revoke it.
    </p>
    <ul>
      ${flagged.map((k) => html`<li><strong>${k.key.name}</strong> (<code>${k.key.prefix}…</code>): ${k.concern}</li>`)}
    </ul>
  </div>`;
}

function keyRow(view: View, row: KeyWithCreator, roleScopes: readonly Scope[] | null): SafeHtml {
  const k = row.key;
  const active = k.revokedAt === null;
  const canChange = roleScopes !== null && k.scopes.every((s) => roleScopes.includes(s));
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
    <td data-label="Created by">${creatorCell(row)}</td>
    <td data-label="Last used">${when(k.lastUsedAt)}</td>
    <td data-label="State">${state(k)}</td>
    <td data-label="Actions" class="controls">${controls}</td>
  </tr>`;
}

function scopeChoice(scope: Scope, allowed: boolean, role: string): SafeHtml {
  const gated = GATED_SCOPES.includes(scope);
  return html`<label class="scope-choice"
    ><input type="checkbox" name="scopes" value="${scope}" ${allowed ? '' : html`disabled`} />
    <span
      ><code>${scope}</code>${gated ? html` ${badge('passkey', 'warn')}` : ''}
      <span class="muted"
        >${SCOPE_DESCRIPTIONS[scope]}${allowed ? '' : ` (not for the ${role} role)`}</span
      ></span
    ></label
  >`;
}

function createForm(view: View, roleScopes: readonly Scope[]): SafeHtml {
  const role = view.signedIn.member.role;
  return html`<section class="card wide" aria-labelledby="create-key-title">
    <h2 id="create-key-title">Create an API key</h2>
    <form
      method="post"
      action="/console/keys"
      data-approve="api-key.create"
      data-target="${NEW_KEY_TARGET}"
      data-approve-when="${GATED_SCOPES.join(' ')}"
    >
      ${csrfField(view.csrf)}
      <p><label for="key-name">Name</label><input id="key-name" name="name" required maxlength="100" /></p>
      <fieldset>
        <legend>Scopes (grant only what the caller needs)</legend>
        <p class="presets" data-presets hidden>
          Start from:
          ${SCOPE_PRESETS.map(
            (p) =>
              html`<button type="button" class="secondary" data-preset="${p.scopes.join(' ')}">
                ${p.label}
              </button>`,
          )}
        </p>
        <div class="checks scope-list">
          ${SCOPES.map((s) => scopeChoice(s, roleScopes.includes(s), role))}
        </div>
      </fieldset>
      <p class="muted">
        A key with a scope marked ${badge('passkey', 'warn')} can change what your passkey protects, so it is
        created only after your passkey approves it.
      </p>
      <button type="submit">Create API key</button>
    </form>
  </section>`;
}

async function keysBody(view: View, created?: SafeHtml): Promise<SafeHtml> {
  const keys = await listKeysWithCreators(view.ctx.deps, view.tenantId);
  const role = view.signedIn.member.role;
  const roleScopes = mayChange(role, 'keys') ? scopesOfRole(role) : null;
  return html`${created ?? ''}
    <section class="card wide" aria-labelledby="keys-title">
      <h2 id="keys-title">Keys</h2>
      ${keysToReview(keys)}
      ${stackedTable(
        ['Name', 'Prefix', 'Scopes', 'Created', 'Created by', 'Last used', 'State', 'Actions'],
        keys.map((k) => keyRow(view, k, roleScopes)),
        'No API keys.',
      )}
      <p class="muted">
        Keys belong to the tenant, not to the member who created them: they keep working when that member
        leaves or changes role. Rotating or revoking a key asks for your passkey; you can change only keys
        whose scopes your role may use.
      </p>
    </section>
    ${roleScopes ? createForm(view, roleScopes) : ''}`;
}

export function keyPages(app: App): void {
  page(app, '/console/keys', {}, async ({ view }) => ({
    title: 'API keys',
    nav: '/console/keys',
    body: await keysBody(view),
  }));

  action(app, '/console/keys', { body: CreateKeyForm }, 'keys', async ({ view, body }) => {
    // Without the passkey: only scopes the role may use, and none that changes what the gate protects.
    const input = { name: body.name, scopes: body.scopes ?? [] };
    const { key, secret } = await createMemberKey(view.ctx.deps, view.signedIn.member, input, false);
    return {
      title: 'API keys',
      nav: '/console/keys',
      body: await keysBody(view, secretOnce(`API key ${key.name}`, secret)),
    };
  });
}
