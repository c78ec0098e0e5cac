import { RegisterCredentialBody, VerifyBody } from '@presence/contract';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { acceptInvite } from '../../../domain/console/accept-invite.js';
import { findOpenInvite } from '../../../domain/console/find-open-invite.js';
import { finishSignIn } from '../../../domain/console/finish-sign-in.js';
import { signOut } from '../../../domain/console/sign-out.js';
import { startInviteEnrollment } from '../../../domain/console/start-invite-enrollment.js';
import { startSignIn } from '../../../domain/console/start-sign-in.js';
import type { App } from '../../../http/types.js';
import { html } from '../../html.js';
import { checkCsrf, consoleRequest, memberOf, setSessionCookie } from '../console-context.js';
import { renderPage } from '../layout.js';
import { Form } from '../routes.js';

const TokenParams = Type.Object({ token: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }) });
const DisplayName = Type.String({ minLength: 1, maxLength: 80, pattern: '^[^\\u0000-\\u001f<>]+$' });
const NextQuery = Type.Object({ next: Type.Optional(Type.String({ maxLength: 500 })) });

/** Where to go after signing in: only a console path of this origin, never elsewhere. */
function safeNext(next: string | undefined): string {
  return next !== undefined && /^\/console(\/[A-Za-z0-9_\-/.?=&%]*)?$/.test(next) && !next.startsWith('//')
    ? next
    : '/console';
}

/** When the page is opened on another address than the console's, passkeys cannot work there. */
function wrongAddress(request: FastifyRequest): string | undefined {
  const { origin } = consoleRequest(request).ctx.settings;
  return request.headers.host === new URL(origin).host ? undefined : origin;
}

function addressWarning(origin: string | undefined) {
  if (origin === undefined) return '';
  return html`<div class="callout error" role="alert" id="wrong-address">
    <p>
      This console's passkeys belong to <strong>${new URL(origin).host}</strong>. Open
      <a href="${origin}/console">${origin}/console</a> instead: the browser refuses passkeys on any other
      address (even the same computer under another name, such as 127.0.0.1 instead of localhost).
    </p>
  </div>`;
}

export function authRoutes(app: App): void {
  app.get('/console/sign-in', { schema: { hide: true, querystring: NextQuery } }, async (request, reply) => {
    const body = html`${addressWarning(wrongAddress(request))}
      <section class="card narrow" data-sign-in data-next="${safeNext(request.query.next)}">
        <p>
          Sign in with the passkey you enrolled from your invite. No user name or password: your device shows
          the passkeys it holds for this console.
        </p>
        <button type="button" id="sign-in-button" disabled>Sign in with a passkey</button>
        <p id="sign-in-status" class="status" role="status" aria-live="polite"></p>
        <p class="muted">New here? Open the invite link an owner of your team gave you.</p>
      </section>`;
    return reply
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(renderPage({ title: 'Sign in', body }));
  });

  app.get(
    '/console/invite/:token',
    { schema: { hide: true, params: TokenParams } },
    async (request, reply) => {
      const invite = await findOpenInvite(consoleRequest(request).ctx.deps, request.params.token);
      const body = html`${addressWarning(wrongAddress(request))}
        <section class="card narrow" data-invite="${request.params.token}">
          <p>
            You are invited to join as <strong>${invite.role}</strong>. Choose the name your team will see,
            then create a passkey on this device: it is how you sign in from now on.
          </p>
          <p>
            <label for="display-name">Your name</label
            ><input id="display-name" name="displayName" maxlength="80" required autocomplete="name" />
          </p>
          <button type="button" id="enroll-button" disabled>Create a passkey and join</button>
          <p id="enroll-status" class="status" role="status" aria-live="polite"></p>
        </section>`;
      return reply
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(renderPage({ title: 'Join the console', body }));
    },
  );

  // Anonymous, and each call stores a challenge: counted per client address (PRESENCE_RATE_LIMIT_SIGN_IN_PER_MINUTE).
  const signInLimit = { addressLimit: 'sign-in' as const };
  app.post(
    '/console/api/sign-in/options',
    { schema: { hide: true }, config: signInLimit },
    async (request) => {
      checkCsrf(request);
      const { ctx } = consoleRequest(request);
      return startSignIn(ctx.deps, ctx.settings);
    },
  );

  app.post(
    '/console/api/sign-in',
    { schema: { hide: true, body: VerifyBody }, config: signInLimit },
    async (request, reply) => {
      checkCsrf(request);
      const { ctx } = consoleRequest(request);
      const { session } = await finishSignIn(ctx.deps, ctx.settings, request.body);
      setSessionCookie(reply, ctx.settings, session.token);
      return { signedIn: true };
    },
  );

  app.post('/console/api/invite/:token/options', {
    schema: {
      hide: true,
      params: TokenParams,
      body: Type.Object({ displayName: DisplayName }, { additionalProperties: false }),
    },
    handler: async (request) => {
      checkCsrf(request);
      const { ctx } = consoleRequest(request);
      return startInviteEnrollment(ctx.deps, ctx.settings, {
        token: request.params.token,
        displayName: request.body.displayName,
      });
    },
  });

  app.post('/console/api/invite/:token', {
    schema: {
      hide: true,
      params: TokenParams,
      body: Type.Object(
        {
          displayName: DisplayName,
          registrationId: RegisterCredentialBody.properties.registrationId,
          credential: RegisterCredentialBody.properties.credential,
        },
        { additionalProperties: false },
      ),
    },
    handler: async (request, reply) => {
      checkCsrf(request);
      const { ctx } = consoleRequest(request);
      const { session } = await acceptInvite(ctx.deps, ctx.settings, {
        token: request.params.token,
        ...request.body,
      });
      setSessionCookie(reply, ctx.settings, session.token);
      return { signedIn: true };
    },
  });

  app.post('/console/sign-out', {
    schema: { hide: true, body: Form({ everywhere: Type.Optional(Type.Literal('1')) }) },
    preValidation: async (request) => checkCsrf(request),
    handler: async (request, reply) => {
      const signedIn = memberOf(request);
      const { ctx } = consoleRequest(request);
      await signOut(ctx.deps, signedIn, request.body.everywhere === '1');
      setSessionCookie(reply, ctx.settings, null);
      return reply.redirect('/console/sign-in', 303);
    },
  });
}
