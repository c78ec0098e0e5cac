import { html, type SafeHtml } from '../html.js';
import { BASE_STYLESHEET } from '../static-assets.js';

export const LINK_ASSETS = '/links/assets';

export interface LinkPageInput {
  /** The document title (plain text). */
  title: string;
  /** The visible h1, when it differs from the title (hidden characters shown as marks). */
  heading?: SafeHtml;
  tenantName?: SafeHtml;
  /** Loads @simplewebauthn/browser and the page script (not on pages without a ceremony). */
  withScript: boolean;
  body: SafeHtml;
}

/** The frame of the hosted approval and enrollment pages: landmarks, one h1, self-hosted assets. */
export function linkLayout(input: LinkPageInput): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${input.title} · Presence</title>
        <link rel="stylesheet" href="${BASE_STYLESHEET}" />
        <link rel="stylesheet" href="${LINK_ASSETS}/links.css" />
        ${
          input.withScript
            ? html`<script src="${LINK_ASSETS}/simplewebauthn-browser.js" defer></script>
                <script src="${LINK_ASSETS}/links.js" defer></script>`
            : ''
        }
      </head>
      <body>
        <header>
          ${input.tenantName !== undefined ? html`<p class="tenant">${input.tenantName}</p>` : ''}
          <h1>${input.heading ?? input.title}</h1>
        </header>
        <main>${input.body}</main>
        <footer>
          <p>Presence: every decision on this page is signed with a passkey and kept as a receipt.</p>
        </footer>
      </body>
    </html>`.toString();
}

/** The page for a token that names nothing (or garbage): what the person can do next. */
export function linkNotFoundPage(kind: 'approval' | 'enrollment'): string {
  return linkLayout({
    title: `This ${kind} link is not valid`,
    withScript: false,
    body: html`<section class="card" aria-labelledby="nf">
      <h2 id="nf">Nothing to ${kind === 'approval' ? 'approve' : 'enroll'} here</h2>
      <p>
        The link may be mistyped or cut short (copy the whole address), or it was never issued. Ask the person
        who sent it for a new link.
      </p>
    </section>`,
  });
}
