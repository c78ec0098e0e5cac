import { ERRORS, problemPath, type ErrorCode } from '@presence/contract';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { problemOf } from '../../http/plugins/problem.js';
import { sendProblem } from '../../http/plugins/problem.js';
import type { FieldError } from '../../domain/errors.js';
import type { App } from '../../http/types.js';
import { html } from '../html.js';
import { consoleRequestOrUndefined } from './console-context.js';
import { renderPage } from './layout.js';

/** Scripts and downloads get problem+json; a person gets the same problem as a page. */
function wantsJson(request: FastifyRequest): boolean {
  return (
    request.url.startsWith('/console/api/') || (request.headers.accept ?? '').includes('application/json')
  );
}

export async function sendProblemPage(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ErrorCode,
  detail: string,
  errors: FieldError[] = [],
) {
  if (wantsJson(request)) return sendProblem(reply, request, code, detail, errors);
  const { status, title } = ERRORS[code];
  const state = consoleRequestOrUndefined(request);
  const signIn =
    code === 'unauthorized' ? html`<p><a href="/console/sign-in">Sign in with your passkey</a></p>` : '';
  const body = html`<section class="problem" data-code="${code}">
    <p class="detail">${detail}</p>
    ${
      errors.length > 0
        ? html`<ul class="fields">
            ${errors.map((e) => html`<li><code>${e.field}</code>: ${e.message}</li>`)}
          </ul>`
        : ''
    }
    <dl class="facts">
      <dt>Status</dt>
      <dd>${status}</dd>
      <dt>Code</dt>
      <dd><code>${code}</code> (<a href="${problemPath(code)}">what it means and what to do</a>)</dd>
      <dt>Request id</dt>
      <dd><code>${request.id}</code></dd>
    </dl>
    ${signIn}
    <p>Nothing was changed. <a href="/console">Back to the overview</a></p>
  </section>`;
  const tenantId = state?.signedIn?.member.tenantId;
  const tenant = tenantId === undefined ? undefined : await state?.ctx.deps.store.tenants.get(tenantId);
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(
      renderPage({ title, signedIn: state?.signedIn, csrf: state?.csrf, tenantName: tenant?.name, body }),
    );
}

export function registerProblemPages(app: App): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const problem = problemOf(error);
    if (problem) {
      if (problem.retryAfterSeconds !== undefined)
        reply.header('retry-after', String(problem.retryAfterSeconds));
      return sendProblemPage(request, reply, problem.code, problem.detail, problem.errors);
    }
    request.log.error({ err: error }, 'unhandled console error');
    return sendProblemPage(
      request,
      reply,
      'internal_error',
      'an internal error occurred; quote the request id when reporting it',
    );
  });
}
