import { html, type SafeHtml } from './html.js';
import { BASE_STYLESHEET } from './static-assets.js';

export interface DemoPageInput {
  /** The payout every approval starts from; the server adds a fresh payoutId each time. */
  template: Readonly<Record<string, string>>;
  rpId: string;
  assetPrefix: string;
  /** Set when the page was opened on an origin the tenant does not allow: the one to open instead. */
  openInstead: string | undefined;
}

/** Passkeys only work on the origins the tenant's policy allows: say which address to open. */
export function wrongOriginNotice(openInstead: string | undefined, path: string): SafeHtml | '' {
  if (openInstead === undefined) return '';
  return html`<p class="status" data-kind="error" role="alert" id="wrong-origin">
    This page was opened on an address the demo tenant does not allow, so your browser will refuse the
    passkey. Open <a href="${openInstead}${path}">${openInstead}${path}</a> instead (the same computer under
    another name, such as 127.0.0.1 instead of localhost, is a different address for passkeys).
  </p>`;
}

function step(n: number, title: string): SafeHtml {
  return html`<h2><span class="step">${n}</span>${title}</h2>`;
}

function enrollSection(input: DemoPageInput): SafeHtml {
  return html`<section class="card" aria-labelledby="enroll-title">
    <div id="enroll-title">${step(1, 'Enroll a passkey')}</div>
    <p>
      This browser acts as demo subject <code id="subject">(loading…)</code>, a random pseudonymous reference
      kept in this browser's localStorage. The service stores no name and no e-mail address, only the subject
      and the public key of the passkey, registered for <code>${input.rpId}</code> with user verification
      required.
    </p>
    <div class="actions">
      <button type="button" id="enroll-button" disabled>Enroll a passkey</button>
      <button type="button" id="new-subject-button" class="secondary" disabled>
        Start over as a new subject
      </button>
    </div>
    <p id="enroll-status" class="status" role="status" aria-live="polite"></p>
  </section>`;
}

function actionSection(input: DemoPageInput): SafeHtml {
  const { amount, currency, iban, reference } = input.template;
  const shown = { ...input.template, payoutId: '(made by the server for each approval)' };
  return html`<section class="card" aria-labelledby="approve-title">
    <div id="approve-title">${step(2, 'Approve the payout')}</div>
    <p class="summary">
      Pay <strong>${amount} ${currency}</strong> to <strong>${iban}</strong>, reference
      <strong>${reference}</strong>.
    </p>
    <h3>The exact action</h3>
    <pre id="action-json" class="json">${JSON.stringify(shown, null, 2)}</pre>
    <h3>Its hash</h3>
    <p class="explain">
      SHA-256 over the RFC 8785 canonical bytes
      <code id="action-canonical" class="wrap">(after you click approve)</code>:
    </p>
    <p><code id="action-hash" class="hash">(after you click approve)</code></p>
    <p class="explain">
      Every approval is a distinct payout: the demo backend gives it a fresh <code>payoutId</code> and
      computes the hash itself, so the browser never chooses the action and no two approvals share a hash. The
      WebAuthn challenge is derived from this hash and a fresh nonce, so the passkey's signature covers
      exactly this payout.
    </p>
    <div class="actions">
      <button type="button" id="approve-button" disabled>
        Approve ${amount} ${currency} with your passkey
      </button>
    </div>
    <p id="approve-status" class="status" role="status" aria-live="polite"></p>
  </section>`;
}

function resultSection(): SafeHtml {
  return html`<section class="card" id="result" aria-labelledby="result-title" hidden>
    <div id="result-title">${step(3, 'Decision and signed receipt')}</div>
    <div id="decision" class="decision" data-outcome="none"></div>
    <dl class="fields">
      <dt>challengeId</dt>
      <dd><code id="challenge-id"></code></dd>
      <dt>actionHashHex</dt>
      <dd><code id="challenge-hash" class="hash"></code></dd>
      <dt>receiptId</dt>
      <dd><code id="receipt-id">—</code></dd>
      <dt>receiptHashHex</dt>
      <dd><code id="receipt-hash" class="hash">—</code></dd>
    </dl>
    <div id="receipt-block" hidden>
      <p><a id="receipt-link" href="#" target="_blank" rel="noopener">Open the receipt JSON</a></p>
      <pre id="receipt-json" class="json"></pre>
    </div>
  </section>`;
}

function proofSection(): SafeHtml {
  return html`<section class="card muted">
    <h2>What this proves</h2>
    <ul>
      <li>
        Only <code>PRESENCE_VERIFIED</code> is a success; every other decision is a denial and executes
        nothing.
      </li>
      <li>A challenge is single-use: one decision, at most one receipt.</li>
      <li>
        The receipt holds the authenticator data, client data and signature, the credential public key, the
        action hash and the nonce. Anyone can check it offline with the service keys at
        <a href="/.well-known/presence/keys.json">/.well-known/presence/keys.json</a>, without trusting the
        service.
      </li>
    </ul>
  </section>`;
}

/** The demo page: static markup, every dynamic value escaped; behaviour lives in demo.js. */
export function renderDemoPage(input: DemoPageInput): string {
  const assets = input.assetPrefix;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Presence demo: approve a payout with a passkey</title>
        <link rel="stylesheet" href="${BASE_STYLESHEET}" />
        <link rel="stylesheet" href="${assets}/demo.css" />
        <script src="${assets}/simplewebauthn-browser.js" defer></script>
        <script src="${assets}/demo.js" defer></script>
      </head>
      <body>
        <header>
          <h1>Presence demo</h1>
          <p>
            Proof that a verified human approved one exact action. Enroll a passkey once, then approve the
            payout below: the service answers with a decision and, on success, a signed receipt anyone can
            verify offline.
          </p>
          ${wrongOriginNotice(input.openInstead, '/demo')}
          <p id="support" class="status" role="status"></p>
        </header>
        <main>${enrollSection(input)} ${actionSection(input)} ${resultSection()} ${proofSection()}</main>
      </body>
    </html> `.toString();
}
