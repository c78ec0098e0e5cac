import { ERRORS, problemPath, type ErrorCode } from '@presence/contract';
import type { App } from '../http/types.js';
import { sendProblem } from '../http/plugins/problem.js';
import { html, SafeHtml, escapeHtml } from './html.js';
import { addSecurityHeaders } from './security-headers.js';

const CODES = Object.keys(ERRORS) as ErrorCode[];
const BY_SLUG = new Map(CODES.map((code) => [problemPath(code).split('/').pop()!, code]));

/** Catalogue prose marks code with backticks; shown as <code>, everything else escaped. */
function prose(text: string): SafeHtml {
  return new SafeHtml(escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>'));
}

function page(title: string, body: SafeHtml): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Presence</title>
      </head>
      <body>
        <main>${body}</main>
      </body>
    </html>`.toString();
}

function codePage(code: ErrorCode): string {
  const { status, title, cause, remedy } = ERRORS[code];
  return page(
    code,
    html`<p><a href="/problems">All problem codes</a></p>
      <h1><code>${code}</code> — ${title}</h1>
      <p>
        HTTP status <strong>${status}</strong>. Responses carry it as <code>"code": "${code}"</code> in an
        <code>application/problem+json</code> body.
      </p>
      <h2>What causes it</h2>
      <p>${prose(cause)}</p>
      <h2>What to do</h2>
      <p>${prose(remedy)}</p>
      <p>Every problem names its <code>requestId</code>; quote it when you ask the operator about one.</p>`,
  );
}

function indexPage(): string {
  const rows = CODES.map(
    (code) =>
      html`<tr>
        <td>
          <a href="${problemPath(code)}"><code>${code}</code></a>
        </td>
        <td>${ERRORS[code].status}</td>
        <td>${ERRORS[code].title}</td>
      </tr>`,
  );
  return page(
    'Problem codes',
    html`<h1>Problem codes</h1>
      <p>
        Every error of the Presence API is an RFC 9457 <code>application/problem+json</code> document whose
        <code>code</code> is one of these, and whose <code>type</code> links to its page here.
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">code</th>
            <th scope="col">status</th>
            <th scope="col">meaning</th>
          </tr>
        </thead>
        <tbody>
          ${rows}
        </tbody>
      </table>`,
  );
}

/** `GET /problems` and `GET /problems/<code>`: the pages that problem `type` URIs point at. */
export async function problemPages(app: App): Promise<void> {
  await app.register(async (child) => {
    addSecurityHeaders(child);
    child.get('/problems', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/html; charset=utf-8').send(indexPage()),
    );
    child.get<{ Params: { slug: string } }>(
      '/problems/:slug',
      { schema: { hide: true } },
      async (request, reply) => {
        const code = BY_SLUG.get(request.params.slug);
        if (code === undefined) {
          return sendProblem(reply, request, 'not_found', `no problem code ${request.params.slug}`);
        }
        return reply.type('text/html; charset=utf-8').send(codePage(code));
      },
    );
  });
}
