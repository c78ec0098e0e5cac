import type { Static } from '@sinclair/typebox';
import type { EnrollmentPageState } from '@presence/contract';
import { html, type SafeHtml } from '../html.js';
import { utc } from './approval-page-view.js';
import { linkLayout } from './link-layout.js';
import { emptyFindings, shownText } from './shown-text.js';

type State = Static<typeof EnrollmentPageState>;

function enrollSection(s: State): SafeHtml {
  if (s.used) {
    return html`<section class="status final expired" aria-labelledby="status-h">
      <h2 id="status-h">This link was used or has expired</h2>
      <p>
        An enrollment link enrolls one passkey, once. If you enrolled with it, you are done: approval links
        sent to you will accept that passkey. Otherwise ask the person who sent it for a new link.
      </p>
    </section>`;
  }
  if (s.setupProblem !== null) {
    return html`<section class="card setup" aria-labelledby="setup-h">
      <h2 id="setup-h">This page cannot create passkeys yet</h2>
      <p role="alert">${s.setupProblem}</p>
      <p>Show this message to the operator of the service; nothing can be enrolled here until it is fixed.</p>
    </section>`;
  }
  return html`<section class="card decide" aria-labelledby="enroll-h">
    <h2 id="enroll-h">Create your passkey</h2>
    <p>
      Your device will ask you to create a passkey for <strong>${s.rpId}</strong> and to unlock it
      (fingerprint, face or PIN). The link works once, until
      <time datetime="${s.expiresAt}">${utc(s.expiresAt)}</time>
      <span id="countdown" data-expires-at="${s.expiresAt}"></span>.
    </p>
    <div class="buttons">
      <button type="button" class="approve" data-enroll="true">Enroll a passkey</button>
    </div>
  </section>`;
}

/** The hosted enrollment page (docs/api-contract.md#13-approvals): one passkey for the link's subject. */
export function renderEnrollPage(s: State): string {
  const findings = emptyFindings();
  const who =
    s.displayName === null
      ? html`<code>${s.subject}</code>`
      : html`${shownText(s.displayName, findings)} (<code>${s.subject}</code>)`;
  return linkLayout({
    title: 'Enroll a passkey',
    tenantName: html`${shownText(s.tenantName, findings)} asks you to enroll a passkey`,
    withScript: true,
    body: html`<p id="progress" class="progress" role="status" aria-live="polite"></p>
      <section class="card" aria-labelledby="who-h">
        <h2 id="who-h">For whom</h2>
        <p>This passkey will approve requests as ${who}. If that is not you, close this page.</p>
      </section>
      ${enrollSection(s)}`,
  });
}
