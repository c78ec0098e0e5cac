import { Type } from '@sinclair/typebox';
import { cancelInvite } from '../../../domain/console/cancel-invite.js';
import { CONSOLE_ROLES, type MemberRecord } from '../../../domain/console/ports.js';
import type { App } from '../../../http/types.js';
import { html, type SafeHtml } from '../../html.js';
import { action, Form, type View } from '../routes.js';
import { dangerForm } from '../widgets.js';

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

/** Day-one member controls without a passkey: cancelling an open invite. */
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
}
