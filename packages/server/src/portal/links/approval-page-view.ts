import type { ApprovalPageState } from '@presence/contract';
import type { ApprovalPeople } from '../../domain/console/approval-people.js';
import { html, SafeHtml } from '../html.js';
import { beforeAfterSection } from './before-after-view.js';
import { flattenAction } from './flatten-action.js';
import { linkLayout } from './link-layout.js';
import { revealText } from './visible-text.js';
import { emptyFindings, findingsWarning, shownText, type TextFindings } from './shown-text.js';

export interface ApprovalPageInput {
  state: ApprovalPageState;
  /** SVG of a QR code of the page's own URL (made by the `qrcode` library). */
  qrSvg: string;
  /** A console change's people by name and role (domain/console/approval-people.ts); else null. */
  people?: ApprovalPeople | null;
}

const FINAL: Record<Exclude<ApprovalPageState['status'], 'pending'>, [string, string]> = {
  approved: ['Approved', 'Enough approvers approved this action. Nothing is left to do here.'],
  rejected: ['Rejected', 'Too few approvers are left to approve it. It will not happen.'],
  expired: ['Expired', 'Time ran out before enough approvers decided. Ask the requester for a new request.'],
  cancelled: ['Cancelled', 'The requester withdrew this request. Nothing is left to do here.'],
};

export function utc(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

function statusSection(s: ApprovalPageState): SafeHtml {
  const given = `${s.approvedCount} of ${s.required} approval${s.required === 1 ? '' : 's'} given`;
  if (s.status === 'pending') {
    return html`<section class="status pending" aria-labelledby="status-h">
      <h2 id="status-h">Waiting for approvers: ${given}</h2>
      <p>
        Expires at <time datetime="${s.expiresAt}">${utc(s.expiresAt)}</time>
        <span id="countdown" data-expires-at="${s.expiresAt}"></span>
      </p>
    </section>`;
  }
  const [label, next] = FINAL[s.status];
  return html`<section class="status final ${s.status}" aria-labelledby="status-h">
    <h2 id="status-h">${label}</h2>
    <p>
      ${next}
      ${given}${s.decidedAt !== null ? html`, decided at <time datetime="${s.decidedAt}">${utc(s.decidedAt)}</time>` : ''}.
    </p>
  </section>`;
}

function actionSection(s: ApprovalPageState, findings: TextFindings): SafeHtml {
  const rows = flattenAction(s.action).map((row) => {
    const label = row.label === '' ? html`(the action)` : shownText(row.label, findings);
    const value = html`<bdi class="text">${shownText(row.value, findings)}</bdi>`;
    const type = row.type === 'string' ? '' : html` <span class="type">(${row.type})</span>`;
    const flag =
      revealText(row.value).confusable.length > 0
        ? html` <strong class="flag">look-alike letters: check with the requester</strong>`
        : '';
    return html`<tr>
      <th scope="row"><bdi class="text">${label}</bdi></th>
      <td class="${row.type === 'string' ? 'value' : 'value literal'}">${value}${type}${flag}</td>
    </tr>`;
  });
  // The same characters again: marked, not counted twice.
  const canonical = shownText(s.canonicalJson, emptyFindings());
  return html`<section class="card" aria-labelledby="action-h">
    <h2 id="action-h">The action</h2>
    ${findingsWarning(findings)}
    <table class="action">
      <caption>
        Every field of the action, as it is signed
      </caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
    <h3>Exact signed text (RFC 8785 canonical JSON)</h3>
    <pre class="canonical">${canonical}</pre>
    <p>SHA-256: <code class="hash">${s.actionHashHex}</code></p>
  </section>`;
}

function decisionOf(d: ApprovalPageState['approvers'][number]): string {
  if (d.decision === null) return 'not decided yet';
  return `${d.decision}${d.decidedAt !== null ? ` at ${utc(d.decidedAt)}` : ''}`;
}

/** A subject as shown: a console member by name and role, the subject itself kept as its title. */
function person(subject: string, people: ApprovalPeople | null, findings: TextFindings): SafeHtml {
  const label = people?.names.get(subject);
  if (label === undefined) return html`<bdi>${shownText(subject, findings)}</bdi>`;
  return html`<bdi title="${subject}">${shownText(label, findings)}</bdi>`;
}

function requestedBy(s: ApprovalPageState, people: ApprovalPeople | null, findings: TextFindings): SafeHtml {
  if (people?.requester) {
    return html`<strong>${person(people.requester.subject, people, findings)}</strong> (their passkey gave the
      first approval)`;
  }
  return html`<strong
      >${s.initiator === null ? 'the service (no initiator named)' : shownText(s.initiator, findings)}</strong
    >${s.initiator === null ? '' : ' (the requester cannot approve it)'}`;
}

function peopleSection(
  s: ApprovalPageState,
  people: ApprovalPeople | null,
  findings: TextFindings,
): SafeHtml {
  return html`<section class="card" aria-labelledby="people-h">
    <h2 id="people-h">Who decides</h2>
    <p>
      Requested by ${requestedBy(s, people, findings)}. Needs
      <strong>${s.required}</strong> of ${s.approvers.length} approver${s.approvers.length === 1 ? '' : 's'}.
    </p>
    <ul class="approvers">
      ${s.approvers.map(
        (a) =>
          html`<li class="${a.decision ?? 'undecided'}">
            ${person(a.subject, people, findings)}: ${decisionOf(a)}
          </li>`,
      )}
    </ul>
  </section>`;
}

function decideSection(s: ApprovalPageState): SafeHtml {
  if (s.status !== 'pending') return html``;
  if (s.setupProblem !== null) {
    return html`<section class="card setup" aria-labelledby="setup-h">
      <h2 id="setup-h">This page cannot ask for passkeys yet</h2>
      <p role="alert">${s.setupProblem}</p>
      <p>Show this message to the operator of the service; nothing can be approved here until it is fixed.</p>
    </section>`;
  }
  return html`<section class="card decide" aria-labelledby="decide-h">
    <h2 id="decide-h">Your decision</h2>
    <p>
      Check that the requester sees the same binding code, then decide with the passkey you enrolled for
      ${s.rpId}. Both answers are signed and kept.
    </p>
    <div class="buttons">
      <button type="button" class="approve" data-intent="approve">Approve with passkey</button>
      <button type="button" class="reject" data-intent="reject">Reject with passkey</button>
    </div>
  </section>`;
}

/** Text for places without markup (the document title): hidden characters as marks. */
function plainText(text: string): string {
  return revealText(text)
    .pieces.map((p) => ('mark' in p ? p.mark : p.text))
    .join('');
}

/** The hosted approval page (docs/api-contract.md#13-approvals): complete without its script; the script runs ceremonies. */
export function renderApprovalPage({ state: s, qrSvg, people = null }: ApprovalPageInput): string {
  const findings = emptyFindings();
  const heading = s.title === null ? html`Approve this action?` : shownText(s.title, findings);
  const tenant = shownText(s.tenantName, findings);
  const body = html` <p id="progress" class="progress" role="status" aria-live="polite"></p>
    ${statusSection(s)}
    <section class="card binding" aria-labelledby="binding-h">
      <h2 id="binding-h">Binding code</h2>
      <p class="binding-code">${s.bindingCode}</p>
      <p>The requester sees this code too. If theirs differs, this is not their request: reject it.</p>
    </section>
    ${beforeAfterSection(s, findings)} ${actionSection(s, findings)} ${peopleSection(s, people, findings)}
    ${decideSection(s)}
    <section class="card qr" aria-labelledby="qr-h">
      <h2 id="qr-h">Continue on your phone</h2>
      <div class="qr-code" role="img" aria-label="QR code of this page's address">${new SafeHtml(qrSvg)}</div>
      <p>Scan it to open this page on the device that holds your passkey.</p>
    </section>`;
  return linkLayout({
    title: plainText(s.title ?? 'Approve this action?'),
    heading,
    tenantName: html`${tenant} asks for your approval`,
    withScript: true,
    body,
  });
}
