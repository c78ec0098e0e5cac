import { Type } from '@sinclair/typebox';
import { openChangeLink } from '../../../domain/console/change-link.js';
import { cancelChangeRequest, refreshChange } from '../../../domain/console/console-changes.js';
import type { ConsoleChangeRecord, MemberRecord } from '../../../domain/console/ports.js';
import { notFound } from '../../../domain/errors.js';
import type { App } from '../../../http/types.js';
import { html, type SafeHtml } from '../../html.js';
import { compareFields } from '../../links/flatten-action.js';
import { action, Form, page, type View } from '../routes.js';
import { badge, empty, plainForm, secretOnce, when } from '../widgets.js';
import { applyChange, mayApply } from './change-requests.js';

const ChangeParams = Type.Object({ id: Type.String({ pattern: '^chg_[0-9A-HJKMNP-TV-Z]{26}$' }) });

/** Before and after as one table: each field once, dotted labels, every value as text. */
export function beforeAfterTable(before: unknown, after: unknown, caption: string): SafeHtml {
  // Nothing before (a new key) or after (a deleted endpoint): every field of that side is "—".
  const { labels, before: b, after: a } = compareFields(before, after);
  return html`<div class="table-wrap">
    <table class="before-after">
      <caption>
        ${caption}
      </caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        ${labels.map(
          (label) =>
            html`<tr class="${b.get(label) === a.get(label) ? 'same' : 'changed'}">
              <th scope="row">${label === '' ? '(the whole)' : label}</th>
              <td>${b.get(label) ?? '—'}</td>
              <td>${a.get(label) ?? '—'}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

const STATUS_BADGE: Record<ConsoleChangeRecord['status'], 'ok' | 'bad' | 'warn' | 'plain'> = {
  pending: 'warn',
  applied: 'ok',
  stale: 'bad',
  rejected: 'bad',
  expired: 'plain',
  cancelled: 'plain',
};

async function changeItem(
  view: View,
  found: ConsoleChangeRecord,
  members: MemberRecord[],
): Promise<SafeHtml> {
  const { record, approval, approved } = await refreshChange(view.ctx.deps, view.ctx.settings, found);
  const me = view.signedIn.member;
  const requester = members.find((m) => m.id === record.requesterId)?.displayName ?? record.requesterId;
  const open = record.status === 'pending';
  const link = open ? openChangeLink(view.ctx.deps, record) : '';
  const what = `${record.kind} on ${record.target}`;
  const state =
    open && approval === 'approved' ? 'approved, ready to apply' : open ? approval : record.status;
  const applicable = open && approval === 'approved' && (await mayApply(view.ctx, record, me));
  return html`<li class="change">
    <h3>${what} ${badge(state, open && approval === 'approved' ? 'ok' : STATUS_BADGE[record.status])}</h3>
    <p>
      Asked by <strong>${requester}</strong> at ${when(record.createdAt)} · ${approved} of ${record.required}
      approvals
      given${record.finishedBy ? html` · ${record.status} by ${members.find((m) => m.id === record.finishedBy)?.displayName ?? record.finishedBy} at ${when(record.updatedAt)}` : ''}
    </p>
    ${beforeAfterTable(record.before, record.after, `What ${what} changes`)}
    ${
      open
        ? html`<p>
              Binding code <strong class="binding-code">${record.bindingCode}</strong> (the approval page
              shows it too). <a href="${link}">Open the approval page</a> (its QR code takes it to a phone) or
              send the link to the approvers:
            </p>
            <div class="copy-row">
              <code id="link-${record.id}">${link}</code>
              <button type="button" class="secondary" data-copy="link-${record.id}">
                Copy the approval link
              </button>
            </div>`
        : ''
    }
    ${applicable ? plainForm(`/console/changes/${record.id}/apply`, view.csrf, `Apply change|${what}`, html``, 'danger') : ''}
    ${open && (me.id === record.requesterId || me.role === 'owner') ? plainForm(`/console/changes/${record.id}/cancel`, view.csrf, `Cancel change|${what}`) : ''}
  </li>`;
}

async function changesBody(view: View): Promise<SafeHtml> {
  const { deps } = view.ctx;
  const [changes, members] = await Promise.all([
    deps.store.console.changes.list(view.tenantId, 50),
    deps.store.console.members.list(view.tenantId),
  ]);
  const items = await Promise.all(changes.map((c) => changeItem(view, c, members)));
  const open = items.filter((_, i) => changes[i]!.status === 'pending');
  return html`<section class="card wide" aria-labelledby="changes-title">
      <h2 id="changes-title">Changes awaiting approval</h2>
      ${
        open.length === 0
          ? empty('No change is waiting for approvers.')
          : html`<ul class="plain changes">
              ${open}
            </ul>`
      }
    </section>
    <section class="card wide" aria-labelledby="done-title">
      <h2 id="done-title">Recent changes that needed approvers</h2>
      ${
        items.length === open.length
          ? empty('None yet.')
          : html`<ul class="plain changes">
              ${items.filter((_, i) => changes[i]!.status !== 'pending')}
            </ul>`
      }
    </section>`;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `/console/changes`: dangerous changes that wait for 2 or 3 approvers, applied or cancelled here. */
export function changePages(app: App): void {
  page(app, '/console/changes', {}, async ({ view }) => ({
    title: 'Changes awaiting approval',
    nav: '/console/changes',
    body: await changesBody(view),
  }));

  action(
    app,
    '/console/changes/:id/apply',
    { body: Form({}), params: ChangeParams },
    null,
    async ({ view, params, request }) => {
      const result = await applyChange(view.ctx, view.signedIn.member, params.id, request.id);
      if (!result.secret && !result.link) return { redirect: result.redirect ?? '/console/changes' };
      // A secret is shown once, a link (a removed member's keys) is followed: the page stays for both.
      return {
        title: 'Changes awaiting approval',
        nav: '/console/changes',
        body: html`<p class="callout ok" role="status">${result.message}</p>
          ${result.secret ? secretOnce(capitalized(result.secretLabel ?? 'the new secret'), result.secret) : ''}
          ${result.link ? html`<p><a href="${result.link.href}">${result.link.text}</a></p>` : ''}
          <p><a href="/console/changes">Back to the changes</a></p>`,
      };
    },
  );

  action(
    app,
    '/console/changes/:id/cancel',
    { body: Form({}), params: ChangeParams },
    null,
    async ({ view, params }) => {
      const record = await view.ctx.deps.store.console.changes.get(view.tenantId, params.id);
      if (!record) throw notFound('the change');
      await cancelChangeRequest(view.ctx.deps, view.ctx.settings, view.signedIn.member, record);
      return { redirect: '/console/changes' };
    },
  );
}
