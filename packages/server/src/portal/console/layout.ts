import type { SignedInMember } from '../../domain/console/authenticate-session.js';
import { html, type SafeHtml } from '../html.js';
import { BASE_STYLESHEET } from '../static-assets.js';

export const CONSOLE_ASSETS = '/console/assets';

const NAV: readonly [string, string][] = [
  ['/console', 'Overview'],
  ['/console/keys', 'API keys'],
  ['/console/webhooks', 'Webhooks'],
  ['/console/receipts', 'Receipts'],
  ['/console/denied', 'Denied attempts'],
  ['/console/credentials', 'Credentials'],
  ['/console/policy', 'Policy'],
  ['/console/usage', 'Usage and invoices'],
  ['/console/members', 'Members'],
  ['/console/changes', 'Changes awaiting approval'],
  ['/console/audit', 'Audit log'],
];

export interface PageInput {
  title: string;
  /** Which navigation entry is current. */
  nav?: string;
  signedIn?: SignedInMember | undefined;
  tenantName?: string | undefined;
  csrf?: string | undefined;
  body: SafeHtml;
}

function navigation(current: string | undefined): SafeHtml {
  return html`<nav aria-label="Console">
    <ul>
      ${NAV.map(
        ([href, label]) =>
          html`<li><a href="${href}" ${href === current ? html`aria-current="page"` : ''}>${label}</a></li>`,
      )}
    </ul>
  </nav>`;
}

function memberBar(input: PageInput): SafeHtml {
  const signedIn = input.signedIn;
  if (!signedIn) return html``;
  return html`<div class="who">
    <span
      ><strong>${signedIn.member.displayName}</strong> · ${signedIn.member.role} ·
      <span class="tenant">${input.tenantName ?? signedIn.member.tenantId}</span></span
    >
    <form method="post" action="/console/sign-out">
      <input type="hidden" name="_csrf" value="${input.csrf ?? ''}" />
      <button type="submit" class="link">Sign out</button>
    </form>
  </div>`;
}

/** The console's page shell: landmarks, navigation, one h1, the CSRF token for scripts. */
export function renderPage(input: PageInput): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="csrf-token" content="${input.csrf ?? ''}" />
        <title>${input.title} · Presence console</title>
        <link rel="stylesheet" href="${BASE_STYLESHEET}" />
        <link rel="stylesheet" href="${CONSOLE_ASSETS}/console.css" />
        <script src="${CONSOLE_ASSETS}/simplewebauthn-browser.js" defer></script>
        <script src="${CONSOLE_ASSETS}/console-changes.js" defer></script>
        <script src="${CONSOLE_ASSETS}/console.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <a class="brand" href="/console">Presence console</a>
          ${memberBar(input)}
        </header>
        <div class="frame">
          ${input.signedIn ? navigation(input.nav) : ''}
          <main id="main">
            <h1>${input.title}</h1>
            <div id="flash" class="flash" role="status" aria-live="polite" hidden></div>
            ${input.body}
          </main>
        </div>
      </body>
    </html>`.toString();
}
