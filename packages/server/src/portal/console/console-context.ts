import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import type { ConsoleSettings } from '../../domain/console/console-settings.js';
import { authenticateSession, type SignedInMember } from '../../domain/console/authenticate-session.js';
import { DomainError } from '../../domain/errors.js';
import type { App } from '../../http/types.js';

/** What every console route handler gets: the domain, the settings, and who is signed in. */
export interface ConsoleContext {
  deps: Deps;
  settings: ConsoleSettings;
  /** Keys the CSRF tokens (HMAC of the session id). */
  csrfKey: Buffer;
}

export interface ConsoleRequest {
  ctx: ConsoleContext;
  signedIn: SignedInMember | undefined;
  csrf: string | undefined;
}

const STATE = new WeakMap<FastifyRequest, ConsoleRequest>();

/** `__Host-` pins the cookie to this exact origin; browsers only accept it with Secure. */
export function cookieName(settings: Pick<ConsoleSettings, 'origin'>): string {
  return secureCookies(settings) ? '__Host-presence-console' : 'presence-console';
}

/** Secure unless the console is served over plain HTTP on localhost (development). */
export function secureCookies(settings: Pick<ConsoleSettings, 'origin'>): boolean {
  return new URL(settings.origin).protocol === 'https:';
}

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function setSessionCookie(reply: FastifyReply, settings: ConsoleSettings, token: string | null): void {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict'];
  if (secureCookies(settings)) attributes.push('Secure');
  attributes.push(token === null ? 'Max-Age=0' : `Max-Age=${Math.floor(settings.sessionAbsoluteMs / 1000)}`);
  reply.header('set-cookie', `${cookieName(settings)}=${token ?? ''}; ${attributes.join('; ')}`);
}

function csrfFor(key: Buffer, sessionId: string): string {
  return createHmac('sha256', key).update(`console-csrf/${sessionId}`).digest('base64url');
}

/** Resolves the settings and the session of every console request, once, before anything else. */
export function registerConsoleContext(
  app: App,
  make: (request: FastifyRequest) => Promise<ConsoleContext>,
): void {
  app.addHook('onRequest', async (request) => {
    const ctx = await make(request);
    const token = readCookie(request, cookieName(ctx.settings));
    const signedIn =
      token && /^[A-Za-z0-9_-]{43}$/.test(token)
        ? await authenticateSession(ctx.deps, ctx.settings, token)
        : undefined;
    STATE.set(request, {
      ctx,
      signedIn,
      csrf: signedIn ? csrfFor(ctx.csrfKey, signedIn.session.id) : undefined,
    });
  });
}

export function consoleRequest(request: FastifyRequest): ConsoleRequest {
  const state = STATE.get(request);
  if (!state) throw new Error('console route outside the console context');
  return state;
}

/** The signed-in member, or a 401 problem (state changes) that tells how to sign in. */
export function memberOf(request: FastifyRequest): SignedInMember {
  const { signedIn } = consoleRequest(request);
  if (!signedIn)
    throw new DomainError('unauthorized', 'sign in to the console first (your session may have ended)');
  return signedIn;
}

/**
 * CSRF: every state change carries the session's token, in the form (`_csrf`) or in the
 * `x-csrf-token` header, and comes from this origin (Sec-Fetch-Site / Origin when sent).
 */
export function checkCsrf(request: FastifyRequest): void {
  const state = consoleRequest(request);
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  // With Referrer-Policy no-referrer a same-origin form post says `Origin: null`; Sec-Fetch-Site
  // still tells. A named foreign origin is refused either way.
  const foreignOrigin = origin !== undefined && origin !== 'null' && origin !== state.ctx.settings.origin;
  if ((site !== undefined && site !== 'same-origin') || foreignOrigin) {
    throw new DomainError('forbidden', 'cross-site requests cannot change anything in the console');
  }
  if (!state.csrf) return;
  const body = request.body as Record<string, unknown> | undefined;
  const sent = request.headers['x-csrf-token'] ?? body?.['_csrf'];
  const expected = Buffer.from(state.csrf);
  const given = Buffer.from(typeof sent === 'string' ? sent : '');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new DomainError(
      'forbidden',
      'the form is stale or did not come from the console (CSRF token missing or wrong); reload the page and try again',
    );
  }
}

export function consoleRequestOrUndefined(request: FastifyRequest): ConsoleRequest | undefined {
  return STATE.get(request);
}
