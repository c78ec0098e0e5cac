import { Type } from '@sinclair/typebox';
import { listMemberPasskeys, removeMemberPasskey } from '../../../domain/console/manage-members.js';
import { mayChange } from '../../../domain/console/permissions.js';
import { CONSOLE_ROLES, type MemberRecord } from '../../../domain/console/ports.js';
import type { App } from '../../../http/types.js';
import { html, type SafeHtml } from '../../html.js';
import { action, Form, page, type View } from '../routes.js';
import { RegisterCredentialBody } from '@presence/contract';
import { addMemberPasskey } from '../../../domain/console/add-member-passkey.js';
import { checkCsrf, consoleRequest, memberOf } from '../console-context.js';
import { dangerForm, plainForm, when } from '../widgets.js';
import { nameForm, PASSKEY_NAME_MAX, roleForm } from './member-controls.js';
import { consoleQuorum, QUORUM_CHOICES } from '../../../domain/console/console-quorum.js';
import { APPROVERS_TARGET } from './settings-changes.js';

const AddPasskeyBody = Type.Object(
  {
    ...RegisterCredentialBody.properties,
    deviceName: Type.Optional(Type.String({ maxLength: PASSKEY_NAME_MAX })),
  },
  { additionalProperties: false },
);

const PasskeyParams = Type.Object({
  memberId: Type.String({ pattern: '^mem_[0-9A-HJKMNP-TV-Z]{26}$' }),
  credentialId: Type.String({ pattern: '^cred_[0-9A-HJKMNP-TV-Z]{26}$' }),
});

async function memberCard(view: View, m: MemberRecord, owner: boolean): Promise<SafeHtml> {
  const passkeys = await listMemberPasskeys(view.ctx.deps, view.ctx.settings, m.id);
  const names = await view.ctx.deps.store.console.passkeyNames.ofMember(view.tenantId, m.id);
  const self = m.id === view.signedIn.member.id;
  return html`<li class="member">
    <p><strong>${m.displayName}</strong> · ${m.role}${self ? ' (you)' : ''} · joined ${when(m.createdAt)}</p>
    <ul class="plain">
      ${passkeys.map(
        (p) =>
          html`<li>
            <strong>${names.get(p.id) ?? 'Unnamed passkey'}</strong> <code>${p.id}</code> ·
            ${p.backedUp ? 'synced' : 'device-bound'} · last used ${when(p.lastUsedAt)}
            ${self || owner ? nameForm(view, m, p.id, names.get(p.id)) : ''}
            ${owner && passkeys.length > 1 ? plainForm(`/console/members/${m.id}/passkeys/${p.id}/remove`, view.csrf, `Remove passkey|${p.id}`, html``, 'danger') : ''}
          </li>`,
      )}
    </ul>
    ${
      self
        ? html`<p>
            <button type="button" class="secondary" data-add-passkey="${m.id}">
              Add a passkey on this device
            </button>
            <span id="passkey-status" class="status" role="status" aria-live="polite"></span>
          </p>`
        : ''
    }
    ${owner && !self ? roleForm(view, m) : ''}
    ${owner && !self ? dangerForm({ kind: 'member.remove', target: m.id, label: `Remove ${m.displayName}`, csrf: view.csrf }) : ''}
  </li>`;
}

async function membersBody(view: View, shown?: SafeHtml): Promise<SafeHtml> {
  const { deps } = view.ctx;
  const owner = mayChange(view.signedIn.member.role, 'members');
  const members = await deps.store.console.members.list(view.tenantId);
  const invites = await deps.store.console.invites.listOpen(view.tenantId, deps.clock.now());
  const cards = await Promise.all(members.map((m) => memberCard(view, m, owner)));
  return html`${shown ?? ''}
    <section class="card wide" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <ul class="members">
        ${cards}
      </ul>
    </section>
    <section class="card wide" aria-labelledby="invites-title">
      <h2 id="invites-title">Open invites</h2>
      ${
        invites.length === 0
          ? html`<p class="muted">No open invites.</p>`
          : html`<ul class="plain">
              ${invites.map(
                (i) =>
                  html`<li>
                    ${i.role} · made ${when(i.createdAt)} · valid until ${when(i.expiresAt)}
                    ${owner ? plainForm(`/console/members/invites/${i.id}/cancel`, view.csrf, `Cancel invite|for a ${i.role}, made ${when(i.createdAt)}`, html``, 'danger') : ''}
                  </li>`,
              )}
            </ul>`
      }
      ${
        owner
          ? dangerForm({
              kind: 'member.invite',
              target: 'new',
              label: 'Create an invite link',
              csrf: view.csrf,
              fields: html`<label class="compact"
                >Role of the new member
                <select name="role">
                  ${CONSOLE_ROLES.map((r) => html`<option value="${r}" ${r === 'developer' ? html`selected` : ''}>${r}</option>`)}
                </select></label
              >`,
            })
          : ''
      }
    </section>
    ${await approversSection(view, owner)}
    <section class="card wide" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Your sessions</h2>
      ${plainForm('/console/sign-out', view.csrf, 'Sign out everywhere', html`<input type="hidden" name="everywhere" value="1" />`)}
    </section>`;
}

/** How many members approve a dangerous change; owners change it (itself a dangerous change). */
async function approversSection(view: View, owner: boolean): Promise<SafeHtml> {
  const required = await consoleQuorum(view.ctx.deps, view.tenantId);
  return html`<section class="card wide" aria-labelledby="approvers-title">
    <h2 id="approvers-title">Approvers of dangerous changes</h2>
    <p>
      Dangerous changes (policy, powerful keys, webhooks, members, this setting) need
      <strong id="approvers-required">${required} approver${required === 1 ? '' : 's'}</strong>.
      ${required > 1 ? html`Yours is the first; the others approve on the approval page, then a member applies the change under <a href="/console/changes">Changes awaiting approval</a>.` : 'Your passkey alone approves them.'}
    </p>
    ${
      owner
        ? dangerForm({
            kind: 'settings.approvers',
            target: APPROVERS_TARGET,
            label: 'Change the approvers required',
            csrf: view.csrf,
            fields: html`<label class="compact"
              >Approvers required
              <select name="required" data-number>
                ${QUORUM_CHOICES.map((n) => html`<option value="${n}" ${n === required ? html`selected` : ''}>${n}</option>`)}
              </select></label
            >`,
          })
        : ''
    }
  </section>`;
}

export function memberPages(app: App): void {
  // Its registration options come from the approved change `member.passkey.start`.
  app.post('/console/api/passkeys', { schema: { hide: true, body: AddPasskeyBody } }, async (request) => {
    checkCsrf(request);
    const { member } = memberOf(request);
    const { ctx } = consoleRequest(request);
    return { credential: await addMemberPasskey(ctx.deps, ctx.settings, member, request.body) };
  });

  page(app, '/console/members', {}, async ({ view }) => ({
    title: 'Members',
    nav: '/console/members',
    body: await membersBody(view),
  }));

  action(
    app,
    '/console/members/:memberId/passkeys/:credentialId/remove',
    { body: Form({}), params: PasskeyParams },
    'members',
    async ({ view, params }) => {
      await removeMemberPasskey(view.ctx.deps, view.ctx.settings, view.tenantId, params);
      return { redirect: '/console/members' };
    },
  );
}
