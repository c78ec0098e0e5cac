import { Type } from '@sinclair/typebox';
import { cancelInvite } from '../../../domain/console/cancel-invite.js';
import { nameMemberPasskey } from '../../../domain/console/name-member-passkey.js';
import { mayChange } from '../../../domain/console/permissions.js';
import { CONSOLE_ROLES, type MemberRecord } from '../../../domain/console/ports.js';
import type { App } from '../../../http/types.js';
import { html, type SafeHtml } from '../../html.js';
import { action, Form, type View } from '../routes.js';
import { csrfField, dangerForm } from '../widgets.js';

export const PASSKEY_NAME_MAX = 60;
const NameForm = Form({ name: Type.String({ minLength: 1, maxLength: PASSKEY_NAME_MAX }) });
const PasskeyParams = Type.Object({
  memberId: Type.String({ pattern: '^mem_[0-9A-HJKMNP-TV-Z]{26}$' }),
  credentialId: Type.String({ pattern: '^cred_[0-9A-HJKMNP-TV-Z]{26}$' }),
});
const InviteParams = Type.Object({ inviteId: Type.String({ pattern: '^cin_[0-9A-HJKMNP-TV-Z]{26}$' }) });

/** Change a member's role: a dangerous change, approved with the changer's passkey. */
export function roleForm(view: View, m: MemberRecord): SafeHtml {
  return dangerForm({
    kind: 'member.change-role',
    target: m.id,
    label: `Change ${m.displayName}’s role`,
    csrf: view.csrf,
    fields: html`<label class="compact"
      >New role for ${m.displayName}
      <select name="role">
        ${CONSOLE_ROLES.map((r) => html`<option value="${r}" ${r === m.role ? html`selected` : ''}>${r}</option>`)}
      </select></label
    >`,
  });
}

/** Names a passkey by its device: the member's own, or (owners) anyone's. */
export function nameForm(
  view: View,
  m: MemberRecord,
  credentialId: string,
  current: string | undefined,
): SafeHtml {
  return html`<form
    method="post"
    action="/console/members/${m.id}/passkeys/${credentialId}/name"
    class="inline-form"
  >
    ${csrfField(view.csrf)}
    <label class="compact"
      >Device name
      <input
        name="name"
        required
        maxlength="${PASSKEY_NAME_MAX}"
        value="${current ?? ''}"
        placeholder="e.g. MacBook Touch ID"
    /></label>
    <button type="submit" class="secondary">Name passkey<span class="sr-only"> ${credentialId}</span></button>
  </form>`;
}

/** Day-one member controls without a passkey: cancelling an open invite, naming passkeys. */
export function memberControlRoutes(app: App): void {
  action(
    app,
    '/console/members/invites/:inviteId/cancel',
    { body: Form({}), params: InviteParams },
    'members',
    async ({ view, params }) => {
      await cancelInvite(view.ctx.deps, view.tenantId, params.inviteId);
      return { redirect: '/console/members' };
    },
  );
  action(
    app,
    '/console/members/:memberId/passkeys/:credentialId/name',
    { body: NameForm, params: PasskeyParams },
    null,
    async ({ view, params, body }) => {
      const mayNameOthers = mayChange(view.signedIn.member.role, 'members');
      await nameMemberPasskey(view.ctx.deps, view.ctx.settings, view.signedIn.member, {
        ...params,
        name: body.name,
        mayNameOthers,
      });
      return { redirect: '/console/members' };
    },
  );
}
